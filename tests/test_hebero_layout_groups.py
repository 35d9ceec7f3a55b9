"""Layout groups for the GPU backend: grouping, parking, world <-> task maps, union models (CPU only)."""

import copy

import mujoco
import numpy as np
import pytest

from simkit.core.errors import InputError
from simkit.scenes.hebero import SUITES, compile_task, suite_files
from simkit.sims.hebero.layout_groups import (
    PARK_SPACING,
    WorldMap,
    group_tasks,
    parking_slots,
    union_descriptor,
)
from simkit.sims.hebero.layout_models import apply_layout, build_group_model, task_layouts
from simkit.sims.hebero.scene import ROBOT_BASE, build_scene

PANDA_REACH = 0.855  # m, Franka Emika Panda maximum reach (datasheet)


@pytest.fixture(scope="module")
def descs40(libero_root):
    root = libero_root
    return [compile_task(p, s, i, root) for s in SUITES for i, p in suite_files(root, s)]


def test_forty_tasks_group_by_arena_with_union_of_assets(descs40):
    assert len(descs40) == 40
    groups = group_tasks(descs40)
    # every task in exactly one group, members share one arena
    members = [t for g in groups for t in g.task_ids]
    assert sorted(members) == sorted(d["task_id"] for d in descs40)
    by_id = {d["task_id"]: d for d in descs40}
    for g in groups:
        assert len({by_id[t]["arena"]["problem"] for t in g.task_ids}) == 1
        assert len(g.entities) <= 16
        act = g.active()
        assert act.shape == (len(g.task_ids), len(g.entities))
        assert act.any(axis=0).all()  # no union entity unused by every member
        for ti, t in enumerate(g.task_ids):
            d = by_id[t]
            names = g.names[t]
            assert set(names) == set(d["fixtures"]) | set(d["objects"])
            assert len(set(names.values())) == len(names)  # injective
            ents = {e.name: e for e in g.entities}
            for tn, un in names.items():
                info = d["fixtures"].get(tn) or d["objects"][tn]
                assert ents[un].asset == info["asset"]
                assert ents[un].kind == ("fixture" if tn in d["fixtures"] else "object")
            assert act[ti].sum() == len(names)
        # the union holds, per asset, the largest count any member uses
        for e in {x.asset for x in g.entities}:
            need = max(
                sum(1 for v in {**by_id[t]["fixtures"], **by_id[t]["objects"]}.values() if v["asset"] == e)
                for t in g.task_ids
            )
            assert sum(1 for x in g.entities if x.asset == e) == need
    keys = [g.key for g in groups]
    assert keys == [
        "libero_tabletop_manipulation#0",  # goal + spatial: 10 entities
        "libero_floor_manipulation#0",  # object: 11 grocery items + basket
        "libero_living_room_tabletop_manipulation#0",
        "libero_kitchen_tabletop_manipulation#0",
        "libero_study_tabletop_manipulation#0",
    ]
    assert [len(g.task_ids) for g in groups] == [20, 10, 5, 4, 1]
    assert [len(g.entities) for g in groups] == [10, 11, 14, 11, 3]


def test_split_suites_and_entity_budget(descs40):
    split = group_tasks(descs40, split_suites=True)
    assert len(split) == 6
    for g in split:
        assert len({t.split("/")[0] for t in g.task_ids}) == 1
    goal = [d for d in descs40 if d["suite"] == "goal"]
    assert len(group_tasks(goal)) == 1 and len(group_tasks(goal)[0].entities) == 7
    # a budget below the goal+spatial union (10) keeps them apart
    tab = [d for d in descs40 if d["suite"] in ("goal", "spatial")]
    assert [len(g.entities) for g in group_tasks(tab, max_entities=9)] == [7, 7]
    with pytest.raises(InputError, match="more than max_entities=6"):
        group_tasks(goal, max_entities=6)
    with pytest.raises(InputError, match="listed twice"):
        group_tasks([goal[0], goal[0]])


def test_parking_slots_out_of_reach_and_apart(descs40):
    for g in group_tasks(descs40):
        base = ROBOT_BASE[g.arena[0]]
        xy = parking_slots(g, base[:2])
        assert xy.shape == (len(g.entities), 2)
        dist = np.linalg.norm(xy - np.array(base[:2]), axis=1)
        assert dist.min() > 5 * PANDA_REACH
        gaps = np.linalg.norm(xy[:, None] - xy[None], axis=2) + np.eye(len(xy)) * 1e9
        assert gaps.min() == pytest.approx(PARK_SPACING)
        ud = union_descriptor(g, {d["task_id"]: d for d in descs40})
        assert set(ud["fixtures"]) | set(ud["objects"]) == {e.name for e in g.entities}
        assert [a[0] for a in ud["init"]] == ["on"] * len(g.entities)


def test_world_map_round_trip(descs40):
    groups = group_tasks(descs40)
    tasks = [d["task_id"] for d in descs40]
    for n in (40, 80, 1600, 123):
        wm = WorldMap.build(tasks, groups, n)
        assert [wm.task_of_env(i) for i in range(n)] == [tasks[i % 40] for i in range(n)]
        seen = np.zeros(n, int)
        for gi, envs in enumerate(wm.group_envs):
            assert np.all(np.diff(envs) > 0)
            for w, e in enumerate(envs):
                assert wm.env_of(gi, w) == e
                assert wm.env_group[e] == gi and wm.env_world[e] == w
                assert groups[gi].task_ids[wm.group_task[gi][w]] == wm.task_of_env(e)
            seen[envs] += 1
        assert np.all(seen == 1)
    wm = WorldMap.build(tasks, groups, 1600)
    assert [len(e) for e in wm.group_envs] == [800, 400, 200, 160, 40]
    with pytest.raises(InputError, match="no layout group"):
        WorldMap.build([*tasks, "goal/nope"], groups, 80)
    with pytest.raises(InputError, match="num_envs"):
        WorldMap.build(tasks, groups, 0)


def _two_goal_tasks(root):
    """Two libero_goal tasks, the second without its wine bottle: the union parks it there."""
    files = {p.stem: (i, p) for i, p in suite_files(root, "goal")}
    a = compile_task(files["put_the_bowl_on_the_plate"][1], "goal", 0, root)
    b = copy.deepcopy(compile_task(files["turn_on_the_stove"][1], "goal", 1, root))
    del b["objects"]["wine_bottle_1"]
    b["init"] = [x for x in b["init"] if "wine_bottle_1" not in x]
    return root, a, b


@pytest.mark.slow
def test_union_model_reproduces_task_scene_and_parks_the_rest(libero_root):
    root, a, b = _two_goal_tasks(libero_root)
    (g,) = group_tasks([a, b])
    assert g.active().sum(axis=1).tolist() == [7, 6]
    gm = build_group_model(g, {a["task_id"]: a, b["task_id"]: b}, root)
    bank = task_layouts(gm, b, root, n=2, seed0=3)
    assert bank.qpos.shape == (2, gm.model.nq)
    m, d = gm.model, mujoco.MjData(gm.model)
    apply_layout(gm, bank, 1, m, d)
    ref = build_scene(b, root, np.random.default_rng(4))  # bank entry 1 = seed0 + 1
    names = g.names[b["task_id"]]
    parked = [j for j, e in enumerate(g.entities) if e.name not in names.values()]
    assert [g.entities[j].category for j in parked] == ["wine_bottle"]
    pj = parked[0]
    pgeoms = set(np.flatnonzero(np.isin(m.geom_bodyid, gm.entity_bodies[pj])))

    def body(mm, n):
        return mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_BODY, n)

    for _ in range(500):  # 1 s of zero action, dt 2 ms
        mujoco.mj_step(m, d)
        mujoco.mj_step(ref.model, ref.data)
        assert not any(int(c.geom1) in pgeoms or int(c.geom2) in pgeoms for c in d.contact[: d.ncon])
    for tn, un in names.items():
        np.testing.assert_allclose(d.xpos[body(m, un)], ref.data.xpos[body(ref.model, tn)], atol=1e-9)
    np.testing.assert_allclose(d.xpos[gm.entity_body[pj]], gm.park_pos[pj], atol=1e-12)
    assert ref.success() is False  # the stove was not turned on by a resting arm
    with pytest.raises(InputError, match="not in layout group"):
        task_layouts(gm, {**a, "task_id": "goal/other"}, root, n=1)
