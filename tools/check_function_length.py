"""Report functions in simkit/ longer than a limit (default 100 lines, decorators and docstring included).

Usage: python tools/check_function_length.py [--limit N] [PATH ...]; exits 1 when any function is longer.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: known long functions awaiting their split ("file:qualified name"); remove an entry when it lands
KNOWN_LONG: set[str] = set()


def long_functions(paths: list[Path], limit: int) -> list[tuple[str, int, str, int]]:
    """(file, line, qualified name, length in lines) of every function longer than ``limit`` lines."""
    found = []
    for path in paths:
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            tree = ast.parse(f.read_text(), filename=str(f))
            found += _walk(tree, f, limit, "")
    return found


def _walk(node: ast.AST, f: Path, limit: int, prefix: str) -> list[tuple[str, int, str, int]]:
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                length = (child.end_lineno or child.lineno) - first + 1
                if length > limit:
                    out.append(
                        (str(f.relative_to(ROOT) if f.is_relative_to(ROOT) else f), first, name, length)
                    )
            out += _walk(child, f, limit, name + ".")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("paths", nargs="*", type=Path, default=[ROOT / "simkit"])
    args = ap.parse_args()
    found = long_functions(args.paths, args.limit)
    new = [f for f in found if f"{f[0]}:{f[2]}" not in KNOWN_LONG]
    for file, line, name, length in found:
        known = "" if (file, line, name, length) in new else " (known, awaiting its split)"
        print(f"{file}:{line}: {name} is {length} lines (limit {args.limit}){known}")
    for entry in sorted(KNOWN_LONG - {f"{f[0]}:{f[2]}" for f in found}):
        print(f"note: {entry} is no longer over {args.limit} lines; remove it from KNOWN_LONG")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
