"""The planner's success per task from a ``hebero-demos`` corpus, as a markdown table.

Reads ``CORPUS/corpus.json`` (``summary.planner_success``: per task the episodes, the stored demos and
the attempts, i.e. stored demos plus the rejected redraws; written by ``simkit generate hebero-demos``
with ``require_success``) and prints one row per task, then per suite the demos stored and the tasks
whose planner success is at least ``--threshold``. With ``--docs FILE`` the table replaces the text
between ``<!-- corpus-table -->`` and ``<!-- /corpus-table -->`` in FILE instead.

Usage::

    python tools/hebero_corpus_table.py CORPUS [--threshold 0.9] [--docs docs/hebero.md]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

MARK = ("<!-- corpus-table -->", "<!-- /corpus-table -->")


def table(corpus: Path, threshold: float) -> str:
    """The markdown table (str) of ``corpus``'s per-task planner success.

    Raises:
        SystemExit: no corpus.json, or one without ``summary.planner_success``.
    """
    path = corpus / "corpus.json"
    try:
        meta = json.loads(path.read_text())
        rows = meta["summary"]["planner_success"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(
            f"{path}: not a hebero-demos corpus with a planner summary ({type(exc).__name__})"
        ) from None
    lines = ["| task | demos stored | attempts | planner success |", "| --- | --- | --- | --- |"]
    suites: dict[str, list[int]] = {}
    for task, e in rows.items():
        rate = e["ok"] / e["attempts"] if e["attempts"] else 0.0
        lines.append(f"| `{task}` | {e['ok']}/{e['episodes']} | {e['attempts']} | {rate:.2f} |")
        s = suites.setdefault(task.split("/")[0], [0, 0, 0, 0])
        s[0] += e["ok"]
        s[1] += e["episodes"]
        s[2] += rate >= threshold
        s[3] += 1
    total = [sum(v[i] for v in suites.values()) for i in range(4)]
    lines.append("")
    per = "; ".join(
        f"`{k}` {v[0]}/{v[1]} demos, {v[2]}/{v[3]} tasks >= {threshold:.0%}" for k, v in suites.items()
    )
    lines.append(
        f"Per suite: {per}. All: {total[0]}/{total[1]} demos, {total[2]} of {total[3]} tasks at >= {threshold:.0%}."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--threshold", type=float, default=0.9)
    ap.add_argument("--docs", type=Path, default=None, help="replace the marked table in this file")
    args = ap.parse_args(argv)
    text = table(args.corpus, args.threshold)
    if args.docs is None:
        sys.stdout.write(text)
        return 0
    doc = args.docs.read_text()
    pat = re.compile(re.escape(MARK[0]) + r".*?" + re.escape(MARK[1]), re.S)
    if not pat.search(doc):
        raise SystemExit(f"{args.docs}: no {MARK[0]} ... {MARK[1]} block")
    args.docs.write_text(pat.sub(lambda _: f"{MARK[0]}\n\n{text}\n{MARK[1]}", doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
