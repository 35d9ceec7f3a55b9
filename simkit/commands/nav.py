"""``simkit eval nav`` (alias ``eval foa-nav``): closed-loop sound-guided navigation on ``simkit/FoaNav-v0``.

Top-level imports stay light (typer, pathlib); the env and the evaluation load inside the command.
"""

from __future__ import annotations

from pathlib import Path

import typer

from simkit.core.extras import needs_extra


def _eval_nav(
    policy: str = typer.Option(
        "oracle",
        "--policy",
        help="oracle | oracle-waypoints | random | sound | module:name (a policy object or class, or an "
        "act(obs) function) | module:name() (a factory called once, returning one)",
    ),
    episodes: int = typer.Option(10, "--episodes", min=1, help="number of episodes"),
    seed: int = typer.Option(0, "--seed", min=0, help="episode i uses scene/start/goal seed SEED + i"),
    success_radius: float = typer.Option(
        3.0, "--success-radius", min=0.0, help="success radius, metres (VLN-CE: 3)"
    ),
    max_steps: int = typer.Option(500, "--max-steps", min=1, help="action limit per episode"),
    max_decisions: int = typer.Option(
        50, "--max-decisions", min=1, help="waypoint-decision limit per episode"
    ),
    window_s: float = typer.Option(
        0.25, "--window-s", min=0.05, max=2.0, help="FOA window per step, seconds"
    ),
    frames: bool = typer.Option(
        False, "--frames/--no-frames", help="render RGB + depth observations (MuJoCo)"
    ),
    sounds: str = typer.Option("", "--sounds", help="sound bank directory (default: procedural)"),
    scene: Path | None = typer.Option(
        None, "--scene", help="a scene mesh (GLB/OBJ/PLY) instead of procedural plans"
    ),
    out: Path | None = typer.Option(None, "--out", help="write per-episode rows and the summary as JSON"),
) -> None:
    """Run a navigation policy closed loop and print SR, SPL, SoftSPL, NE, OS, TL (Habitat's definitions).

    Exit 0 on success, 2 on bad input.
    """
    import json

    from simkit.commands import check_out, fail, progress_bar, say
    from simkit.core.errors import SimkitError

    check_out(out)  # before the episodes run, not after
    if scene is not None and not scene.is_file():
        fail(f"--scene {scene}: no such file")
    if sounds:
        from simkit.assets.sounds import bank_dir_problem

        problem = bank_dir_problem(sounds)
        if problem:
            fail(f"--sounds: {problem}")
    try:
        from simkit.eval.nav.evaluate import evaluate
        from simkit.eval.nav.policies import make_policy

        make_policy(policy)  # fail fast on a bad name
        env_kwargs = {"success_radius_m": success_radius, "max_steps": max_steps, "window_s": window_s,
                      "frames": frames, "sounds": sounds, "scene": str(scene) if scene else None}  # fmt: skip
        with progress_bar(f"{policy} on {episodes} episodes", episodes) as advance:
            res = evaluate(policy, episodes, seed, env_kwargs, max_decisions, on_episode=advance)
    except SimkitError as exc:
        fail(str(exc))
        return
    s = res["summary"]
    typer.echo(f"policy {policy}  episodes {episodes}  steps {res['steps']}  {res['seconds']:.1f} s  "
               f"({res['steps'] / max(res['seconds'], 1e-9):.0f} steps/s)")  # fmt: skip
    typer.echo(f"SR {s['SR']:.3f}  SPL {s['SPL']:.3f}  SoftSPL {s['SoftSPL']:.3f}  NE {s['NE']:.2f} m  "
               f"OS {s['OS']:.3f}  TL {s['TL']:.2f} m")  # fmt: skip
    if out is not None:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(res, indent=1))
        except OSError as exc:
            fail(f"--out {out}: cannot write ({exc})")
        say(f"wrote {out}")


def register(groups: dict) -> None:
    """Add ``eval nav`` (and its alias ``eval foa-nav``) to the ``eval`` group."""
    groups["eval"].command("nav")(needs_extra("nav")(_eval_nav))
    groups["eval"].command("foa-nav", hidden=True)(needs_extra("nav")(_eval_nav))
