"""VLN-CE episode import: frames, quaternions, scenes on disk, episodes through the foa-nav generator."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest

from simkit.core.errors import InputError
from simkit.core.seeding import episode_rng
from simkit.episodes.codecs import decode, encode
from simkit.generators.nav.generator import FoaNavConfig, FoaNavGenerator
from simkit.scenes.nav.floorplan import compile_floorplan, plan_mesh, write_glb
from simkit.sims.nav.grid import grid_backend_from_mesh
from simkit.sims.nav.vlnce import habitat_to_world, habitat_yaw, load_vlnce


def _hab(p):
    """simkit (x, y, z) -> Habitat (x, z, -y)."""
    return [float(p[0]), float(p[2]), float(-p[1])]


def _yaw_quat(theta):
    """Habitat rotation by theta about +y, as [x, y, z, w]."""
    return [0.0, math.sin(theta / 2), 0.0, math.cos(theta / 2)]


def test_frames_and_headings():
    np.testing.assert_allclose(habitat_to_world([1.0, 0.5, -2.0]), [1.0, 2.0, 0.5])
    # identity looks along Habitat -z = simkit +y (yaw 90 deg); +90 deg about y looks along Habitat -x
    assert habitat_yaw([0, 0, 0, 1]) == pytest.approx(math.pi / 2)
    assert habitat_yaw(_yaw_quat(math.pi / 2)) == pytest.approx(math.pi)
    assert habitat_yaw(_yaw_quat(-math.pi / 2)) == pytest.approx(0.0, abs=1e-12)


@pytest.fixture(scope="module")
def vlnce_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("vlnce")
    plan = compile_floorplan(np.random.default_rng(4))
    (root / "scenes" / "home1").mkdir(parents=True)
    write_glb(plan, root / "scenes" / "home1" / "home1.glb")
    be = grid_backend_from_mesh(plan_mesh(plan))
    rng = np.random.default_rng(0)
    eps = []
    for i in range(3):
        a, b = be.sample_navigable_point(rng), be.sample_navigable_point(rng)
        while be.geodesic_distance(a, b) < 2.0:
            b = be.sample_navigable_point(rng)
        path = be.shortest_path(a, b)
        eps.append({
            "episode_id": i, "scene_id": "mp3d/home1/home1.glb", "start_position": _hab([*a, 0.0]),
            "start_rotation": _yaw_quat(0.3 * i), "goals": [{"position": _hab([*b, 0.0]), "radius": 3.0}],
            "reference_path": [_hab([*p, 0.0]) for p in path], "instruction": {"instruction_text": f"walk {i}"},
        })  # fmt: skip
    eps.append(dict(eps[0], episode_id=9, scene_id="mp3d/absent/absent.glb"))
    (root / "R2R_val.json.gz").write_bytes(gzip.compress(json.dumps({"episodes": eps}).encode()))
    return root


def test_load_and_generate_from_vlnce(vlnce_dir):
    eps = load_vlnce(vlnce_dir / "R2R_val.json.gz")
    assert len(eps) == 4 and eps[1].instruction == "walk 1"
    assert eps[2].start_yaw == pytest.approx(0.6 + math.pi / 2)
    g = FoaNavGenerator()
    g.setup(
        FoaNavConfig(
            vlnce=str(vlnce_dir / "R2R_val.json.gz"), scenes_dir=str(vlnce_dir / "scenes"), window_s=0.1
        )
    )
    assert len(g.vlnce) == 3  # the episode whose scene is absent is skipped
    sample = {k: decode(*encode(v)) for k, v in g.generate(1, episode_rng(0, "foa-nav", 1)).fields.items()}
    ep = sample["episode"]
    np.testing.assert_allclose(ep["start_m"], eps[1].start, atol=1e-6)  # already on the walkable area
    assert ep["start_yaw_rad"] == pytest.approx(eps[1].start_yaw)
    assert ep["vlnce"]["episode_id"] == "1" and ep["vlnce"]["instruction"] == "walk 1"
    assert np.linalg.norm(np.asarray(ep["goal_m"]) - eps[1].goal) < 1e-6
    assert g.check(sample) == []


def test_validate_rebuilds_the_scene_and_names_the_episode(vlnce_dir, tmp_path):
    """A wall ring put round the goal in the scene mesh (as a wall across a doorway would) is caught:
    start and goal on different walkable islands, the dataset's path through a wall."""
    import shutil

    import trimesh

    from simkit.generators.nav.checks import _SCENE_BACKENDS, _walk_problems
    from simkit.scenes.nav.floorplan import Z_UP_TO_Y_UP

    shutil.copytree(vlnce_dir / "scenes", tmp_path / "scenes")
    g = FoaNavGenerator()
    g.setup(
        FoaNavConfig(
            vlnce=str(vlnce_dir / "R2R_val.json.gz"), scenes_dir=str(tmp_path / "scenes"), window_s=0.1
        )
    )
    sample = {k: decode(*encode(v)) for k, v in g.generate(1, episode_rng(0, "foa-nav", 1)).fields.items()}
    assert g.check(sample) == []
    gx, gy = sample["episode"]["goal_m"]
    parts = [plan_mesh(compile_floorplan(np.random.default_rng(4)))]
    for cx, cy, ex, ey in (
        (gx, gy - 0.8, 1.7, 0.1),
        (gx, gy + 0.8, 1.7, 0.1),
        (gx - 0.8, gy, 0.1, 1.7),
        (gx + 0.8, gy, 0.1, 1.7),
    ):
        parts.append(trimesh.creation.box(extents=(ex, ey, 2.5), transform=_at(cx, cy, 1.25)))
    mesh = trimesh.util.concatenate(parts)
    mesh.apply_transform(Z_UP_TO_Y_UP)
    mesh.export(tmp_path / "scenes" / "home1" / "home1.glb")
    problems = g.check(sample)
    assert len(problems) == 1, problems
    assert problems[0].startswith(
        "VLN-CE episode 1 (scene mp3d/home1/home1.glb): start and goal are not on one walkable island"
    )
    # the same scene with start = goal (one island): the dataset's path through the ring's wall is caught
    be = next(iter(_SCENE_BACKENDS.values()))
    ep = dict(sample["episode"], start_m=[gx, gy])
    ep["vlnce"] = dict(ep["vlnce"], reference_path_m=[[gx - 2.0, gy], [gx, gy]])
    assert any(
        "the VLN-CE reference path leaves the free space between its points 0" in m
        for m in _walk_problems(be, ep)
    )


def test_bad_vlnce_input_is_one_clear_error(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(InputError, match=r"bad\.json: not a VLN-CE episode JSON file"):
        load_vlnce(tmp_path / "bad.json")
    (tmp_path / "nokey.json").write_text(json.dumps({"episodes": [{"episode_id": 1}]}))
    with pytest.raises(InputError, match="episode 0: missing or malformed"):
        load_vlnce(tmp_path / "nokey.json")
    (tmp_path / "ok.json").write_text(json.dumps({"episodes": []}))
    (tmp_path / "scenes").mkdir()
    g = FoaNavGenerator()
    with pytest.raises(InputError, match="no episode's scene mesh"):
        g.setup(FoaNavConfig(vlnce=str(tmp_path / "ok.json"), scenes_dir=str(tmp_path / "scenes")))
    with pytest.raises(ValueError, match="vlnce needs scenes_dir"):
        FoaNavConfig(vlnce=str(tmp_path / "ok.json"))


def test_a_goal_on_another_island_fails_at_once(tmp_path):
    import trimesh

    from simkit.core.errors import SampleInvalid
    from simkit.scenes.nav.floorplan import Z_UP_TO_Y_UP

    # a 6 x 4 m floor with a closed 1.5 x 1.5 m wall ring (an island) around (4.75, 2)
    parts = [trimesh.creation.box(extents=(6, 4, 0.05), transform=_at(3, 2, -0.025))]
    for cx, cy, ex, ey in (
        (4.75, 1.2, 1.7, 0.1),
        (4.75, 2.8, 1.7, 0.1),
        (3.95, 2, 0.1, 1.7),
        (5.55, 2, 0.1, 1.7),
    ):
        parts.append(trimesh.creation.box(extents=(ex, ey, 2.5), transform=_at(cx, cy, 1.25)))
    mesh = trimesh.util.concatenate(parts)
    mesh.apply_transform(Z_UP_TO_Y_UP)
    (tmp_path / "scenes" / "ring").mkdir(parents=True)
    mesh.export(tmp_path / "scenes" / "ring" / "ring.glb")
    ep = {
        "episode_id": 5, "scene_id": "mp3d/ring/ring.glb", "start_position": _hab([1.0, 2.0, 0.0]),
        "start_rotation": _yaw_quat(0.0), "goals": [{"position": _hab([4.75, 2.0, 0.0]), "radius": 3.0}],
        "reference_path": [], "instruction": {"instruction_text": "into the ring"},
    }  # fmt: skip
    (tmp_path / "ep.json").write_text(json.dumps({"episodes": [ep]}))
    g = FoaNavGenerator()
    g.setup(FoaNavConfig(vlnce=str(tmp_path / "ep.json"), scenes_dir=str(tmp_path / "scenes"), window_s=0.1))
    with pytest.raises(SampleInvalid, match=r"VLN-CE episode 5: no walkable path .* \(islands"):
        g.generate(0, episode_rng(0, "foa-nav", 0))


def _at(x, y, z):
    t = np.eye(4)
    t[:3, 3] = (x, y, z)
    return t
