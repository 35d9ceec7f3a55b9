"""``foa-nav`` validation (``simkit validate``) and pictures (``simkit inspect``).

:func:`check_sample` recomputes every label from independent evidence: waypoints, stop flags, source
directions and buckets from the stored poses and source position; the action semantics from
consecutive poses; the scene (a procedural plan: no wall in a doorway and one walkable island; a
user mesh or VLN-CE scene, rebuilt from the config's paths when present: start and goal on one
walkable island, the dataset's reference path clear of walls), the stored shortest path inside the
walkable area and the start-goal geodesic distance, from a backend rebuilt from the stored scene;
and the source direction from the rendered FOA (DirAC intensity of each window, for windows with
no wall between agent and source and no interferer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

SHAPES = {"poses": (3,), "actions": (), "waypoints": (8, 3), "stop": (8,), "source": (4,), "buckets": (2,)}
#: DOA tolerance (median over the windows with no wall in between), degrees: in free field the
#: broadband intensity direction is exact to rounding (measured 0.0 deg); image sources bias it towards
#: their energetic centre (measured up to 14 deg median with order 2 in 2.5-5 m rooms)
DOA_TOL_DEG = 3.0
DOA_TOL_REFLECTIONS_DEG = 25.0


def _shape_problems(sample: dict[str, Any]) -> tuple[list[str], int]:
    problems = []
    n = int(np.asarray(sample["poses"]).shape[0]) if "poses" in sample else -1
    for name, tail in SHAPES.items():
        a = sample.get(name)
        if a is None:
            problems.append(f"{name} is missing")
        elif tuple(a.shape) != (n, *tail):
            problems.append(f"{name} has shape {tuple(a.shape)}, expected {(n, *tail)}")
    return problems, n


def _motion_problems(poses: np.ndarray, actions: np.ndarray, ep: dict) -> list[str]:
    """Each step's pose change is what its action does (forward <= 0.25 m at constant yaw, turns of
    15 deg in place, stop only at the end)."""
    from simkit.sims.nav.base import MOVE_FORWARD, STOP, TURN_LEFT, wrap_angle

    problems = []
    if actions[-1] != STOP or np.any(actions[:-1] == STOP):
        problems.append("actions must end with one stop (0) and have no earlier stop")
    d = np.linalg.norm(np.diff(poses[:, :2], axis=0), axis=1)
    dyaw = wrap_angle(np.diff(poses[:, 2]).astype(np.float64))
    turn = np.radians(ep.get("turn_deg", 15.0))
    for k, a in enumerate(actions[:-1]):
        if a == MOVE_FORWARD:
            ok = d[k] <= ep.get("forward_step_m", 0.25) + 1e-4 and abs(dyaw[k]) < 1e-4
        else:
            want = turn if a == TURN_LEFT else -turn
            ok = d[k] < 1e-4 and abs(wrap_angle(dyaw[k] - want)) < 1e-4
        if not ok:
            problems.append(f"step {k}: pose change disagrees with action {int(a)}")
            break
    return problems


def _label_problems(sample: dict[str, Any], ep: dict) -> list[str]:
    from simkit.sims.nav.episodes import direction_bucket, source_in_agent_frame, waypoint_targets

    problems = []
    poses = np.asarray(sample["poses"], dtype=np.float64)
    wp, stop = waypoint_targets(poses)
    if not np.allclose(wp, sample["waypoints"], atol=1e-4) or not np.array_equal(stop, sample["stop"]):
        problems.append("waypoints or stop flags disagree with the stored poses")
    polar = source_in_agent_frame(poses, ep["source_m"], ep["ear_height_m"])
    src = np.asarray(sample["source"], dtype=np.float64)
    daz = np.abs((src[:, 0] - polar[:, 0] + np.pi) % (2 * np.pi) - np.pi)
    if daz.max() > 1e-3 or not np.allclose(src[:, 1:3], polar[:, 1:], atol=1e-3):
        problems.append("source direction/distance disagrees with the poses and the source position")
    want = np.stack([direction_bucket(src[:, 0]), (src[:, 2] > ep["near_m"]).astype(np.int8)], 1)
    if not np.array_equal(want, sample["buckets"]):
        problems.append("direction/distance buckets disagree with the source labels")
    if np.linalg.norm(poses[-1, :2] - np.asarray(ep["goal_m"])) > 0.25 + 1e-6:
        problems.append("the reference path does not end within 0.25 m of the goal")
    if np.any(src[:, 3] + 1e-3 < src[:, 2] * np.cos(src[:, 1]) - 1e-3):
        problems.append("a geodesic distance is shorter than the straight horizontal distance")
    return problems


#: backends of user scenes rebuilt by the checks (the last two: a corpus holds few scenes)
_SCENE_BACKENDS: dict[tuple, Any] = {}


def _user_scene_backend(ep: dict, scene: dict, config) -> tuple[Any, str]:
    """(backend or None when the mesh is not found here, the scene's name for messages) of a user
    mesh (``scene``) or a VLN-CE scene (``scenes_dir`` / scene id), rebuilt as at generation."""
    from simkit.scenes.nav.meshes import load_scene_mesh
    from simkit.sims.nav import MESH_BACKENDS, make_backend
    from simkit.sims.nav.vlnce import resolve_scene

    vl = ep.get("vlnce") or {}
    if vl:
        label = f"VLN-CE episode {vl.get('episode_id')} (scene {vl.get('scene_id')})"
        path = resolve_scene(str(vl.get("scene_id")), getattr(config, "scenes_dir", "") or ".")
        floor_z = vl.get("floor_z_m")
    else:
        label = f"scene {scene.get('mesh')}"
        path = Path(str(scene.get("mesh"))) if scene.get("mesh") else None
        floor_z = getattr(config, "floor_height_m", None)
    if path is None or not Path(path).is_file():
        return None, label
    name = str(ep["backend"]) if ep.get("backend") in MESH_BACKENDS else "poly"
    st = Path(path).stat()  # a mesh rewritten in place is rebuilt
    key = (str(path), st.st_mtime_ns, st.st_size, floor_z, ep["agent_radius_m"], name, ep.get("cell_m", 0.05))
    if key not in _SCENE_BACKENDS:
        if len(_SCENE_BACKENDS) >= 2:
            _SCENE_BACKENDS.pop(next(iter(_SCENE_BACKENDS)))
        _SCENE_BACKENDS[key] = make_backend(
            name, mesh=load_scene_mesh(path), agent_radius=key[4], cell=key[6], floor_z=floor_z
        )
    return _SCENE_BACKENDS[key], label


def _walk_problems(be, ep: dict) -> list[str]:
    """The scene's walkable area against the episode: start and goal on one island (a connected
    walkable area between them), the stored shortest path inside the walkable area, the dataset's
    reference path (VLN-CE) inside the free space (a wall or closed door across a doorway cuts it),
    and the start-goal geodesic distance recomputed."""
    start, goal = np.asarray(ep["start_m"], float), np.asarray(ep["goal_m"], float)
    i, j = be.island(start), be.island(goal)
    if i < 0 or j < 0 or i != j:
        return [f"start and goal are not on one walkable island at radius {ep['agent_radius_m']} m "
                f"(islands {i} and {j}; -1 = off the walkable area)"]  # fmt: skip
    out = []
    sees = getattr(be, "line_of_sight", None)
    for name, pts, body in (
        ("shortest path", ep.get("reference_path_m") or [], True),
        ("VLN-CE reference path", (ep.get("vlnce") or {}).get("reference_path_m") or [], False),
    ):
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        bad = [k for k in range(len(pts) - 1) if sees is not None and not sees(pts[k], pts[k + 1], body=body)]
        if bad:
            k = bad[0]
            out.append(f"the {name} leaves the {'walkable area' if body else 'free space'} between its "
                       f"points {k} {pts[k].round(2).tolist()} and {k + 1} {pts[k + 1].round(2).tolist()} "
                       f"(a wall across a doorway?)")  # fmt: skip
    geo = be.geodesic_distance(start, goal)
    if abs(geo - ep["geodesic_m"]) > 1e-6:
        out.append(f"start-goal geodesic {ep['geodesic_m']:.3f} m, recomputed {geo:.3f} m")
    return out


def _geodesic_problems(sample: dict[str, Any], ep: dict, config=None) -> list[str]:
    """The scene checks: a procedural plan's doorways and connectivity (:func:`plan_problems`) and its
    backend rebuilt from the stored plan; a user mesh or VLN-CE scene rebuilt from the paths in the
    config (skipped when its mesh is not on this machine); then :func:`_walk_problems`."""
    scene = sample.get("scene")
    if not isinstance(scene, dict):
        return []
    from simkit.sims.nav import MESH_BACKENDS, make_backend

    if "rooms" not in scene:
        be, label = _user_scene_backend(ep, scene, config)
        return [] if be is None else [f"{label}: {m}" for m in _walk_problems(be, ep)]
    from simkit.scenes.nav.floorplan import plan_from_json, plan_mesh, plan_problems

    plan = plan_from_json(scene)
    out = [f"floor plan: {m}" for m in plan_problems(plan, ep["agent_radius_m"])]
    name = ep.get("backend", "grid")
    if name not in MESH_BACKENDS:
        return out
    be = make_backend(name, mesh=plan_mesh(plan), agent_radius=ep["agent_radius_m"], cell=ep["cell_m"])
    out += _walk_problems(be, ep)
    if not out and abs(float(sample["source"][0, 3]) - ep["geodesic_m"]) > 1e-3:
        out.append(
            f"start-goal geodesic {ep['geodesic_m']:.3f} m, the first step stores {sample['source'][0, 3]:.3f} m"
        )
    return out


def _window_azimuth(x: np.ndarray, win: int, k: int) -> float:
    """Intensity-vector azimuth (radians, listener frame) of window ``k`` of an FOA stream."""
    from simkit.renderers.foa.windows import intensity_direction

    return intensity_direction(x[k * win : (k + 1) * win].astype(np.float64))[0]


def _audio_problems(sample: dict[str, Any], ep: dict, config) -> list[str]:
    foa = sample.get("foa")
    if foa is None:
        return ["foa is missing"]
    x, sr = foa
    n, win = len(sample["poses"]), int(ep["window_samples"])
    problems = []
    want_sr = int(getattr(config, "sample_rate", ep["sample_rate"]))
    if sr != ep["sample_rate"] or sr != want_sr:
        problems.append(f"foa sample rate {sr} Hz, episode {ep['sample_rate']} Hz, config {want_sr} Hz")
    if x.ndim != 2 or x.shape != (n * win, 4):
        return problems + [f"foa has shape {x.shape}, expected ({n * win}, 4): {n} windows of {win} samples"]
    if float(np.max(np.abs(x))) > 1.0:
        problems.append("foa peak exceeds 1.0")
    if ep["interferers"]:
        return problems
    direct = [k for k in range(n) if ep["cross_room_gain"][k] == 1.0 and np.any(x[k * win : (k + 1) * win])]
    if direct:
        err = []
        for k in direct:
            az = _window_azimuth(x, win, k)
            err.append(abs((az - float(sample["source"][k, 0]) + np.pi) % (2 * np.pi) - np.pi))
        med = float(np.degrees(np.median(err)))
        if med > (DOA_TOL_DEG if ep.get("absorption") is None else DOA_TOL_REFLECTIONS_DEG):
            problems.append(f"FOA direction of arrival is {med:.1f} deg (median) off the source direction")
    return problems


def _frame_problems(sample: dict[str, Any], ep: dict) -> list[str]:
    """Frame count, and the depth at the image centre against the distance along the optical axis to
    the first box at eye height (ray cast in the stored plan), median error <= 5 cm."""
    rgb, depth = sample.get("rgb"), sample.get("depth")
    if rgb is None and depth is None:
        return []
    n = len(sample["poses"])
    problems = [
        f"{k} has {len(v)} frames, expected {n}"
        for k, v in (("rgb", rgb), ("depth", depth))
        if v is not None and len(v) != n
    ]
    scene = sample.get("scene")
    if problems or depth is None or not isinstance(scene, dict) or "rooms" not in scene:
        return problems
    from simkit.scenes.nav.floorplan import plan_from_json, ray_distance

    plan = plan_from_json(scene)
    h, w = depth.shape[1:3]
    err = []
    for k, p in enumerate(np.asarray(sample["poses"], dtype=np.float64)):
        want = ray_distance(plan, p[:2], p[2], ep["ear_height_m"])
        got = float(np.mean(depth[k, h // 2 - 1 : h // 2 + 1, w // 2 - 1 : w // 2 + 1]))
        if np.isfinite(want) and want < 50:
            err.append(abs(got - want))
    if err and float(np.median(err)) > 0.05:
        problems.append(
            f"depth at the image centre is {np.median(err):.2f} m (median) off the ray-cast distance"
        )
    return problems


def _mesh_problems(sample: dict[str, Any]) -> list[str]:
    """The stored GLB opens and spans the stored plan (footprint and wall height, after y-up -> z-up)."""
    blob, scene = sample.get("mesh"), sample.get("scene")
    if blob is None or not isinstance(scene, dict) or "size_m" not in scene:
        return []
    import io

    import trimesh

    from simkit.scenes.nav.meshes import Y_UP_TO_Z_UP

    try:
        mesh = trimesh.load(io.BytesIO(bytes(blob)), file_type="glb", force="mesh")
        mesh.apply_transform(Y_UP_TO_Z_UP)
    except Exception as exc:
        return [f"mesh (GLB) does not open: {type(exc).__name__}: {exc}"]
    (x0, y0, z0), (x1, y1, z1) = mesh.bounds
    w, d = scene["size_m"]
    if (
        abs(x1 - x0 - (w + 0.1)) > 1e-3
        or abs(y1 - y0 - (d + 0.1)) > 1e-3
        or abs(z1 - scene["wall_height_m"]) > 1e-3
    ):
        return [
            f"mesh bounds {mesh.bounds.tolist()} do not match the plan ({w} x {d} m, walls {scene['wall_height_m']} m)"
        ]
    return []


def check_sample(sample: dict[str, Any], config) -> list[str]:
    """All ``foa-nav`` checks of one stored sample (module docstring); returns the problems found."""
    ep = sample.get("episode")
    if not isinstance(ep, dict):
        return ["episode is missing or not a JSON object"]
    problems, n = _shape_problems(sample)
    if problems or n < 1:
        return problems or ["episode has no steps"]
    if n != ep.get("n_steps"):
        problems.append(f"{n} poses, episode says {ep.get('n_steps')} steps")
    poses = np.asarray(sample["poses"], dtype=np.float64)
    if np.linalg.norm(poses[0, :2] - np.asarray(ep["start_m"])) > 1e-4:
        problems.append("the first pose is not the start")
    problems += _motion_problems(poses, np.asarray(sample["actions"]), ep)
    problems += _label_problems(sample, ep)
    problems += _audio_problems(sample, ep, config)
    problems += _frame_problems(sample, ep)
    if not problems:
        problems += _mesh_problems(sample) + _geodesic_problems(sample, ep, config)
    return problems


def draw_samples(samples: list[dict[str, Any]], out_dir: Path) -> list[Path]:
    """``nav_<key>.png`` per sample: walls and furniture, reference path, agent positions coloured by
    time with heading arrows, start and source (legend below the plan, so no corner is hidden); beside it the source azimuth (label vs FOA DOA)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for smp in samples:
        ep, scene = smp.get("episode"), smp.get("scene")
        if not isinstance(ep, dict) or smp.get("poses") is None:
            continue
        poses = np.asarray(smp["poses"], dtype=np.float64)
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5), dpi=100, gridspec_kw={"width_ratios": [3, 2]})
        for b in (scene or {}).get("boxes", []):
            col = "0.35" if b["kind"] == "wall" else "tab:brown"
            ax.add_patch(
                plt.Rectangle(b["lo"][:2], b["hi"][0] - b["lo"][0], b["hi"][1] - b["lo"][1], color=col)
            )
        ref = np.asarray(ep["reference_path_m"])
        ax.plot(ref[:, 0], ref[:, 1], "k--", lw=1, label="shortest path")
        t = np.arange(len(poses))
        ax.scatter(poses[:, 0], poses[:, 1], c=t, cmap="viridis", s=8, label="agent (colour = step)")
        every = max(1, len(poses) // 25)
        ax.quiver(poses[::every, 0], poses[::every, 1], np.cos(poses[::every, 2]), np.sin(poses[::every, 2]),
                  t[::every], cmap="viridis", scale=25, width=0.004)  # fmt: skip
        ax.plot(*ep["start_m"], "go", ms=8, label="start")
        ax.plot(*ep["source_m"][:2], "r*", ms=15, label=f"source: {ep['label']}")
        ax.set_aspect("equal")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        # below the plan, outside it: inside, any corner could hide a room
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
        ax.set_title(f"{smp.get('__key__', '')}: geodesic {ep['geodesic_m']:.1f} m, {len(poses)} steps")
        src = np.asarray(smp["source"], dtype=np.float64)
        ax2.plot(t, np.degrees(src[:, 0]), "r-", label="source azimuth (label)")
        foa = smp.get("foa")
        if foa is not None:
            x, win = foa[0], int(ep["window_samples"])
            doa = [np.degrees(_window_azimuth(x, win, k)) for k in t]
            ax2.plot(t, doa, "k.", ms=3, label="FOA intensity DOA")
        ax2.set_ylim(-180, 180)
        ax2.set_xlabel("step")
        ax2.set_ylabel("azimuth (deg, +90 = left)")
        ax2.legend(fontsize=7)
        ax2.grid(alpha=0.3)
        p = out_dir / f"nav_{smp.get('__key__', len(paths))}.png"
        fig.tight_layout()
        fig.savefig(p, bbox_inches="tight")  # the legend below the plan included
        plt.close(fig)
        paths.append(p)
    return paths
