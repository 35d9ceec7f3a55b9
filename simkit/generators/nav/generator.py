"""``foa-nav``: sound-guided navigation episodes with egocentric FOA at every agent pose.

Reads top to bottom as compile -> simulate/render -> episode:

1. compile: a procedural multi-room floor plan (:func:`simkit.scenes.nav.floorplan.compile_floorplan`,
   exported as GLB) or a user scene mesh (``scene: PATH``); the ``poly`` backend (default) cuts its
   walkable area as polygons eroded by the agent radius, with exact geodesics
   (:mod:`simkit.sims.nav.poly`; ``backend: grid`` rasterises it instead, :mod:`simkit.sims.nav.grid`);
   a start, heading and goal are drawn on one island
   within ``geodesic_m`` (:func:`simkit.sims.nav.episodes.sample_start_goal`);
2. simulate: the shortest-path follower walks from start to goal with Habitat's discrete actions
   (move_forward 0.25 m, turn 15 deg, stop; sliding along walls);
3. render: a mono stem from the sound bank sits at the goal (OmniEcho: the sound event is placed at
   the episode's end point); for each pose a window of ``window_s`` of AmbiX FOA is rendered in the
   agent's egocentric frame (:func:`simkit.renderers.foa.windows.render_windows`) with the 1/r law,
   r_min = 0.3 m and no peak normalisation; optional image-source early reflections of the room the
   agent shares with the source, cross-room attenuation (``wall_loss_db`` per wall crossed by the direct line) and
   1-3 plane-wave interferers at SNRs from {20, 15, 10, 5, 0} dB;
4. episode: per step the next K = 8 waypoints ``[x_fwd, y_left, psi]``, stop flags, the source's
   egocentric direction and distance (Euclidean and geodesic), its 8-way direction bucket and
   near/far bucket; the scene (plan JSON + GLB), the episode description, optional RGB/depth.

Source: OmniEcho navigation data (seed notes ``omniecho_foa_nav``; digest ``specs/nav.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from simkit.core.episode import Audio, Blob, Episode, Video
from simkit.core.errors import SampleInvalid, SampleRejected, SimkitError
from simkit.core.fields import FieldSpec
from simkit.core.generator import Generator, GeneratorConfig, module_versions

Range = tuple[float, float]
EGO = "agent frame of each step: +x ahead, +y left, z up"


class FoaNavConfig(GeneratorConfig):
    """Configuration of ``foa-nav`` (defaults: procedural 3-6 room plans, 3-12 m episodes, direct path)."""

    scene: str = Field(
        "", description="scene mesh (GLB/glTF/OBJ/PLY, z up or glTF y up); empty = procedural plans"
    )
    vlnce: str = Field(
        "", description="VLN-CE episode file (R2R/RxR .json or .json.gz): episode i = entry i mod count"
    )
    scenes_dir: str = Field(
        "", description="directory holding the VLN-CE scene meshes (scene_id relative to it)"
    )
    backend: Literal["poly", "grid", "habitat"] = Field(
        "poly",
        description="navigation backend: poly (built in, exact polygons), grid (built in, cells) or habitat "
        "(habitat-sim, needs scene + navmesh)",
    )
    navmesh: str = Field("", description="Habitat .navmesh of the scene (backend habitat)")
    floor_height_m: float | None = Field(None, description="floor height of a user scene (None: estimated)")
    width_m: Range = Field((8.0, 12.0), description="[min, max] procedural footprint width (x), metres")
    depth_m: Range = Field((6.0, 10.0), description="[min, max] procedural footprint depth (y), metres")
    n_rooms: tuple[int, int] = Field((3, 6), description="[min, max] rooms per procedural plan")
    furniture_per_room: tuple[int, int] = Field((0, 2), description="[min, max] furniture blocks per room")
    cell_m: float = Field(0.05, ge=0.01, le=0.2, description="walkable-grid cell size (backend grid), metres")
    agent_radius_m: float = Field(0.18, ge=0.05, le=0.5, description="agent radius, metres")
    ear_height_m: float = Field(
        1.5, ge=0.3, le=2.0, description="FOA microphone height above the floor, metres"
    )
    geodesic_m: Range = Field((3.0, 12.0), description="[min, max] start-goal geodesic distance, metres")
    min_geodesic_ratio: float = Field(
        1.0, ge=1.0, le=3.0, description="minimum geodesic / Euclidean distance"
    )
    max_steps: int = Field(500, ge=10, le=2000, description="step limit of the reference follower")
    sample_rate: int = Field(16000, description="FOA sample rate in Hz: 16000 or 48000")
    window_s: float = Field(0.25, ge=0.05, le=2.0, description="FOA window per step, seconds")
    lufs: Range = Field((-38.0, -30.0), description="[min, max] source loudness at 1 m, LUFS")
    source_height_m: Range = Field((0.3, 1.5), description="[min, max] source height above the floor, metres")
    reflections: bool = Field(
        False, description="image-source early reflections when agent and source share a room"
    )
    image_order: int = Field(1, ge=0, le=3, description="image-source order when reflections are on")
    absorption: Range = Field((0.2, 0.5), description="[min, max] wall energy absorption")
    wall_loss_db: float = Field(
        10.0, ge=0.0, le=60.0, description="attenuation per wall between source and agent, dB"
    )
    n_interferers: tuple[int, int] = Field((0, 0), description="[min, max] plane-wave interferers (0-3)")
    snr_choices_db: list[float] = Field(
        [20.0, 15.0, 10.0, 5.0, 0.0], min_length=1, description="interferer SNRs, dB"
    )
    near_m: float = Field(
        2.0, gt=0.0, description="near/far bucket threshold on the Euclidean distance, metres"
    )
    sounds: str = Field("", description="sound bank directory (empty = procedural)")
    frames: bool = Field(
        False, description="render RGB (mp4) and depth (npy) per step from the scene (MuJoCo)"
    )
    image_width: int = Field(128, ge=16, le=1024, description="frame width, pixels")
    image_height: int = Field(96, ge=16, le=1024, description="frame height, pixels")

    @field_validator("sample_rate")
    @classmethod
    def _rate(cls, v: int) -> int:
        if v not in (16000, 48000):
            raise ValueError(f"sample_rate must be 16000 or 48000, got {v}")
        return v

    @field_validator("sounds")
    @classmethod
    def _sounds(cls, v: str) -> str:
        from simkit.assets.sounds import check_bank_dir

        return check_bank_dir(v)

    @field_validator("scene")
    @classmethod
    def _scene(cls, v: str) -> str:
        if v and not Path(v).is_file():
            raise ValueError(f"scene mesh {v!r} does not exist")
        return v

    @field_validator("vlnce", "scenes_dir")
    @classmethod
    def _paths(cls, v: str) -> str:
        if v and not Path(v).exists():
            raise ValueError(f"{v!r} does not exist")
        return v

    @model_validator(mode="after")
    def _ranges(self):
        if self.vlnce and not self.scenes_dir:
            raise ValueError("vlnce needs scenes_dir (the folder with the episodes' scene meshes)")
        if self.frames and (self.scene or self.vlnce or self.backend == "habitat"):
            raise ValueError(
                "frames: true renders procedural plans only (not scene, vlnce or the habitat backend)"
            )
        if self.backend == "habitat" and not self.navmesh:
            raise ValueError("backend habitat needs navmesh (the scene's Habitat .navmesh file)")
        for name in ("width_m", "depth_m", "n_rooms", "furniture_per_room", "geodesic_m", "lufs"):
            lo, hi = getattr(self, name)
            if lo > hi:
                raise ValueError(f"{name}: min {lo} > max {hi}")
        for name in ("source_height_m", "absorption", "n_interferers"):
            lo, hi = getattr(self, name)
            if lo > hi:
                raise ValueError(f"{name}: min {lo} > max {hi}")
        if self.n_rooms[0] < 1 or self.width_m[0] < 3.0 or self.depth_m[0] < 3.0:
            raise ValueError("n_rooms must be >= 1 and width_m, depth_m >= 3 m")
        if self.geodesic_m[0] <= 0.3:
            raise ValueError(f"geodesic_m min must exceed 0.3 m, got {self.geodesic_m[0]}")
        if self.absorption[0] < 0.0 or self.absorption[1] >= 1.0:
            raise ValueError(f"absorption must lie within [0, 1), got {list(self.absorption)}")
        if self.n_interferers[0] < 0 or self.n_interferers[1] > 3:
            raise ValueError(f"n_interferers must lie within [0, 3], got {list(self.n_interferers)}")
        return self


FIELDS = (
    FieldSpec(
        "foa",
        "flac",
        "float32",
        ("T", 4),
        "",
        "agent (egocentric listener frame)",
        "AmbiX W,Y,Z,X FOA; step k's window is samples [k*S, (k+1)*S), S = window_s * sample_rate",
    ),
    FieldSpec(
        "poses",
        "npy",
        "float32",
        ("N", 3),
        "m, m, rad",
        "world, z up",
        "agent pose [x, y, yaw] at each step (yaw counter-clockwise from +x)",
    ),
    FieldSpec(
        "actions",
        "npy",
        "int8",
        ("N",),
        "",
        "",
        "reference action per step: 0 stop, 1 forward, 2 left, 3 right",
    ),
    FieldSpec(
        "waypoints",
        "npy",
        "float32",
        ("N", 8, 3),
        "m, m, rad",
        EGO,
        "next K=8 poses relative to the step's pose [x_fwd, y_left, psi]",
    ),
    FieldSpec("stop", "npy", "bool", ("N", 8), "", "", "waypoint lies past the episode's end (stay: <stop>)"),
    FieldSpec(
        "source",
        "npy",
        "float32",
        ("N", 4),
        "rad, rad, m, m",
        EGO,
        "goal sound per step [azimuth, elevation, distance, geodesic distance]",
    ),
    FieldSpec(
        "buckets",
        "npy",
        "int8",
        ("N", 2),
        "",
        EGO,
        "[8-way direction bucket (0 front, counter-clockwise), 0 near / 1 far]",
    ),
    FieldSpec(
        "episode",
        "json",
        None,
        None,
        "m, rad, s",
        "world, z up",
        "start, goal, source, label, distances, reference path, audio settings",
    ),
    FieldSpec(
        "scene", "json", None, None, "m", "world, z up", "floor plan (rooms, doors, boxes) or the user mesh"
    ),
    FieldSpec(
        "mesh",
        "blob",
        None,
        None,
        "m",
        "glTF y up",
        "scene mesh (GLB) a Habitat user can load",
        required=False,
    ),
    FieldSpec(
        "rgb",
        "mp4",
        "uint8",
        ("N", "H", "W", 3),
        "",
        "agent camera at ear height, looking along yaw",
        "frame per step (frames: true); the frames of earlier steps are the history",
        required=False,
    ),
    FieldSpec(
        "depth",
        "npy",
        "float16",
        ("N", "H", "W"),
        "m",
        "agent camera (z-depth along the optical axis)",
        "depth per step (frames: true), sky = 100 m",
        required=False,
    ),
)


class FoaNavGenerator(Generator[FoaNavConfig]):
    """Sound-guided navigation episodes (module docstring)."""

    name = "foa-nav"
    version = "3"
    description = (
        "sound-guided navigation: floor plans, shortest-path episodes, egocentric FOA per step, waypoints"
    )
    extra = "nav"
    requires = ("trimesh", "scipy", "shapely", "pyloudnorm")
    Config = FoaNavConfig
    fields = FIELDS
    required_fields = tuple(f.name for f in FIELDS if f.required)
    # named apart from the config's ranges (a parameter named like a config key must equal it)
    structural_params = ("rooms", "geodesic_start_m", "n_steps", "label", "walls_crossed_at_start")
    surface_params = ("source_lufs", "source_z_m", "wall_absorption", "interferer_snr_db")
    smoke_config: ClassVar[dict[str, Any]] = {
        "width_m": [5.0, 6.0],
        "depth_m": [4.0, 5.0],
        "n_rooms": [2, 2],
        "furniture_per_room": [0, 1],
        "geodesic_m": [1.5, 3.0],
        "window_s": 0.1,
    }

    def setup(self, config: FoaNavConfig) -> None:
        super().setup(config)
        from simkit.assets.sounds import load_bank

        self.bank = load_bank(config.sounds or None)
        self.user_backend = None
        self.vlnce = self._load_vlnce(config) if config.vlnce else None
        self._scene_cache: dict[str, Any] = {}
        if config.backend == "habitat":
            from simkit.sims.nav import make_backend

            self.user_backend = make_backend(
                "habitat", navmesh=config.navmesh, agent_radius=config.agent_radius_m
            )
        elif config.scene:
            from simkit.scenes.nav.meshes import load_scene_mesh

            self.user_backend = self._mesh_backend(load_scene_mesh(config.scene), config.floor_height_m)

    def _mesh_backend(self, mesh, floor_z: float | None = None):
        """The configured mesh backend (``poly`` or ``grid``; ``poly`` beside a habitat navmesh) of a mesh."""
        from simkit.sims.nav import make_backend

        c = self.config
        name = "poly" if c.backend == "habitat" else c.backend
        return make_backend(name, mesh=mesh, agent_radius=c.agent_radius_m, cell=c.cell_m, floor_z=floor_z)

    @staticmethod
    def _load_vlnce(config: FoaNavConfig) -> list:
        """The VLN-CE episodes whose scene mesh is under ``scenes_dir`` (the others are reported once)."""
        import logging

        from simkit.core.errors import InputError
        from simkit.sims.nav.vlnce import load_vlnce, resolve_scene

        eps = load_vlnce(config.vlnce)
        found = [(e, resolve_scene(e.scene_id, config.scenes_dir)) for e in eps]
        usable = [(e, p) for e, p in found if p is not None]
        missing = sorted({e.scene_id for e, p in found if p is None})
        if missing:
            logging.getLogger("simkit.nav").warning(
                "%s: %d of %d episodes skipped, scenes not in %s: %s",
                config.vlnce,
                len(eps) - len(usable),
                len(eps),
                config.scenes_dir,
                ", ".join(missing[:5]),
            )
        if not usable:
            raise InputError(config.vlnce, f"no episode's scene mesh is under {config.scenes_dir}")
        return usable

    def _vlnce_task(self, index: int):
        """(backend, StartGoal) of VLN-CE episode ``index`` (mod count); start and goal snapped to the
        walkable area (within 0.5 m); an unreachable goal (another island) or a point off the walkable
        area raises :class:`~simkit.core.errors.SampleInvalid` (the episode fails at once, unredrawn)."""
        from simkit.scenes.nav.meshes import load_scene_mesh
        from simkit.sims.nav.episodes import StartGoal

        assert self.vlnce is not None
        ep, path = self.vlnce[index % len(self.vlnce)]
        key = f"{path}|{ep.floor_z:.2f}"
        if key not in self._scene_cache:
            if len(self._scene_cache) >= 2:
                self._scene_cache.pop(next(iter(self._scene_cache)))
            self._scene_cache[key] = self._mesh_backend(load_scene_mesh(path), ep.floor_z)
        be = self._scene_cache[key]
        try:
            start, goal = be.snap_point(ep.start), be.snap_point(ep.goal)
            geo = be.geodesic_distance(start, goal)
        except SimkitError as exc:
            # the episode is fixed by its index: a redraw meets the same start and goal
            raise SampleInvalid(f"VLN-CE episode {ep.episode_id}: {exc}") from None
        return be, StartGoal(start, ep.start_yaw, goal, geo, float(np.linalg.norm(goal - start))), ep

    # -- 1. compile ---------------------------------------------------------------------------
    def _compile(self, rng: np.random.Generator):
        from simkit.scenes.nav.floorplan import FloorPlanParams, compile_floorplan, plan_mesh

        c = self.config
        if self.user_backend is not None:
            return None, self.user_backend
        params = FloorPlanParams(
            width_m=c.width_m,
            depth_m=c.depth_m,
            n_rooms=c.n_rooms,
            furniture_per_room=c.furniture_per_room,
        )
        plan = compile_floorplan(rng, params)
        return plan, self._mesh_backend(plan_mesh(plan))

    # -- 3. render ----------------------------------------------------------------------------
    def _render(self, rng, plan, poses, source_xyz) -> tuple[np.ndarray, dict[str, Any]]:
        from simkit.assets.sounds import normalise_loudness
        from simkit.renderers.foa import ShoeboxRoom, scale_to_snr
        from simkit.renderers.foa.windows import render_windows
        from simkit.scenes.nav.floorplan import cross_room_gain, room_box

        c = self.config
        fs, win = int(c.sample_rate), round(c.window_s * c.sample_rate)
        n, pad = len(poses), fs // 20
        label = str(self.bank.labels[int(rng.integers(len(self.bank.labels)))])
        lufs = float(rng.uniform(*c.lufs))
        stem = normalise_loudness(self.bank.draw(label, n * win + pad, fs, rng), fs, lufs)
        gains = [
            1.0 if plan is None else cross_room_gain(plan, p[:2], source_xyz[:2], c.wall_loss_db)
            for p in poses
        ]
        rooms = None
        absorption = float(rng.uniform(*c.absorption))
        if c.reflections and plan is not None:
            # image sources only when agent and source share a room (a room's images of a source
            # outside it are not physical); through walls the direct path alone is heard
            home = plan.room_of(float(source_xyz[0]), float(source_xyz[1]))
            boxes = [
                room_box(plan, p) if plan.room_of(float(p[0]), float(p[1])) == home else None for p in poses
            ]
            rooms = [
                None
                if b is None
                else ShoeboxRoom(size=b[1], absorption=absorption, max_order=c.image_order, origin=b[0])
                for b in boxes
            ]
        h = c.ear_height_m
        foa = render_windows(
            stem, fs, poses, source_xyz, win, listener_height=h, gains=gains, rooms=rooms, pad=pad
        )
        interferers = []
        for _ in range(int(rng.integers(c.n_interferers[0], c.n_interferers[1] + 1))):
            ilabel = str(self.bank.labels[int(rng.integers(len(self.bank.labels)))])
            az = float(rng.uniform(-np.pi, np.pi))
            snr = float(c.snr_choices_db[int(rng.integers(len(c.snr_choices_db)))])
            far = (1e3 * np.cos(az), 1e3 * np.sin(az), c.ear_height_m)
            sig = normalise_loudness(self.bank.draw(ilabel, n * win + pad, fs, rng), fs, lufs)
            itf = render_windows(sig, fs, poses, far, win, listener_height=h, plane_wave=True, pad=pad)
            itf, _ = scale_to_snr(foa, itf, snr)
            foa = foa + itf
            interferers.append({"label": ilabel, "azimuth_world_rad": az, "snr_db": snr})
        info = {"label": label, "lufs": lufs, "absorption": absorption if rooms else None,
                "interferers": interferers, "cross_room_gain": [float(g) for g in gains]}  # fmt: skip
        return foa, info

    def generate(self, index: int, rng: np.random.Generator) -> Episode:
        from simkit.sims.nav.episodes import follow_path, sample_start_goal

        c = self.config
        vep = None
        if self.vlnce is not None:
            plan, (backend, sg, vep) = None, self._vlnce_task(index)
        else:
            plan, backend = self._compile(rng)
            sg = sample_start_goal(backend, rng, c.geodesic_m, c.min_geodesic_ratio)
        poses, actions = follow_path(backend, sg.start, sg.start_yaw, sg.goal, c.max_steps)
        source_xyz = np.array([sg.goal[0], sg.goal[1], rng.uniform(*c.source_height_m)])
        foa, info = self._render(rng, plan, poses, source_xyz)
        peak = float(np.max(np.abs(foa))) if foa.size else 0.0
        if peak >= 1.0:
            raise SampleRejected(f"FOA peak {peak:.2f} >= 1 (no peak normalisation; lower lufs)")
        if vep is not None:
            info["vlnce"] = {"episode_id": vep.episode_id, "scene_id": vep.scene_id, "instruction": vep.instruction,
                             "reference_path_m": vep.reference_path.tolist(), "goal_radius_m": vep.goal_radius,
                             "floor_z_m": vep.floor_z}  # fmt: skip
        return self._episode(plan, backend, sg, poses, actions, source_xyz, foa, info)

    # -- 4. episode ---------------------------------------------------------------------------
    def _episode(self, plan, backend, sg, poses, actions, source_xyz, foa, info) -> Episode:
        from simkit.renderers.foa import ambisonics_comment
        from simkit.scenes.nav.floorplan import glb_bytes, walls_between
        from simkit.sims.nav.episodes import direction_bucket, source_in_agent_frame, waypoint_targets

        c = self.config
        wp, stop = waypoint_targets(poses)
        polar = source_in_agent_frame(poses, source_xyz, c.ear_height_m)
        geo = np.array([backend.geodesic_distance(p[:2], sg.goal) for p in poses])
        source = np.concatenate([polar, geo[:, None]], axis=1).astype(np.float32)
        buckets = np.stack([direction_bucket(polar[:, 0]), (polar[:, 2] > c.near_m).astype(np.int8)], 1)
        path = backend.shortest_path(sg.start, sg.goal)
        walls0 = walls_between(plan, sg.start, sg.goal) if plan is not None else None
        episode = {
            "start_m": sg.start.tolist(), "start_yaw_rad": sg.start_yaw, "goal_m": sg.goal.tolist(),
            "source_m": source_xyz.tolist(), "label": info["label"], "lufs": info["lufs"],
            "geodesic_m": sg.geodesic_m, "euclidean_m": sg.euclidean_m, "reference_path_m": path.tolist(),
            "n_steps": len(poses), "sample_rate": int(c.sample_rate), "window_samples": round(c.window_s * c.sample_rate),
            "ear_height_m": c.ear_height_m, "agent_radius_m": c.agent_radius_m, "cell_m": c.cell_m,
            "forward_step_m": 0.25, "turn_deg": 15.0, "r_min_m": 0.3, "wall_loss_db": c.wall_loss_db,
            "cross_room_gain": info["cross_room_gain"], "absorption": info["absorption"],
            "interferers": info["interferers"], "backend": backend.name, "near_m": c.near_m,
            "vlnce": info.get("vlnce"),
            "task_text": f"Navigate to the sound of the {info['label'].replace('_', ' ')} and stop there.",
        }  # fmt: skip
        fields: dict[str, Any] = {
            "foa": Audio(foa.astype(np.float32), int(c.sample_rate), comment=ambisonics_comment("ambix")),
            "poses": poses.astype(np.float32),
            "actions": actions.astype(np.int8),
            "waypoints": wp,
            "stop": stop,
            "source": source,
            "buckets": buckets.astype(np.int8),
            "episode": episode,
            "scene": plan.to_json()
            if plan is not None
            else {"mesh": str(c.scene) or (info.get("vlnce") or {}).get("scene_id")},
        }
        if plan is not None:
            fields["mesh"] = Blob(glb_bytes(plan), "glb")
        if c.frames:
            fields["rgb"], fields["depth"] = self._frames(plan, poses)
        params = {
            "structural": {"rooms": len(plan.rooms) if plan else None, "geodesic_start_m": sg.geodesic_m,
                           "n_steps": len(poses), "label": info["label"], "walls_crossed_at_start": walls0},
            "surface": {"source_lufs": info["lufs"], "source_z_m": float(source_xyz[2]),
                        "wall_absorption": info["absorption"], "interferer_snr_db": [i["snr_db"] for i in info["interferers"]]},
        }  # fmt: skip
        return Episode(fields, params=params)

    def _frames(self, plan, poses) -> tuple[Video, np.ndarray]:
        """RGB video (N, H, W, 3) and float16 depth (N, H, W) from the agent's eye at every pose."""
        from simkit.sims.nav.frames import FrameRenderer

        c = self.config
        if plan is None:
            raise SampleRejected("frames need a procedural plan (user meshes are not rendered yet)")
        cam = FrameRenderer(
            [(b.lo, b.hi, b.kind) for b in plan.boxes], plan.size, c.image_width, c.image_height
        )
        shots = [cam.render(p, c.ear_height_m) for p in poses]
        rgb = np.stack([s[0] for s in shots])
        depth = np.minimum(np.stack([s[1] for s in shots]), 100.0).astype(np.float16)  # sky -> 100 m
        return Video(rgb, fps=4.0), depth

    def backend_versions(self) -> dict[str, str]:
        return module_versions("numpy", "scipy", "trimesh", "shapely", "soundfile")

    # -- validate / inspect ------------------------------------------------------------------------
    def check(self, sample: dict[str, Any]) -> list[str]:
        """Shapes and frame counts, waypoints/buckets recomputed from the poses, the reference path's
        end at the goal, geodesic labels against a rebuilt backend, and the DOA of the FOA windows."""
        from simkit.generators.nav.checks import check_sample

        return check_sample(sample, self.config)

    def inspect(self, samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
        """One PNG per sample: the floor plan, the path, the source and the agent's heading over time."""
        from simkit.generators.nav.checks import draw_samples

        return draw_samples(samples, out_dir)
