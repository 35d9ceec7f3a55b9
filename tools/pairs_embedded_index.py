"""Write ``simkit/data/pairs/embedded_index.json``: the filter verdicts of the embedded mesh source.

Run once after a change of the filter or of the embedded packages (LIBERO asset wheels, pybullet_data):

    python tools/pairs_embedded_index.py

Paths are stored relative to each package root (``<root>/<relative path>`` in ``asset_id``) so the index
is portable; :func:`simkit.assets.meshes.embedded_index` resolves them on the installed machine.
"""

from pathlib import Path

from rich.progress import track

from simkit.assets.meshes import save_index, scan

OUT = Path(__file__).resolve().parent.parent / "simkit" / "data" / "pairs" / "embedded_index.json"


def main() -> None:
    records = scan("embedded", progress=lambda xs: track(xs, description="scanning"))
    for r in records:
        r.path = r.asset_id
    save_index(records, OUT, "embedded")
    ok = sum(r.accepted for r in records)
    print(f"{OUT}: {len(records)} meshes, {ok} accepted")


if __name__ == "__main__":
    main()
