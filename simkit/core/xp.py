"""One array namespace over numpy and torch, for kernels written once for both.

:func:`namespace` returns the namespace of its arguments (torch when any is a ``torch.Tensor``,
numpy otherwise). Its functions carry the names of the Python array API standard
(https://data-apis.org/array-api/2023.12/: ``concat``, ``stack``, ``where``, ``clip``,
``maximum``, ``sum``, ``all``, ``any``, ``min``, ``max``, ``astype``, ``matrix_transpose``,
``linalg.vector_norm`` as :meth:`vector_norm`, ``eye``, ``arange``), plus ``einsum``, which numpy
and torch spell alike, and the small SPD solve of the controller (:meth:`solve_spd`). Beyond
these, kernels use what numpy arrays and torch tensors share: arithmetic and comparison operators,
``@``, ``abs()``, ``.shape``, ``.reshape``, slicing and integer-array indexing
(``x[rows, idx]``).

Why a shim rather than ``array_api_compat``: the numpy functions here are the ones the numpy
kernels always called (``np.linalg.solve``, ``np.clip``, ``np.linalg.norm``), so float64 results
are the same bits as before; and the torch functions are chosen for CUDA-graph capture
(:class:`TorchNamespace`'s doc).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def solve_spd_unrolled(xp: Any, a, b):
    """Solve batches of small symmetric positive definite systems ``a x = b`` by Gauss-Jordan elimination.

    Unrolled over the n columns with broadcast operations only (no LAPACK/MAGMA call, no host
    synchronisation, a fixed number of kernels on a GPU). No pivoting: valid for SPD matrices
    (here ``J J^T + lambda^2 I``).

    Args:
        xp: the namespace of ``a`` and ``b``. a: (W, n, n) SPD matrices. b: (W, n) right-hand sides.

    Returns:
        (W, n) solutions, of ``a``'s dtype.
    """
    n = a.shape[-1]
    m = xp.concat([a, b[..., None]], axis=-1)  # (W, n, n + 1)
    rows = xp.arange(n, like=a)[None, :, None]
    for k in range(n):
        row = m[:, k : k + 1, :] / m[:, k : k + 1, k : k + 1]
        m = xp.where(rows == k, row, m - m[:, :, k : k + 1] * row)
    return m[..., n]


class NumpyNamespace:
    """The namespace of numpy arrays (float64 on the CPU backend)."""

    name = "numpy"

    @staticmethod
    def concat(xs: Sequence[Any], axis: int = 0):
        return np.concatenate(xs, axis=axis)

    @staticmethod
    def stack(xs: Sequence[Any], axis: int = 0):
        return np.stack(xs, axis=axis)

    @staticmethod
    def where(c, x, y):
        return np.where(c, x, y)

    @staticmethod
    def clip(x, lo, hi):
        return np.clip(x, lo, hi)

    @staticmethod
    def maximum(x, y):
        # a scalar first: the operand order the numpy kernels always used (np.maximum(0.0, x))
        return np.maximum(y, x) if isinstance(y, int | float) else np.maximum(x, y)

    @staticmethod
    def sum(x, axis=None):
        return np.sum(x, axis=axis)

    @staticmethod
    def all(x, axis=None):
        return np.all(x, axis=axis)

    @staticmethod
    def any(x, axis=None):
        return np.any(x, axis=axis)

    @staticmethod
    def min(x, axis=None):
        return np.min(x, axis=axis)

    @staticmethod
    def max(x, axis=None):
        return np.max(x, axis=axis)

    @staticmethod
    def astype(x, like):
        """``x`` converted to the dtype of the array ``like``."""
        return np.asarray(x).astype(like.dtype)

    @staticmethod
    def matrix_transpose(x):
        return np.swapaxes(x, -1, -2)

    @staticmethod
    def vector_norm(x, axis: int = -1):
        return np.linalg.norm(x, axis=axis)

    @staticmethod
    def einsum(spec: str, *xs):
        return np.einsum(spec, *xs)

    @staticmethod
    def eye(n: int, like):
        return np.eye(n, dtype=like.dtype)

    @staticmethod
    def arange(n: int, like):
        return np.arange(n)

    @staticmethod
    def full(shape, value, like):
        return np.full(shape, value)

    @staticmethod
    def constant(key: str, value, like):
        """``value`` (a numpy constant) as an array of ``like``'s float dtype."""
        return np.asarray(value, dtype=like.dtype)

    @staticmethod
    def asarray(value, like):
        """``value`` as an array of ``like``'s dtype."""
        return np.asarray(value, dtype=like.dtype)

    @staticmethod
    def solve_spd(a, b):
        """x (W, n) with a x = b for (W, n, n) SPD ``a``: LAPACK's LU solve (``numpy.linalg.solve``)."""
        return np.linalg.solve(a, b[..., None])[..., 0]


class TorchNamespace:
    """The namespace of torch tensors (any device and float dtype).

    Written for CUDA-graph capture: nothing here synchronises with the host or copies host data to
    the device inside a call (no ``.item()``, no boolean-mask indexing, no ``nonzero``, no
    ``torch.linalg`` solver, whose error check synchronises: :meth:`solve_spd` is
    :func:`solve_spd_unrolled`); constants are copied to a device once per (key, device, dtype)
    (:meth:`constant`), so the first call of a kernel on a device must come before a capture.
    """

    name = "torch"

    def __init__(self):
        import torch

        self.torch = torch
        self._constants: dict[tuple[str, Any, Any], Any] = {}

    def concat(self, xs: Sequence[Any], axis: int = 0):
        return self.torch.cat(list(xs), dim=axis)

    def stack(self, xs: Sequence[Any], axis: int = 0):
        return self.torch.stack(list(xs), dim=axis)

    def where(self, c, x, y):
        return self.torch.where(c, x, y)

    def clip(self, x, lo, hi):
        return self.torch.minimum(self.torch.maximum(x, lo), hi)

    def maximum(self, x, y):
        return self.torch.clamp(x, min=y) if isinstance(y, int | float) else self.torch.maximum(x, y)

    def sum(self, x, axis=None):
        return x.sum() if axis is None else x.sum(dim=axis)

    def all(self, x, axis=None):
        return x.all() if axis is None else x.all(dim=axis)

    def any(self, x, axis=None):
        return x.any() if axis is None else x.any(dim=axis)

    def min(self, x, axis=None):
        return x.min() if axis is None else x.amin(dim=axis)

    def max(self, x, axis=None):
        return x.max() if axis is None else x.amax(dim=axis)

    def astype(self, x, like):
        return x.to(like.dtype)

    def matrix_transpose(self, x):
        return x.transpose(-1, -2)

    def vector_norm(self, x, axis: int = -1):
        return self.torch.linalg.vector_norm(x, dim=axis)

    def einsum(self, spec: str, *xs):
        return self.torch.einsum(spec, *xs)

    def eye(self, n: int, like):
        return self.torch.eye(n, device=like.device, dtype=like.dtype)

    def arange(self, n: int, like):
        return self.torch.arange(n, device=like.device)

    def full(self, shape, value, like):
        return self.torch.full(shape, value, device=like.device)

    def constant(self, key: str, value, like):
        """``value`` (a numpy constant) as a tensor of ``like``'s device and dtype, made once per
        (key, device, dtype): a host-to-device copy must not happen inside a captured graph."""
        k = (key, like.device, like.dtype)
        if k not in self._constants:
            self._constants[k] = self.torch.as_tensor(np.asarray(value), dtype=like.dtype).to(like.device)
        return self._constants[k]

    def asarray(self, value, like):
        """``value`` as a tensor of ``like``'s device and dtype (a host-to-device copy on each call:
        not for captured code; :meth:`constant` is)."""
        return self.torch.as_tensor(np.asarray(value), dtype=like.dtype, device=like.device)

    def solve_spd(self, a, b):
        """x (W, n) with a x = b for (W, n, n) SPD ``a``: :func:`solve_spd_unrolled`."""
        return solve_spd_unrolled(self, a, b)


NUMPY = NumpyNamespace()
_TORCH: list[TorchNamespace] = []


def namespace(*arrays) -> Any:
    """The namespace of ``arrays``: :class:`TorchNamespace` when any is a ``torch.Tensor``, else
    :data:`NUMPY` (numpy arrays, scalars, lists). torch is imported only when a tensor is given."""
    if any(type(a).__module__.startswith("torch") for a in arrays):
        if not _TORCH:
            _TORCH.append(TorchNamespace())
        return _TORCH[0]
    return NUMPY
