"""CPU (MuJoCo, float64) vs GPU (MuJoCo Warp, float32) agreement of the Hebero GPU backend.

Two steps, so that the reference runs where MuJoCo's CPU build is:

``gpu CACHE --out traj.npz [--steps 100]``
    On the GPU: one world per task of the layout-group cache (``HeberoWarpBatch``, K envs), each
    started from its bank entry 0 with the goal's objects put where the goal holds
    (the first object of an On/In atom dropped 3 cm above its target; articulation atoms set
    past their threshold), then ``--steps`` control steps of a scripted action sequence (the
    same for every world: small end-effector moves, gripper open). Records per control step the
    free-body positions of each world and the success flag.

``cpu CACHE traj.npz``
    On the CPU: the same union models, the same initial states and actions, the same controller
    code (torch float64), stepped by MuJoCo; prints per task the largest object position
    difference over the run and whether the success flags agree at every step.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def scripted_actions(steps: int) -> np.ndarray:
    """(steps, 7) actions: slow horizontal circles of the end effector (radius about 1.9 cm), gripper open."""
    t = np.arange(steps)[:, None]
    a = np.zeros((steps, 7))
    a[:, 0:1] = 0.3 * np.sin(2 * np.pi * t / 40)
    a[:, 1:2] = 0.3 * np.cos(2 * np.pi * t / 40)
    a[:, 6] = -1.0
    return a


def initial_states(cache: Path):
    """Per group and task: union qpos (bank entry 0) with the goal's first object at its target."""
    import mujoco

    from simkit.sims.batched_tasks import ATOM_IN_REGION, ATOM_JOINT, ATOM_ON_OBJ, ATOM_ON_REGION
    from simkit.sims.layout_models import load_groups
    from simkit.sims.mujoco_scene import subtree_bodies

    task_ids, groups = load_groups(cache)
    out = {}
    for g in groups:
        a, m = g["arrays"], g["model"]
        d = mujoco.MjData(m)
        for t, tid in enumerate(g["task_ids"]):
            d.qpos[:] = a["bank_qpos"][t, 0]
            d.mocap_pos[:] = a["bank_mocap_pos"][t, 0]
            d.mocap_quat[:] = a["bank_mocap_quat"][t, 0]
            mujoco.mj_forward(m, d)
            q = d.qpos.copy()
            for k in range(len(a["prog_kind"][t])):
                kind = a["prog_kind"][t, k]
                if kind == ATOM_JOINT:
                    for adr in a["prog_qadr"][t, k]:
                        if adr >= 0:
                            thr, cmp = a["prog_thr"][t, k], a["prog_cmp"][t, k]
                            q[adr] = thr - 0.02 if cmp == 0 else thr + 0.02
                    continue
                if kind not in (ATOM_ON_OBJ, ATOM_ON_REGION, ATOM_IN_REGION):
                    continue
                body = a["prog_body_a"][t, k]
                # lift so that the object's bounding spheres clear the target point by 3 cm
                sub = subtree_bodies(m, body).tolist()
                gz = [d.geom_xpos[g][2] - m.geom_rbound[g] for g in range(m.ngeom) if m.geom_bodyid[g] in sub]
                lift = d.xpos[body][2] - min(gz) + 0.03 if gz else 0.05
                if kind == ATOM_ON_OBJ:
                    bb = a["prog_body_b"][t, k]
                    subb = subtree_bodies(m, bb).tolist()
                    top = max(
                        d.geom_xpos[g][2] + m.geom_rbound[g]
                        for g in range(m.ngeom)
                        if m.geom_bodyid[g] in subb
                    )
                    target = np.array([*d.xpos[bb][:2], top + lift])
                elif a["prog_site"][t, k] >= 0:
                    target = d.site_xpos[a["prog_site"][t, k]] + [0, 0, lift]
                else:
                    target = a["prog_region_pos"][t, k] + [0, 0, lift]
                jnt = m.body_jntadr[body]
                adr = m.jnt_qposadr[jnt]
                q[adr : adr + 3] = target
                q[adr + 3 : adr + 7] = [1, 0, 0, 0]
            out[tid] = q
    return task_ids, groups, out


def gpu(args) -> None:
    import torch

    from simkit.envs import hebero_warp
    from simkit.envs.hebero_warp import HeberoWarpBatch

    dev = hebero_warp.DEVICE

    task_ids, _groups, q0 = initial_states(Path(args.cache))
    from simkit.envs.hebero_warp import WarpEnvConfig

    env = HeberoWarpBatch(args.cache, len(task_ids), config=WarpEnvConfig(nconmax=256, njmax=1280))
    env.reset(seed=0)
    for g in env.groups:  # bank entry 0 and the prepared state in every world
        tids = [env.task_ids[int(e)] for e in env.map.env_task[g.envs.cpu().numpy()]]
        t = g.sim.t
        t["qpos"].copy_(torch.as_tensor(np.stack([q0[x] for x in tids]), device=dev, dtype=torch.float32))
        t["mocap_pos"].copy_(g.bank["mocap_pos"][g.wtask, 0])
        t["mocap_quat"].copy_(g.bank["mocap_quat"][g.wtask, 0])
        t["qvel"].zero_()
        g.sim.forward()
    env.cfg.max_steps = 10**9
    env.cfg.autoreset = False  # record the whole run, success or not
    acts = torch.as_tensor(scripted_actions(args.steps), device=dev, dtype=torch.float32)
    pos, succ = [], []
    for k in range(args.steps):
        env.step(acts[k][None].expand(len(task_ids), 7))
        for_env = np.zeros((len(task_ids), 64, 3))
        for g in env.groups:
            qp = g.sim.t["qpos"].cpu().numpy().astype(np.float64)
            free = _free_adr(g)
            for w, e in enumerate(g.envs.cpu().numpy()):
                for j, adr in enumerate(free):
                    for_env[e, j] = qp[w, adr : adr + 3]
        pos.append(for_env)
        succ.append(_success_now(env))
    np.savez(args.out, pos=np.array(pos), success=np.array(succ), tasks=np.array(task_ids))
    print(
        "gpu trajectories ->", args.out, "success at end:", int(np.array(succ)[-1].sum()), "/", len(task_ids)
    )


def _free_adr(g) -> list[int]:
    return g.free_qadr


def _success_now(env) -> np.ndarray:
    import torch

    out = torch.zeros(env.num_envs, dtype=torch.bool, device=env.device)
    for g in env.groups:
        out[g.envs] = env._success(g)
    return out.cpu().numpy()


def cpu(args) -> None:
    import mujoco
    import torch

    from simkit.envs.hebero_warp import WarpEnvConfig
    from simkit.sims.batched_tasks import goal_success, ik_targets, stack_programs, touching

    task_ids, groups, q0 = initial_states(Path(args.cache))
    ref = np.load(args.traj)
    cfg = WarpEnvConfig()
    acts = scripted_actions(ref["pos"].shape[0])
    report = {}
    for g in groups:
        m, a = g["model"], g["arrays"]
        progs = {k[5:]: a[k] for k in a if k.startswith("prog_")}
        free = [int(m.jnt_qposadr[j]) for j in range(m.njnt) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
        arm = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, f"robot/joint{i}") for i in range(1, 8)]
        acts_id = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, f"robot/act{i}") for i in range(1, 8)]
        fa = [
            mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, f"robot/gripper/finger_joint{i}_act")
            for i in (1, 2)
        ]
        site = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, "robot/gripper/grip_site")
        rng = m.jnt_range[arm]
        for t, tid in enumerate(g["task_ids"]):
            e = task_ids.index(tid)
            d = mujoco.MjData(m)
            m.body_gravcomp[:] = a["bank_gravcomp"][t]
            d.qpos[:] = q0[tid]
            d.mocap_pos[:] = a["bank_mocap_pos"][t, 0]
            d.mocap_quat[:] = a["bank_mocap_quat"][t, 0]
            d.ctrl[:] = a["home_ctrl"]
            mujoco.mj_forward(m, d)
            p = stack_programs(
                [_PV(progs, k) for k in range(len(g["task_ids"]))], np.array([t]), dtype=torch.float64
            )
            ge = torch.as_tensor(a["geom_entity"])
            err, agree = 0.0, True
            for k in range(len(acts)):
                ac = acts[k]
                q = torch.tensor(d.qpos[m.jnt_qposadr[arm]])[None]
                dx = torch.tensor(np.concatenate([ac[:3] * cfg.pos_scale, ac[3:6] * cfg.rot_scale]))[None]
                tgt = ik_targets(
                    q,
                    torch.tensor(d.site_xpos[site])[None],
                    torch.tensor(d.xanchor[arm])[None],
                    torch.tensor(d.xaxis[arm])[None],
                    dx,
                    cfg.ik_damping,
                )[0].numpy()
                d.ctrl[acts_id] = np.clip(tgt, rng[:, 0], rng[:, 1])
                d.ctrl[fa] = [0.0, 0.0] if ac[6] > 0 else [0.04, -0.04]
                for _ in range(cfg.substeps):
                    mujoco.mj_step(m, d)
                pos = np.array([d.qpos[adr : adr + 3] for adr in free])
                err = max(err, float(np.abs(pos - ref["pos"][k, e, : len(free)]).max()))
                pairs = torch.tensor(np.array(d.contact.geom[: d.ncon]).reshape(-1, 2))
                touch = touching(
                    ge, pairs, torch.zeros(d.ncon, dtype=torch.long), d.ncon, 1, len(g["entities"])
                )
                s = goal_success(
                    p,
                    torch.tensor(d.qpos)[None],
                    torch.tensor(d.xpos)[None],
                    torch.tensor(d.site_xpos)[None],
                    torch.tensor(d.site_xmat).view(1, -1, 3, 3),
                    touch,
                )
                agree &= bool(s[0]) == bool(ref["success"][k, e])
            report[tid] = {"max_pos_err_m": err, "success_agrees": agree, "success_end": bool(s[0])}
            print(f"{tid[:60]:60s} max |dp| {err * 1000:8.3f} mm  success agrees {agree}  end {bool(s[0])}")
    errs = np.array([r["max_pos_err_m"] for r in report.values()])
    print(
        f"tasks {len(report)}: success agrees {sum(r['success_agrees'] for r in report.values())}, "
        f"median max |dp| {np.median(errs) * 1000:.3f} mm, p90 {np.percentile(errs, 90) * 1000:.3f} mm, "
        f"max {errs.max() * 1000:.3f} mm"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


class _PV:
    def __init__(self, arrays, t):
        self._a, self._t = arrays, t

    def arrays(self):
        return {k: v[self._t] for k, v in self._a.items()}

    def __getattr__(self, k):
        return self._a[k][self._t]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gpu")
    g.add_argument("cache")
    g.add_argument("--out", required=True)
    g.add_argument("--steps", type=int, default=100)
    c = sub.add_parser("cpu")
    c.add_argument("cache")
    c.add_argument("traj")
    c.add_argument("--json", default="")
    args = ap.parse_args()
    gpu(args) if args.cmd == "gpu" else cpu(args)


if __name__ == "__main__":
    main()
