import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
FIXTURES = SHARED / "fixtures"

# the engine tests' toy generator, importable by spawned workers and Ray workers too
TESTS = str(Path(__file__).resolve().parent)
os.environ["SIMKIT_GENERATORS"] = "toy=toygen:ToyGenerator,media=toygen:MediaGenerator"
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [TESTS, str(ROOT), os.environ.get("PYTHONPATH", "")]))
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)


def fixture_path(*parts: str) -> Path:
    """Path of a shared fixture; fails the test loudly (never skips) when it is absent."""
    p = FIXTURES.joinpath(*parts)
    if not p.exists():
        pytest.fail(f"required fixture missing: {p} (see ../shared/fixtures/README.md)", pytrace=False)
    return p
