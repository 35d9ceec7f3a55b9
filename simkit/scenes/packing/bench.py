"""The shipped packing bench cases (``simkit/data/packing/bench_v1.json``) and their reader.

The file is built by :func:`simkit.eval.packing.bench.build_bench` (``tools/make_packing_bench.py``);
the env (``simkit/Packing-v0``) and the evaluation both read it with :func:`load_bench`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from simkit.core.errors import InputError
from simkit.scenes.packing.case import EvalCase

#: file name of the shipped bench under ``simkit/data/packing/``
BENCH_FILE = "bench_v1.json"


def bench_path() -> Path:
    """Path of the shipped bench file."""
    return Path(str(resources.files("simkit") / "data" / "packing" / BENCH_FILE))


def load_bench(path: str | Path | None = None, tiers: Iterable[str] | None = None) -> list[EvalCase]:
    """The bench cases (default: the shipped file), optionally only some tiers.

    Raises:
        InputError: the file is missing or malformed.
    """
    p = Path(path) if path is not None else bench_path()
    try:
        doc = json.loads(p.read_text())
        cases = [EvalCase.from_json(c) for c in doc["cases"]]
    except FileNotFoundError:
        raise InputError(p, "bench file not found (build it with tools/make_packing_bench.py)") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(p, f"malformed bench file ({type(exc).__name__}: {exc})") from None
    if tiers is not None:
        keep = set(tiers)
        cases = [c for c in cases if c.tier in keep]
    return cases
