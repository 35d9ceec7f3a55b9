"""The GPU backend without a GPU: one clear line naming what is missing."""

import pytest

from simkit.core.errors import SimkitError
from simkit.sims.hebero.warp_batch import GpuUnavailable, require_gpu


def _has_gpu_stack() -> bool:
    try:
        import mujoco_warp  # noqa: F401
        import torch
        import warp  # noqa: F401
    except ImportError:
        return False
    return torch.cuda.is_available()


@pytest.mark.skipif(
    _has_gpu_stack(), reason="this machine has the GPU stack; the error path is for machines without"
)
def test_without_gpu_one_line_names_the_requirement(tmp_path):
    with pytest.raises(GpuUnavailable) as exc:
        require_gpu()
    msg = str(exc.value)
    assert isinstance(exc.value, SimkitError)
    assert "\n" not in msg
    assert "GPU" in msg and "CUDA" in msg
    assert "warp" in msg.lower()
    from simkit.envs.hebero.warp import HeberoWarpBatch

    with pytest.raises(GpuUnavailable):  # the env checks the GPU before reading anything
        HeberoWarpBatch(tmp_path / "no-cache", 1600)


@pytest.mark.skipif(
    _has_gpu_stack(), reason="this machine has the GPU stack; the error path is for machines without"
)
def test_make_vec_warp_without_gpu_is_one_clear_line():
    import gymnasium as gym

    with pytest.raises(GpuUnavailable) as exc:
        gym.make_vec("simkit/Hebero-v0", num_envs=1600, suite="all", backend="warp")
    assert "\n" not in str(exc.value) and "CUDA" in str(exc.value)
