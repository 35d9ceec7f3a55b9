"""A GPU cache's own task models: demos and LIBERO's starts map onto the union models without LIBERO's
assets (the GPU machine has none), and what they give equals the CPU task models."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.envs.hebero.warp_starts import export_task_models, load_task_models

mujoco = pytest.importorskip("mujoco")
TASK = "goal/open_the_middle_drawer_of_the_cabinet"


def test_cached_task_models_equal_the_cpu_task_models(tmp_path, libero_root):
    from simkit.core.errors import InputError
    from simkit.envs.hebero.vector_env import build_tasks

    ids, models = build_tasks(None, [TASK], libero_root)
    tm = models[0]
    written = export_task_models(tmp_path, dict(zip(ids, models)))
    assert {p.name for p in written} == {"0.mjb", "0_libero.npy", "index.json"}
    cached = load_task_models(tmp_path, [TASK])
    assert cached is not None and set(cached) == {TASK}
    ct = cached[TASK]
    assert (ct.model.nq, ct.model.nv, ct.model.nbody, ct.model.nu) == (
        tm.model.nq,
        tm.model.nv,
        tm.model.nbody,
        tm.model.nu,
    )
    for k in (0, 17, 49):
        np.testing.assert_array_equal(ct.libero_state(k), tm.libero_state(k))
    # a state row of the task model is a state row of the cached model: same kinematics after mj_setState
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    d0, d1 = mujoco.MjData(tm.model), mujoco.MjData(ct.model)
    for m, d in ((tm.model, d0), (ct.model, d1)):
        mujoco.mj_setState(m, d, tm.libero_state(3), spec)
        mujoco.mj_kinematics(m, d)
    np.testing.assert_array_equal(d0.xpos, d1.xpos)
    with pytest.raises(InputError, match=r"init_state must be in \[0, 50\)"):
        ct.libero_state(50)
    assert load_task_models(tmp_path, [TASK, "goal/turn_on_the_stove"]) is None  # a task it lacks
    assert load_task_models(tmp_path / "none", [TASK]) is None
