"""``packing``: layout-first packing trajectories replayed under pybullet physics (PackLab-Suite).

Reads top to bottom as compile -> simulate -> episode:

1. **compile** (:func:`simkit.scenes.packing.layout.compile_case`): draw a tier from the tier
   mix, build a tight terminal layout, recover the expert's forward order by reverse removal,
   and an arrival queue that keeps the expert's next box in the visible buffer.
2. **simulate** (:class:`simkit.sims.packing.physics.PackingPhysics`): drop each expert box at
   its (orientation, x, y) with z from the heightmap, step until it is at rest, then check the
   settled poses with the independent geometric checker; any invalid placement or violation
   rejects the sample (:class:`~simkit.core.errors.SampleRejected`; the engine
   redraws it from a derived seed and records the reason, which names the tier).
3. **episode**: heightmaps, buffers, actions, poses, physics feedback, metrics.

Episode fields: :attr:`PackingGenerator.fields` (T = number of objects, N = T boxes, (L, W) container
base in cells); ``simkit config packing`` and ``docs/packing.md`` list them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from simkit.core.episode import Episode, Image
from simkit.core.errors import SampleRejected, short_repr
from simkit.core.fields import FieldSpec
from simkit.core.generator import Generator, GeneratorConfig
from simkit.core.images import tile
from simkit.scenes.packing.geometry import DEFAULT_RESOLUTION, Container
from simkit.scenes.packing.layout import (
    MAX_RESOLUTION,
    MIN_RESOLUTION,
    TIERS,
    PackingCase,
    accepted_resolutions,
    check_case,
    compile_case,
    resolution_problems,
)


class TierMix(BaseModel):
    """Relative weights of the tiers (normalised; PackData-20K mixes all three, PackLab paper, data generation step 5).

    Each weight is finite and >= 0, their sum finite and > 0 (inf or NaN would make NaN probabilities).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    easy: float = Field(1.0, ge=0, description="weight of the easy tier (buffer 3, 1-2 layers, 4-8 objects)")
    medium: float = Field(
        1.0, ge=0, description="weight of the medium tier (buffer 5, 2-3 layers, 9-18 objects)"
    )
    hard: float = Field(
        1.0, ge=0, description="weight of the hard tier (buffer 10, 3-4 layers, 19-32 objects)"
    )

    @model_validator(mode="after")
    def _some_weight(self) -> TierMix:
        total = self.easy + self.medium + self.hard
        if total <= 0:
            raise ValueError("at least one tier weight must be positive")
        if not math.isfinite(total):
            raise ValueError(f"the tier weights sum to {total}; use finite weights of moderate size")
        return self

    def probabilities(self) -> tuple[list[str], np.ndarray]:
        names = list(TIERS)
        w = np.array([getattr(self, n) for n in names], float)
        return names, w / w.sum()


class PhysicsConfig(BaseModel):
    """Stability-check thresholds passed to :class:`~simkit.sims.packing.physics.PackingPhysics` (same names).

    Values that would reject every placement are refused: non-finite numbers, ``settle_window`` >
    ``max_settle_steps`` (a box could never be seen at rest), ``footprint_shrink`` > 0.3 mm (see below).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    lin_speed_tol: float = Field(0.01, gt=0, description="m/s; placed box at rest below this linear speed")
    ang_speed_tol: float = Field(0.05, gt=0, description="rad/s; placed box at rest below this angular speed")
    max_settle_steps: int = Field(240, ge=1, description="step budget per placement (not settled -> invalid)")
    time_step: float = Field(1.0 / 240.0, gt=0, le=0.1, description="seconds per simulation step")
    settle_window: int = Field(6, ge=1, description="consecutive calm steps that count as at rest")
    drop_gap: float = Field(
        0.0005,
        ge=0,
        description=(
            "m; release height above the heightmap drop height (0.5 mm: above the ~0.4 mm a support sinks, "
            "and a 10 ms fall instead of 2 mm's 20 ms)"
        ),
    )
    tilt_tol: float = Field(0.1, gt=0, description="rad; rotation beyond this counts as tipped")
    footprint_shrink: float = Field(
        0.0001,
        ge=0,
        le=0.0003,
        description=(
            "m; collision footprint shrink per side, <= 0.3 mm: pressed neighbours overlap by 2 x shrink + ~0.3 mm "
            "contact penetration, which must stay under the geometric checker's 1 mm (0.5 mm fails it)"
        ),
    )
    friction: float = Field(0.5, ge=0, description="Coulomb friction coefficient of every surface")
    solver_iterations: int = Field(
        50,
        ge=1,
        description=(
            "pybullet constraint-solver iterations per step (pybullet's default 50: with 20, heavy 3-4 layer "
            "stacks sink up to ~1.3 mm into each other, beyond the 1 mm geometric check)"
        ),
    )
    contact_erp: float | None = Field(
        None,
        gt=0,
        le=1,
        description=(
            "pybullet contactERP; None keeps pybullet's default (the closed-loop evaluation uses 0.5)"
        ),
    )
    solver_residual_threshold: float | None = Field(
        1e-5,
        gt=0,
        description=(
            "pybullet solverResidualThreshold: a step's solver stops before solver_iterations once converged "
            "(1e-5 keeps the ~0.4 mm sink of 50 full iterations; 1e-4 reaches ~0.8 mm); None = pybullet's 1e-7"
        ),
    )
    cone_friction: bool = Field(
        False,
        description="pybullet enableConeFriction: the friction cone (True) or Bullet's two friction directions",
    )

    @model_validator(mode="after")
    def _can_settle(self) -> PhysicsConfig:
        if self.settle_window > self.max_settle_steps:
            raise ValueError(
                f"settle_window ({self.settle_window}) must be <= max_settle_steps "
                f"({self.max_settle_steps}): no box could ever count as at rest"
            )
        return self


class PackingConfig(GeneratorConfig):
    """Config of the ``packing`` generator (defaults run on a CPU laptop: ~10-80 ms per episode)."""

    tier_mix: TierMix = Field(default_factory=TierMix, description="relative tier weights")
    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False, allow_inf_nan=False)

    resolution: float = Field(
        DEFAULT_RESOLUTION,
        ge=MIN_RESOLUTION,
        le=MAX_RESOLUTION,
        description=(
            "grid cell size in metres (PackLab: 0.025); 0.01..0.05 and only values at which every tier always "
            "compiles (e.g. 0.01, 0.0125, 0.015, 0.02, 0.025, 0.04, 0.05; not 0.03)"
        ),
    )
    physics: PhysicsConfig = Field(
        default_factory=lambda: PhysicsConfig(), description="stability thresholds"
    )
    heightmap_px_per_cell: int = Field(8, ge=1, le=64, description="pixels per grid cell in heightmap PNGs")
    strip_columns: int = Field(8, ge=1, le=64, description="heightmaps per row of the heightmap_strip PNG")

    @model_validator(mode="after")
    def _resolution_compiles(self) -> PackingConfig:
        problems = resolution_problems(self.resolution)
        if problems:
            ok = ", ".join(f"{a:g}-{b:g}" for a, b in accepted_resolutions())
            raise ValueError(
                f"resolution {self.resolution:g} m cannot compile every case ({problems[0]}); "
                f"accepted ranges (m): {ok}"
            )
        return self


# -- heightmap pictures -------------------------------------------------------------------------
#: viridis anchor colours (matplotlib's viridis at 0, .25, .5, .75, 1), for height -> colour
_VIRIDIS = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]], float)


def _colour(v: np.ndarray) -> np.ndarray:
    """Map values in [0, 1] to RGB uint8 by piecewise-linear viridis."""
    v = np.clip(v, 0.0, 1.0) * (len(_VIRIDIS) - 1)
    i = np.minimum(v.astype(int), len(_VIRIDIS) - 2)
    f = (v - i)[..., None]
    return np.rint(_VIRIDIS[i] * (1 - f) + _VIRIDIS[i + 1] * f).astype(np.uint8)


def top_ids(case: PackingCase, steps: int) -> np.ndarray:
    """Id of the topmost box over each cell after the first ``steps`` expert placements: int (L, W), -1 = floor."""
    L, W, _ = case.container.size
    ids = np.full((L, W), -1, np.int32)
    for p in case.expert[:steps]:
        lx, ly = case.box(p.box_id).footprint(p.orientation)
        ids[p.x : p.x + lx, p.y : p.y + ly] = p.box_id
    return ids


def render_heightmap(
    hm: np.ndarray,
    max_height: int,
    px: int = 8,
    ids: np.ndarray | None = None,
    highlight: tuple[int, int, int, int] | None = None,
) -> np.ndarray:
    """RGB picture of a heightmap: uint8 (L*px, W*px, 3); image row = x cell, column = y cell.

    Colour = height / ``max_height`` on viridis (dark = floor, yellow = full). ``ids`` (L, W)
    draws dark edges between cells of different top boxes; ``highlight`` = (x, y, lx, ly)
    outlines that footprint in red (the box placed last).
    """
    img = _colour(hm.astype(float) / max(1, max_height))
    img = np.repeat(np.repeat(img, px, axis=0), px, axis=1)
    if ids is not None and px >= 3:
        edge_x = np.zeros(ids.shape, bool)
        edge_x[1:, :] = ids[1:, :] != ids[:-1, :]
        edge_y = np.zeros(ids.shape, bool)
        edge_y[:, 1:] = ids[:, 1:] != ids[:, :-1]
        # the first pixel row (column) of a cell whose top box differs from the cell above (left of) it
        img[::px][np.repeat(edge_x, px, axis=1)] = 20
        img[:, ::px][np.repeat(edge_y, px, axis=0)] = 20
    if highlight is not None:
        x, y, lx, ly = highlight
        t = max(1, px // 4)
        r0, r1, c0, c1 = x * px, (x + lx) * px, y * px, (y + ly) * px
        red = np.array([230, 30, 30], np.uint8)
        img[r0 : r0 + t, c0:c1] = red
        img[r1 - t : r1, c0:c1] = red
        img[r0:r1, c0 : c0 + t] = red
        img[r0:r1, c1 - t : c1] = red
    return img


def heightmap_frames(case: PackingCase, heightmaps: np.ndarray, px: int) -> list[np.ndarray]:
    """One RGB picture per heightmap (T+1), each outlining the box placed just before it."""
    H = case.container.size[2]
    frames = []
    for t in range(len(heightmaps)):
        hl = None
        if t > 0:
            p = case.expert[t - 1]
            lx, ly = case.box(p.box_id).footprint(p.orientation)
            hl = (p.x, p.y, lx, ly)
        frames.append(render_heightmap(heightmaps[t], H, px, top_ids(case, t), hl))
    return frames


def expert_steps(
    case: PackingCase, feedback: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The ``steps`` records and the ``actions`` array (T, 5) int32 of the expert trajectory.

    Step t holds the visible buffer before the placement (ids in slot order and their sizes in cells),
    the action (buffer slot, box id, orientation, x, y, z in cells) and ``feedback[t]``, the physics
    result of that placement; ``actions[t]`` = (slot, orientation, x, y, z).
    """
    placed: list[int] = []
    steps, actions = [], np.zeros((len(case.expert), 5), np.int32)
    for t, p in enumerate(case.expert):
        buf = case.buffer_at(placed)
        slot = buf.index(p.box_id)
        actions[t] = (slot, p.orientation, p.x, p.y, p.z)
        steps.append(
            {
                "t": t,
                "buffer": buf,
                "buffer_sizes": [list(case.box(i).size) for i in buf],
                "action": {
                    "slot": slot,
                    "box_id": p.box_id,
                    "orientation": p.orientation,
                    "x": p.x,
                    "y": p.y,
                    "z": p.z,
                },
                "physics": feedback[t],
            }
        )
        placed.append(p.box_id)
    return steps, actions


def episode_params(case: PackingCase, tier: str, cfg: PackingConfig) -> dict[str, dict[str, Any]]:
    """The episode's structural (task) and surface (look) parameters, as ``Episode.params``."""
    L, W, H = case.container.size
    return {
        "structural": {
            "tier": tier,
            "container_l": L,
            "container_w": W,
            "container_h": H,
            "n_objects": len(case.boxes),
            "n_layers": len(case.layer_heights),
            "layer_heights": list(case.layer_heights),
            "buffer_size": case.buffer_size,
            "resolution": cfg.resolution,
        },
        "surface": {
            "box_colours": [list(b.colour) for b in case.boxes],
            "heightmap_px_per_cell": cfg.heightmap_px_per_cell,
        },
    }


# -- metrics ------------------------------------------------------------------------------------
def final_poses(poses: np.ndarray, case: PackingCase) -> list[tuple[Any, tuple]]:
    """(box, (centre m, quaternion wxyz)) of every placed box after the last step of ``poses`` (T, N, 7)."""
    last = np.asarray(poses[-1], np.float64)
    return [
        (b, (tuple(last[b.id, :3]), tuple(last[b.id, 3:]))) for b in case.boxes if not np.isnan(last[b.id, 0])
    ]


def episode_metrics(case: PackingCase, posed: list[tuple[Any, tuple]]) -> dict[str, Any]:
    """PackLab's final metrics of one trajectory from the settled poses (PackLab paper eq. 11-13).

    success_ratio = volume of the boxes whose geometric centre lies inside the container / total
    box volume; compactness = that volume / (container base area x max height of the final
    heightmap rasterised from the poses); overall = their product. Computed with
    :mod:`simkit.scenes.packing.metrics` (the same code as ``simkit eval packing``).
    """
    from simkit.scenes.packing.metrics import case_metrics, centre_inside, heightmap_from_poses

    packed = [(b, pose) for b, pose in posed if centre_inside(case.container, pose[0])]
    hm = heightmap_from_poses(case.container, packed)
    return case_metrics(
        case.container, case.total_volume, [b for b, _ in packed], hm, len(case.boxes)
    ).to_dict()


def metrics_problems(stored: Any, m: dict[str, Any]) -> list[str]:
    """Each stored metric (metrics.json) that differs from ``m``, the metrics re-derived from the poses and
    the container (:func:`episode_metrics`), or is missing or extra; floats agree within 1e-6 (absolute)."""
    if not isinstance(stored, dict):
        return [f"metrics is not a JSON object (got {short_repr(stored)})"]
    out = [f"metric {k}: stored but not a metric" for k in sorted(set(stored) - set(m), key=str)]
    for k, want in m.items():
        got = stored.get(k)
        number = isinstance(got, (int, float)) and not isinstance(got, bool)
        if not number or not math.isclose(float(got or 0), float(want), rel_tol=0.0, abs_tol=1e-6):
            out.append(f"metric {k}: stored {short_repr(got)} != recomputed {want}")
    return out


def params_problems(meta: Any, case: PackingCase) -> list[str]:
    """The structural parameters meta.json records that differ from the ones the case gives (container size,
    object, layer and buffer counts, layer heights, tier): another episode's meta.json, or an edited one."""
    params = meta.get("params") if isinstance(meta, dict) else None
    rec = params.get("structural") if isinstance(params, dict) else None
    if not isinstance(rec, dict):
        return [] if meta is None else ["meta.json records no structural params"]
    L, W, H = case.container.size
    want = {
        "tier": case.tier,
        "container_l": L,
        "container_w": W,
        "container_h": H,
        "n_objects": len(case.boxes),
        "n_layers": len(case.layer_heights),
        "layer_heights": list(case.layer_heights),
        "buffer_size": case.buffer_size,
        "resolution": case.container.resolution,
    }
    return [
        f"meta.json params.structural.{k} {short_repr(rec.get(k))} != {short_repr(v)} from the case"
        for k, v in want.items()
        if rec.get(k) != v
    ]


def geometric_violations(case: PackingCase, posed: list[tuple[Any, tuple]]) -> list[str]:
    """Independent geometric check of the settled poses (overlap > 1 mm, outside, unsupported), as text."""
    from simkit.scenes.packing.checker import check_packing

    return [str(v) for v in check_packing(case.container, posed)]


def box_colour_map(case: PackingCase, steps: int) -> np.ndarray:
    """RGB (L, W, 3) floats of the topmost box over each cell after ``steps`` expert placements: every
    box its own tab20 colour (by id), the floor white, dark lines between different boxes."""
    from matplotlib import colormaps

    ids = top_ids(case, steps)
    tab = colormaps["tab20"]
    rgb = np.where((ids >= 0)[..., None], tab((ids % 20) / 19.999)[..., :3], 1.0)
    return rgb


def _box_edges(ax, ids: np.ndarray) -> None:
    """Dark lines along the boundaries between cells of different top boxes (image x = y cell, y = x cell)."""
    L, W = ids.shape
    for i, j in zip(*np.nonzero(ids[1:, :] != ids[:-1, :])):
        ax.plot([j - 0.5, j + 0.5], [i + 0.5, i + 0.5], color="0.1", lw=0.6)
    for i, j in zip(*np.nonzero(ids[:, 1:] != ids[:, :-1])):
        ax.plot([j + 0.5, j + 0.5], [i - 0.5, i + 0.5], color="0.1", lw=0.6)
    ax.set_xlim(-0.5, W - 0.5)
    ax.set_ylim(L - 0.5, -0.5)


def _side_view(ax, case: PackingCase, steps: int) -> None:
    """Every box of the first ``steps`` placements seen from the side, looking along +x (horizontal = y cell,
    vertical = z cell up; the same colours as :func:`box_colour_map`): boxes drawn far to near (larger x first), so nearer ones cover those behind."""
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    _, W, H = case.container.size
    tab = colormaps["tab20"]  # the colours of the view from above (box_colour_map)
    for p in sorted(case.expert[:steps], key=lambda p: -p.x):
        box = case.box(p.box_id)
        _, ly = box.footprint(p.orientation)
        fc = tab((p.box_id % 20) / 19.999)
        ax.add_patch(Rectangle((p.y, p.z), ly, box.size[2], fc=fc, ec="0.1", lw=0.6))
    ax.set_xlim(0, W)
    ax.set_ylim(0, H)
    ax.set_aspect("equal")


def contact_sheet_figure(plt, episodes: list[tuple[PackingCase, np.ndarray]]):
    """The ``inspect`` contact sheet: per episode (case, heightmaps (T+1, L, W) cells) three panels: the
    heightmap half-way in cm with a colour bar; the final packing seen from above (the top box of every cell
    in its colour, with box edges: only the top layer shows); the final packing from the side (looking along
    +x, every box drawn, nearer ones covering those behind), so the layers under the top one are seen too."""
    n = len(episodes)
    per_row = min(3, n)
    rows = -(-n // per_row)
    fig, axes = plt.subplots(rows, 3 * per_row, figsize=(5.6 * per_row, 2.6 * rows), squeeze=False)
    for ax in axes.ravel():
        ax.axis("off")
    for k, (case, hms) in enumerate(episodes):
        r, c = divmod(k, per_row)
        T, (L, W, H) = len(case.expert), case.container.size
        cm = 100.0 * case.container.resolution
        a0, a1, a2 = axes[r, 3 * c], axes[r, 3 * c + 1], axes[r, 3 * c + 2]
        im = a0.imshow(hms[T // 2] * cm, cmap="viridis", vmin=0, vmax=H * cm, interpolation="nearest")
        a0.set_title(f"{case.tier} {L}x{W}x{H}, n={len(case.boxes)}\nstep {T // 2} of {T}", fontsize=8)
        fig.colorbar(im, ax=a0, fraction=0.046, pad=0.02).set_label("height (cm)", fontsize=7)
        ids = top_ids(case, T)
        a1.imshow(box_colour_map(case, T), interpolation="nearest")
        _box_edges(a1, ids)
        visible = len(np.unique(ids[ids >= 0]))
        a1.set_title(f"final, seen from above:\n{visible} of {T} boxes on top", fontsize=8)
        _side_view(a2, case, T)
        z_levels = len({p.z for p in case.expert})
        levels = f"{z_levels} box level" + ("" if z_levels == 1 else "s")
        a2.set_title(f"final, side view along +x:\n{levels}, nearest in front", fontsize=8)
    fig.tight_layout()
    return fig


def strip_figure(plt, case: PackingCase, hms: np.ndarray, key: str, max_panels: int = 48):
    """Every step's heightmap (cm, shared colour bar) labelled ``step t: box b`` with that box outlined;
    at most ``max_panels`` panels (evenly spaced steps, first and last kept)."""
    from matplotlib.patches import Rectangle

    T, (L, W, H) = len(case.expert), case.container.size
    cm = 100.0 * case.container.resolution
    steps = np.unique(np.linspace(0, T, min(T + 1, max_panels)).round().astype(int))
    cols = min(8, steps.size)
    rows = -(-steps.size // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(1.9 * cols, 1.9 * rows * L / max(W, 1) + 0.6), squeeze=False
    )
    for ax in axes.ravel():
        ax.axis("off")
    im = None
    for ax, t in zip(axes.ravel(), steps):
        im = ax.imshow(hms[t] * cm, cmap="viridis", vmin=0, vmax=H * cm, interpolation="nearest")
        if t == 0:
            ax.set_title("step 0: empty", fontsize=7)
            continue
        p = case.expert[t - 1]
        lx, ly = case.box(p.box_id).footprint(p.orientation)
        ax.add_patch(Rectangle((p.y - 0.5, p.x - 0.5), ly, lx, fill=False, ec="red", lw=1.2))
        ax.set_title(f"step {t}: box {p.box_id}", fontsize=7)
    fig.suptitle(f"{key}: {case.tier}, container {L}x{W}x{H} cells, {T} steps", fontsize=9)
    if im is not None:
        fig.colorbar(im, ax=axes.ravel().tolist(), fraction=0.02, pad=0.01).set_label(
            "height (cm)", fontsize=7
        )
    return fig


class PackingGenerator(Generator[PackingConfig]):
    """Layout-first packing trajectories with pybullet replay (PackLab-Suite)."""

    name = "packing"
    version = "2"
    description = (
        "layout-first box-packing trajectories (heightmaps, buffers, expert actions) with pybullet replay"
    )
    extra = "packing"
    requires = ("pybullet",)
    Config = PackingConfig
    fields = (
        FieldSpec(
            "case",
            "json",
            units="cells, kg, RGB in [0, 1]",
            description="container {size, resolution}, boxes [{id, size, mass, colour, rotations}], "
            "arrival (ids), buffer_size, expert [{box_id, orientation, x, y, z}], layer_heights",
        ),
        FieldSpec(
            "heightmaps",
            "npy",
            "int16",
            ("T+1", "L", "W"),
            units="cells",
            frame="container grid, x along L, y along W",
            description="H_t: [t] is the heightmap before step t, [T] the final one",
        ),
        FieldSpec(
            "actions",
            "npy",
            "int32",
            ("T", 5),
            units="cells",
            frame="container grid",
            description="per step: buffer slot b_t, orientation o_t, x_t, y_t, z_t",
        ),
        FieldSpec(
            "steps",
            "json",
            units="cells; m, rad, simulation steps",
            description="T dicts: t, buffer (ids in slot order), buffer_sizes, action {slot, box_id, "
            "orientation, x, y, z}, physics {valid, reason, steps, position, quaternion, "
            "max_displacement_m, position_error_m, tilt_rad}",
        ),
        FieldSpec(
            "poses",
            "npy",
            "float32",
            ("T", "N", 7),
            units="m",
            frame="container, z up; quaternion (w, x, y, z)",
            description="after step t, box id -> centre (x, y, z) and quaternion; NaN for boxes not placed yet",
        ),
        FieldSpec(
            "heightmap_strip",
            "png",
            "uint8",
            ("Hs", "Ws", 3),
            frame="image rows = x, columns = y",
            description="the T+1 heightmaps tiled strip_columns per row, the box placed at each step "
            "outlined in red",
        ),
        FieldSpec(
            "metrics",
            "json",
            units="m^3, m",
            description="success_ratio, compactness, overall (PackLab eq. 11-13), utilisation, "
            "packed_volume_m3, total_volume_m3, max_height_m, n_items, n_packed",
        ),
    )
    smoke_config = {"tier_mix": {"easy": 1.0, "medium": 0.0, "hard": 0.0}}
    structural_params = (
        "tier",
        "container_l",
        "container_w",
        "container_h",
        "n_objects",
        "n_layers",
        "layer_heights",
        "buffer_size",
        "resolution",
    )
    surface_params = ("box_colours", "heightmap_px_per_cell")
    config_params = ("resolution", "heightmap_px_per_cell")

    def __init__(self) -> None:
        super().__init__()
        self._world_: Any = None  # one pybullet client per worker, re-targeted to each container
        self._pending: dict[int, dict[str, int]] = {}
        #: rejections per tier seen by this worker (all indices); episode meta records each episode's own
        self.rejections_by_tier: dict[str, int] = dict.fromkeys(TIERS, 0)

    # -- life cycle ---------------------------------------------------------------------------
    def teardown(self) -> None:
        if self._world_ is not None:
            self._world_.close()
            self._world_ = None

    def backend_versions(self) -> dict[str, str]:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return {"pybullet": version("pybullet")}
        except PackageNotFoundError:
            return {}

    def _world(self, container: Container):
        """This worker's pybullet world, reset and re-targeted to ``container``.

        One client per worker (a pybullet connect costs ~10 ms, as much as the physics of a small
        case); ``reset`` rebuilds the world inside the client, so episodes do not depend on the
        worker's history.
        """
        from simkit.sims.packing.physics import PackingPhysics

        if self._world_ is None:
            self._world_ = PackingPhysics(container, **self.config.physics.model_dump())
        else:
            self._world_.reset(container=container)
        return self._world_

    # -- generate -----------------------------------------------------------------------------
    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        """Compile a case of a tier drawn from ``tier_mix``, replay its expert in pybullet, build the episode.

        Uses only ``rng`` (tier, case). The fields are declared in :attr:`fields`.

        Raises:
            SampleRejected: a placement is invalid in physics or the settled poses fail the
                geometric check (message ``tier=<tier>: ...``; the engine redraws).
            ExtraMissing: pybullet is not installed.
        """
        cfg: PackingConfig = self.config
        names, probs = cfg.tier_mix.probabilities()
        tier = names[int(rng.choice(len(names), p=probs))]

        # 1. compile
        case = compile_case(tier, rng, cfg.resolution)
        T, N = len(case.expert), len(case.boxes)

        # 2. simulate: replay the expert under gravity with the stability check
        world = self._world(case.container)
        if index not in self._pending:
            self._pending.clear()  # a worker redraws one index until it is done, then moves on
        pending = self._pending.setdefault(index, {})
        poses = np.full((T, N, 7), np.nan, np.float32)
        feedback = []
        for t, p in enumerate(case.expert):
            res = world.place(case.box(p.box_id), p)
            if not res.valid:
                pending[tier] = pending.get(tier, 0) + 1
                self.rejections_by_tier[tier] += 1
                raise SampleRejected(
                    f"tier={tier}: step {t} box {p.box_id} invalid in physics ({res.reason})"
                )
            feedback.append(res.to_dict())
            for bid, (pos, quat) in world.poses().items():
                poses[t, bid, :3] = pos
                poses[t, bid, 3:] = quat
        posed = final_poses(poses, case)
        violations = geometric_violations(case, posed)
        if violations:
            pending[tier] = pending.get(tier, 0) + 1
            self.rejections_by_tier[tier] += 1
            raise SampleRejected(f"tier={tier}: geometric check failed: {'; '.join(violations[:3])}")
        rejected = self._pending.pop(index, {})

        # 3. episode
        heightmaps = case.expert_heightmaps()
        steps, actions = expert_steps(case, feedback)
        metrics = episode_metrics(case, posed)
        strip = tile(heightmap_frames(case, heightmaps, cfg.heightmap_px_per_cell), cfg.strip_columns, pad=3)
        params = episode_params(case, tier, cfg)
        return Episode(
            fields={
                "case": case.to_json(),
                "heightmaps": heightmaps.astype(np.int16),
                "actions": actions,
                "steps": steps,
                "poses": poses,
                "heightmap_strip": Image(strip),
                "metrics": metrics,
            },
            params=params,
            meta={
                "tier": tier,
                "rejections_by_tier": rejected,
                "settle_steps_total": int(sum(f["steps"] for f in feedback)),
            },
        )

    # -- validate -----------------------------------------------------------------------------
    def check(self, sample: dict[str, Any]) -> list[str]:
        """Re-verify a stored episode: case invariants, heightmaps, buffers, actions, poses, metrics."""
        problems: list[str] = []
        try:
            case = PackingCase.from_json(sample["case"])
        except (ValueError, TypeError) as exc:
            return [f"case does not parse: {exc}"]
        problems += [f"case: {p}" for p in check_case(case)]
        L, W, H = case.container.size
        T, N = len(case.expert), len(case.boxes)
        if case.total_volume != L * W * H:
            problems.append(
                f"layout volumes do not add up: boxes {case.total_volume} != container {L * W * H}"
            )
        hms = np.asarray(sample["heightmaps"])
        expect = case.expert_heightmaps()
        if hms.shape != expect.shape:
            problems.append(f"heightmaps shape {hms.shape} != {expect.shape}")
        elif not np.array_equal(hms, expect):
            problems.append("heightmaps differ from the expert actions replayed on the grid")
        acts = np.asarray(sample["actions"])
        steps = sample["steps"]
        if acts.shape != (T, 5) or len(steps) != T:
            problems.append(f"actions shape {acts.shape} / {len(steps)} steps, expected ({T}, 5)")
            return problems
        placed: list[int] = []
        for t, p in enumerate(case.expert):
            buf = case.buffer_at(placed)
            if p.box_id not in buf:
                problems.append(f"step {t}: expert box {p.box_id} not in the buffer")
                break
            want = (buf.index(p.box_id), p.orientation, p.x, p.y, p.z)
            if tuple(int(v) for v in acts[t]) != want:
                problems.append(f"step {t}: action {acts[t].tolist()} != expert {list(want)}")
            if steps[t]["buffer"] != buf:
                problems.append(f"step {t}: stored buffer {steps[t]['buffer']} != {buf}")
            if not steps[t]["physics"].get("valid", False):
                problems.append(f"step {t}: physics marks the placement invalid")
            placed.append(p.box_id)
        poses = np.asarray(sample["poses"])
        if poses.shape != (T, N, 7):
            problems.append(f"poses shape {poses.shape} != {(T, N, 7)}")
            return problems
        for t in range(T):
            present = ~np.isnan(poses[t, :, 0])
            if sorted(np.nonzero(present)[0].tolist()) != sorted(placed[: t + 1]):
                problems.append(f"step {t}: poses present for the wrong boxes")
                break
        posed = final_poses(poses, case)
        problems += [f"geometric check: {v}" for v in geometric_violations(case, posed)]
        m = episode_metrics(case, posed)
        problems += metrics_problems(sample["metrics"], m)
        problems += params_problems(sample.get("meta"), case)
        if not math.isclose(m["success_ratio"], 1.0):
            problems.append(f"expert success ratio {m['success_ratio']} != 1.0")
        strip = np.asarray(sample["heightmap_strip"])
        if strip.ndim != 3 or strip.shape[2] != 3:
            problems.append(f"heightmap_strip is not an RGB image (shape {strip.shape})")
        return problems

    # -- inspect ------------------------------------------------------------------------------
    def inspect(self, samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
        """``contact_sheet.png``: per episode the heightmap half-way (height in cm on viridis, with a
        colour bar) and the final packing with every box in its own colour and dark edges between boxes
        (a full container is one height, so heights alone would show a uniform panel), titled with tier,
        container (cells) and object count; ``strip_<key>.png``: every step's heightmap of the first 3
        episodes, each panel labelled with its step and the box placed there (outlined), the tier in the
        title and a shared colour bar; ``packing_sample_stats.json``: statistics of the inspected
        *sample* only (``samples``, 16 episodes by default; not the whole corpus): ``{"scope": "sample",
        "sample_episodes": n, "per_tier_in_sample": {tier: {"episodes", "steps", "rejections",
        "overall_mean"}}}``, where ``rejections`` counts the physics redraws recorded in the sampled
        episodes' meta."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        paths: list[Path] = []
        cases = [(s, PackingCase.from_json(s["case"])) for s in samples]
        if cases:
            fig = contact_sheet_figure(plt, [(c, np.asarray(s["heightmaps"])) for s, c in cases])
            paths.append(out_dir / "contact_sheet.png")
            fig.savefig(paths[-1], dpi=90, bbox_inches="tight")
            plt.close(fig)
        for s, case in cases[:3]:
            fig = strip_figure(plt, case, np.asarray(s["heightmaps"]), str(s.get("__key__", "")))
            paths.append(out_dir / f"strip_{s['__key__']}.png")
            fig.savefig(paths[-1], dpi=80, bbox_inches="tight")
            plt.close(fig)
        # per-tier counts, steps and rejections of the inspected episodes (a sample, labelled as such)
        stats: dict[str, dict[str, Any]] = {}
        for s in samples:
            meta = s.get("meta") or {}
            tier = s["case"]["tier"]
            row = stats.setdefault(tier, {"episodes": 0, "steps": 0, "rejections": 0, "overall_mean": 0.0})
            row["episodes"] += 1
            row["steps"] += len(s["case"]["expert"])
            row["overall_mean"] += float(s.get("metrics", {}).get("overall", 0.0))
            for t, k in (meta.get("rejections_by_tier") or {}).items():
                stats.setdefault(t, {"episodes": 0, "steps": 0, "rejections": 0, "overall_mean": 0.0})
                stats[t]["rejections"] += int(k)
        for row in stats.values():
            row["overall_mean"] = round(row["overall_mean"] / row["episodes"], 6) if row["episodes"] else None
        if stats:
            import json

            doc = {
                "scope": "sample",
                "sample_episodes": len(samples),
                "note": "statistics of the inspected sample of episodes only, not of the whole corpus",
                "per_tier_in_sample": dict(sorted(stats.items())),
            }
            path = out_dir / "packing_sample_stats.json"
            path.write_text(json.dumps(doc, indent=2) + "\n")
            paths.append(path)
        return paths
