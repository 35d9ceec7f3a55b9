"""Batched (torch) goal predicates, slots and IK against the CPU predicate evaluator (no GPU needed).

The slot buffer and the IK are :mod:`simkit.envs.hebero.kernels` (the CPU env's definitions) on torch
tensors, fed with the union model's task programs, as the GPU backend feeds them.
"""

import mujoco
import numpy as np
import pytest
import torch
from hebero_goal_states import place_goal

from simkit.envs.hebero import kernels
from simkit.scenes.hebero import compile_task, suite_files
from simkit.sims.hebero.batched_tasks import (
    ATOM_JOINT,
    goal_atoms,
    goal_success,
    rot6,
    stack_programs,
    touching,
)
from simkit.sims.hebero.layout_groups import group_tasks
from simkit.sims.hebero.layout_models import (
    apply_layout,
    build_group_model,
    exclude_static_pairs,
    geom_entity,
    physics_only,
    task_layouts,
    task_state_on_union,
)
from simkit.sims.hebero.scene import build_scene


def _drive_to_goal(sc):
    """Put the task's goal atoms' entities where the goal holds (then settle 0.2 s)."""
    m, d = sc.model, sc.data
    place_goal(sc, goal_atoms(sc.descriptor))
    d.qvel[:] = 0
    for _ in range(100):
        mujoco.mj_step(m, d)


def _torch_state(model, data):
    return {
        "qpos": torch.tensor(data.qpos)[None],
        "xpos": torch.tensor(data.xpos)[None],
        "xmat": torch.tensor(data.xmat).view(1, -1, 3, 3),
        "site_xpos": torch.tensor(data.site_xpos)[None],
        "site_xmat": torch.tensor(data.site_xmat).view(1, -1, 3, 3),
    }


@pytest.mark.slow
def test_batched_goal_predicates_agree_with_cpu_evaluator(libero_root):
    root = libero_root
    descs = [compile_task(p, "goal", i, root) for i, p in suite_files(root, "goal")]
    (g,) = group_tasks(descs)
    by_id = {d["task_id"]: d for d in descs}
    gm = build_group_model(g, by_id, root)
    banks = [task_layouts(gm, by_id[t], root, n=1) for t in g.task_ids]
    progs = [bk.program for bk in banks]
    assert sum(int((p.kind == ATOM_JOINT).sum()) for p in progs) == 2  # open drawer, turn on stove
    # welded bodies of cabinet (3), stove (5), rack (2), plus table and world: C(12, 2) pairs
    assert exclude_static_pairs(gm) == 66
    um = physics_only(gm.scene)  # the model a GPU backend steps
    assert um.nexclude == 66 and um.nsensor == 0
    ge = torch.as_tensor(geom_entity(um, gm.entity_bodies))
    ud = mujoco.MjData(um)
    hits = 0
    for ti, t in enumerate(g.task_ids):
        p = stack_programs(progs, np.array([ti]), dtype=torch.float64)
        for reach in (False, True):
            sc = build_scene(by_id[t], root, np.random.default_rng(5))
            if reach:
                _drive_to_goal(sc)
            mujoco.mj_forward(sc.model, sc.data)
            want = sc.success()
            apply_layout(gm, banks[ti], 0, um, ud)
            task_state_on_union(gm, sc, ud.qpos, ud.mocap_pos, ud.mocap_quat)
            mujoco.mj_forward(um, ud)
            s = _torch_state(um, ud)
            pairs = torch.tensor(np.array(ud.contact.geom[: ud.ncon]).reshape(-1, 2))
            touch = touching(ge, pairs, torch.zeros(ud.ncon, dtype=torch.long), ud.ncon, 1, len(g.entities))
            got = goal_success(p, s["qpos"], s["xpos"], s["site_xpos"], s["site_xmat"], touch)
            assert bool(got[0]) == want, (t, reach)
            hits += want
            # the slot buffer (relative to the robot base): bodies and sites where the task scene has them
            base = s["xpos"][:, mujoco.mj_name2id(um, mujoco.mjtObj.mjOBJ_BODY, "robot/base")]
            f = (
                kernels.slot_features(
                    s["xpos"],
                    s["xmat"],
                    s["site_xpos"],
                    s["site_xmat"],
                    p["slot_kind"],
                    p["slot_idx"],
                    base,
                    p["slot_const"],
                )[0]
                .view(26, 9)
                .numpy()
            )
            shift = np.concatenate([base[0].numpy(), np.zeros(6)])
            for sl in by_id[t]["entity_slots"]:
                name = sl["name"]
                if name in sc.binding.bodies:
                    ref = np.concatenate(
                        [
                            sc.data.xpos[sc.binding.bodies[name]],
                            rot6(sc.data.xmat[sc.binding.bodies[name]].reshape(3, 3)),
                        ]
                    )
                elif name in sc.binding.sites:
                    sid = sc.binding.sites[name]
                    ref = np.concatenate([sc.data.site_xpos[sid], rot6(sc.data.site_xmat[sid].reshape(3, 3))])
                else:
                    continue
                np.testing.assert_allclose(f[sl["slot"]], ref - shift, atol=1e-6)
    assert hits >= 6  # most goals were reached, so agreement is not all-False


def test_touching_matrix_from_contact_list():
    ge = torch.tensor([-1, 0, 0, 1, 2])
    pairs = torch.tensor([[1, 3], [4, 0], [2, 4], [3, 4]])
    world = torch.tensor([0, 1, 1, 0])
    t = touching(ge, pairs, world, 3, 2, 3)  # the 4th contact is past the count
    assert t.shape == (2, 3, 3)
    assert t[0, 0, 1] and t[0, 1, 0]
    assert t[1, 0, 2] and t[1, 2, 0]
    assert int(t.sum()) == 4  # robot/table geom (-1) and unused rows ignored


def test_ik_targets_move_the_end_effector_as_asked(libero_root):
    sc = build_scene(compile_task(*_first_goal(libero_root)), libero_root, np.random.default_rng(0))
    m, d = sc.model, sc.data
    site = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "robot/gripper/grip_site")
    jids = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, f"robot/joint{i}") for i in range(1, 8)]
    adr = [m.jnt_qposadr[j] for j in jids]
    p0 = d.site_xpos[site].copy()
    dx = np.array([0.01, -0.005, 0.008])
    action = torch.tensor([[*(dx / 0.05), 0.0, 0.0, 0.0, -1.0]], dtype=torch.float64)  # s_p = 0.05 m
    jacp, jacr = kernels.hinge_jacobian(
        torch.tensor(d.xanchor[jids])[None], torch.tensor(d.xaxis[jids])[None], torch.tensor(p0)[None]
    )
    limits = torch.tensor(m.jnt_range[jids])[None]
    qt, fingers = kernels.arm_targets(
        action, torch.tensor(d.qpos[adr])[None], jacp, jacr, limits, 0.05, 0.5, 1e-3
    )
    assert fingers.tolist() == [[0.04, -0.04]]  # a[6] <= 0 opens
    d.qpos[adr] = qt[0].numpy()
    mujoco.mj_forward(m, d)
    moved = d.site_xpos[site] - p0
    np.testing.assert_allclose(moved, dx, atol=5e-4)  # first order in a 1.4 cm step


def _first_goal(root):
    i, p = suite_files(root, "goal")[0]
    return p, "goal", i, root


def test_unrolled_spd_solve_matches_lapack():
    from simkit.core.xp import namespace, solve_spd_unrolled

    g = torch.Generator().manual_seed(0)
    j = torch.randn(50, 6, 7, generator=g, dtype=torch.float64)
    a = j @ j.transpose(1, 2) + 0.01 * torch.eye(6, dtype=torch.float64)
    b = torch.randn(50, 6, generator=g, dtype=torch.float64)
    np.testing.assert_allclose(
        solve_spd_unrolled(namespace(a), a, b).numpy(),
        torch.linalg.solve(a, b).numpy(),
        rtol=1e-8,
        atol=1e-10,
    )
    # the same elimination on numpy arrays, against LAPACK (the numpy namespace's solve_spd)
    an, bn = a.numpy(), b.numpy()
    np.testing.assert_allclose(
        solve_spd_unrolled(namespace(an), an, bn), namespace(an).solve_spd(an, bn), rtol=1e-8, atol=1e-10
    )
