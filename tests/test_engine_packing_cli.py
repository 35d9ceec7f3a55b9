"""Acceptance of the engine on the real main job: `simkit generate packing` through the CLI."""

from __future__ import annotations

import json

import pytest
from enginehelp import manifest_rows, simkit_cli, tar_members


@pytest.mark.slow
def test_packing_cli_same_members_for_one_and_two_workers(tmp_path):
    a, b = tmp_path / "w1", tmp_path / "w2"
    simkit_cli(
        "generate", "packing", "--n", "8", "--seed", "7", "--workers", "1", "--out", str(a), check=True
    )
    simkit_cli(
        "generate", "packing", "--n", "8", "--seed", "7", "--workers", "2", "--out", str(b), check=True
    )
    ma, mb = tar_members(a), tar_members(b)
    assert len(ma) >= 8 * 5 and ma == mb
    assert manifest_rows(a) == manifest_rows(b)
    meta = json.loads(ma["packing_00000003.meta.json"])
    assert meta["seed"] == 7 and meta["index"] == 3 and meta["params"]["structural"]
    p = simkit_cli("validate", str(a), check=True)
    assert "PASS" in p.stdout
