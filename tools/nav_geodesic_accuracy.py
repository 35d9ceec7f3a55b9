"""Geodesic error of the ``grid`` and ``poly`` navigation backends on the hand-built rooms of
``tests/test_nav_poly.py`` (a wall with a 1 m gap, pillars, a corridor one agent-width wide, an L room),
against the analytic tangent-arc length, and the per-step error along the oracle's walk.

For every query (start, goal) of ``CASES`` both backends' ``geodesic_distance`` is compared with
``wrapped_length``; then, in the room with the gap, the oracle walks each query and at every pose the
backends' distance to the goal is compared with the poly backend's (the exact one, to its stated
bound): that is the per-step geodesic a corpus stores. Usage::

    python tools/nav_geodesic_accuracy.py [--markdown out.md]
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np


def _cases():
    path = Path(__file__).resolve().parents[1] / "tests" / "test_nav_poly.py"
    spec = importlib.util.spec_from_file_location("nav_poly_cases", path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod


def _rel(be, a, b, exact: float) -> float:
    """Relative error (%) of the backend's geodesic distance; nan when it finds no path."""
    from simkit.sims.nav.base import Unreachable

    try:
        return (be.geodesic_distance(a, b) - exact) / exact * 100
    except Unreachable:
        return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args()
    from simkit.sims.nav import make_backend
    from simkit.sims.nav.episodes import follow_path

    mod = _cases()
    rows, step_err = [], {"grid": []}
    for name, floors, solids, queries in mod.CASES:
        mesh = mod.boxes_mesh(floors, solids)
        bes = {k: make_backend(k, mesh=mesh, agent_radius=mod.R) for k in ("grid", "poly")}
        for a, b, corners in queries:
            exact = mod.wrapped_length(a, corners, b)
            rel = {k: _rel(be, a, b, exact) for k, be in bes.items()}
            rows.append((name, a, b, exact, rel["grid"], rel["poly"]))
            if name.startswith("wall"):
                poses, _ = follow_path(bes["poly"], np.asarray(a), 0.0, np.asarray(b), 500, 0.1)
                for p in poses[:, :2]:
                    ref = bes["poly"].geodesic_distance(p, b)
                    if bes["grid"].is_navigable(p):
                        step_err["grid"].append((bes["grid"].geodesic_distance(p, b) - ref, ref))
    lines = [
        "| room | start | goal | exact (m) | grid error | poly error |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {n} | {a} | {b} | {e:.4f} | {'no path*' if np.isnan(g) else f'{g:+.2f} %'} | {p:+.4f} % |"
        for n, a, b, e, g, p in rows
    ]
    g = np.array([r[4] for r in rows])
    ok = g[~np.isnan(g)]
    lines += ["", f"- grid: median {np.median(ok):+.2f} %, max {ok.max():+.2f} % over the {ok.size} queries it "
                  f"finds a path for ({int(np.isnan(g).sum())} of {g.size} without one)"]  # fmt: skip
    p = np.array([r[5] for r in rows])
    lines += [f"- poly: median {np.median(p):+.4f} %, max {p.max():+.4f} % over {p.size} queries"]
    lines.append(
        "- \\* no path: an end point off the grid's walkable area, or the corridor closed on the grid"
    )
    v = np.asarray(step_err["grid"])
    rel = v[:, 0] / np.maximum(v[:, 1], 1e-9) * 100
    lines.append(f"- per-step distance to the goal along the oracle's walks (room with the gap), grid - poly: "
                 f"max {v[:, 0].max():+.3f} m ({rel.max():+.1f} %), median {np.median(v[:, 0]):+.3f} m "
                 f"over {len(v)} poses")  # fmt: skip
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")


if __name__ == "__main__":
    main()
