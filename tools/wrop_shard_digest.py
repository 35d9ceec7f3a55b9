"""Digests of small WROP corpora, to show that a change to the task language or the renderer leaves the
existing generators' shards byte-identical.

Renders ``--n`` episodes of ``--generator`` (default: every registered generator once) at 64 x 36 pixels
and 24 frames with Workbench into a temporary folder, and prints one ``shard sha256`` line per shard tar
(the rows files hold timings, so they are left out). With ``--compare FILE`` (the output of an earlier
run) it exits 1 when a digest differs. Usage::

    python tools/wrop_shard_digest.py > before.txt        # on the old tree
    python tools/wrop_shard_digest.py --compare before.txt  # on the new tree
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path

from simkit.executors.run import generate_corpus
from simkit.generators.wrop import WropGenerator

SMALL = {"frames": 24, "width": 64, "height": 36, "visibility_points": 64}


def digests(generator: str, n: int, out: Path) -> list[str]:
    """``shard sha256`` lines of an ``n``-episode corpus of ``generator`` written to ``out``."""
    s = generate_corpus(
        "wrop", n, out, seed=0, config={"generator": generator, **SMALL}, workers=1, progress=False
    )
    if s.failed:
        raise SystemExit(f"{s.failed} episodes failed")
    return [
        f"{p.name} {hashlib.sha256(p.read_bytes()).hexdigest()}"
        for p in sorted((out / "shards").glob("*.tar"))
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generator", default="all", help="FAMILY/NAME, a family or all")
    ap.add_argument("--n", type=int, default=None, help="episodes (default: one per selected generator)")
    ap.add_argument(
        "--compare", type=Path, default=None, help="digests of an earlier run; exit 1 on a change"
    )
    args = ap.parse_args()
    n = args.n or len(WropGenerator.catalogue_ids(args.generator))
    with tempfile.TemporaryDirectory(prefix="wrop-digest-") as tmp:
        lines = digests(args.generator, n, Path(tmp) / "corpus")
    print("\n".join(lines))
    if args.compare is not None:
        old = args.compare.read_text().split()
        if old != " ".join(lines).split():
            print(f"shards differ from {args.compare}", file=sys.stderr)
            return 1
        print(f"identical to {args.compare}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
