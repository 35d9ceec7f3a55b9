"""The geometric tests of Hebero's goal predicates, one definition for numpy and torch.

LIBERO's tests and thresholds (:mod:`simkit.sims.hebero.predicates` states them, with their source)
over arrays of any leading shape ``...`` (one state, a batch of simulations, worlds x atoms), in
the array namespace of :mod:`simkit.core.xp`. Three evaluators share them:
:class:`~simkit.sims.hebero.predicates.PredicateEvaluator` (one MuJoCo state, contacts from
``data.contact``), :class:`~simkit.sims.hebero.batch_predicates.BatchGoal` (numpy batches of the CPU
env, contacts from contact sensors) and :func:`~simkit.sims.hebero.batched_tasks.goal_success`
(torch worlds of the GPU backend, contacts from the contact list). What touches what is the
caller's; these functions test positions, orientations and joint values only, with no host
synchronisation and no branch on array values (CUDA-graph safe on torch).

Frames: world, z up, metres; rotation matrices ``R`` (..., 3, 3) map site-frame vectors into the
world frame (MuJoCo's ``site_xmat`` reshaped).
"""

from __future__ import annotations

import operator

from simkit.core.xp import namespace
from simkit.scenes.hebero.predicate_thresholds import (
    IN_Z_MARGIN,
    ON_SITE_ABOVE,
    ON_SITE_BELOW,
    ON_XY_RADIUS,
)

#: joint comparisons of the articulation tests: q < t, q > t, q >= t, q <= t
CMP_LT, CMP_GT, CMP_GE, CMP_LE = range(4)
CMP_CODES = {"<": CMP_LT, ">": CMP_GT, ">=": CMP_GE, "<=": CMP_LE}
_OPS = (operator.lt, operator.gt, operator.ge, operator.le)


def on_object(pa, pb):
    """On(a, b) for an object b, less the contact: ``z_b <= z_a`` and ``||xy_a - xy_b|| < 0.03`` m.

    Args:
        pa, pb: (..., 3) root-body world positions of a and b, m.

    Returns:
        (...) bool.
    """
    xp = namespace(pa, pb)
    near = xp.vector_norm(pa[..., :2] - pb[..., :2], axis=-1) < ON_XY_RADIUS
    return (pb[..., 2] <= pa[..., 2]) & near


def matvec(m, v):
    """``m v`` for matrices (..., 3, 3) and vectors (..., 3) broadcasting against each other, as a
    matrix product (the bits of ``m[i] @ v[i]`` per item, which an ``einsum`` does not keep)."""
    return (m @ v[..., None])[..., 0]


def site_local(p, site_pos, site_rot):
    """``R^T (p - p_site)``: world points (..., 3) in a site's frame (..., 3), m."""
    return matvec(namespace(p, site_rot).matrix_transpose(site_rot), p - site_pos)


def on_region(pa, site_pos, site_rot, size):
    """On(a, region), less the contact: with ``d = R^T (p_a - p_r)``, ``s_z - 0.005 < d_z < s_z + 0.10``
    and ``|d_x| < s_x``, ``|d_y| < s_y``.

    Args:
        pa: (..., 3) world position of a, m. site_pos (..., 3), site_rot (..., 3, 3): the region's
            site pose. size: (..., 3) or (3,) the region's half sizes, m.

    Returns:
        (...) bool.
    """
    xp = namespace(pa, site_pos, size)
    dl = site_local(pa, site_pos, site_rot)
    band = (dl[..., 2] > size[..., 2] - ON_SITE_BELOW) & (dl[..., 2] < size[..., 2] + ON_SITE_ABOVE)
    return band & xp.all(abs(dl[..., :2]) < size[..., :2], axis=-1)


def in_region(pa, site_pos, site_rot, size):
    """In(a, region): ``p_a`` inside the world box ``p_r +- |R s|``, its lower z bound lowered by 0.01 m.

    Args: as :func:`on_region`. Returns: (...) bool.
    """
    xp = namespace(pa, site_pos, size)
    half = abs(matvec(site_rot, size))
    lo, hi = site_pos - half, site_pos + half
    lo = xp.concat([lo[..., :2], lo[..., 2:] - IN_Z_MARGIN], axis=-1)
    return xp.all((pa > lo) & (pa < hi), axis=-1)


def box_bounds(geom_pos, geom_rot, centre, half):
    """World axis-aligned box (lo, hi) (..., 3) around g collision geoms, m: each geom's local AABB
    (MuJoCo's ``geom_aabb``: centre, half sizes) carried into the world, ``c = p + R c_local``,
    ``ext = |R| h``, then the min / max over the geoms.

    Args:
        geom_pos (..., g, 3), geom_rot (..., g, 3, 3): the geoms' world poses. centre, half: (g, 3).
    """
    xp = namespace(geom_pos, centre)
    c = geom_pos + matvec(geom_rot, centre)
    ext = matvec(abs(geom_rot), half)
    return xp.min(c - ext, axis=-2), xp.max(c + ext, axis=-2)


def in_box(p, lo, hi):
    """``lo < p < hi`` on every axis: (..., 3) world points and boxes -> (...) bool (In(a, b) for an
    object b, less the contact, with :func:`box_bounds` of b's geoms)."""
    return namespace(p, lo).all((p > lo) & (p < hi), axis=-1)


def compare(q, cmp, thr):
    """Joint tests ``q <op> thr`` (...) bool; ``cmp``: a ``CMP_*`` code, or an int array broadcasting
    with ``q`` (one code per joint or atom)."""
    if isinstance(cmp, int):  # one comparison for all joints (a Python constant, not an array value)
        return _OPS[cmp](q, thr)
    xp = namespace(q, cmp)
    return xp.where(
        cmp == CMP_LT, q < thr, xp.where(cmp == CMP_GT, q > thr, xp.where(cmp == CMP_GE, q >= thr, q <= thr))
    )
