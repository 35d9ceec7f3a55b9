"""Copy the 40 Hebero BDDL files out of LIBERO's source archive on PyPI into simkit's package data.

LIBERO's task files (MIT) ship in the ``libero`` sdist on PyPI, whose own dependency list is heavy;
simkit never installs it. This script reads the files straight out of the archive:

    pip download --no-deps --no-binary :all: libero==0.1.1 -d /tmp/libero-src
    python tools/bundle_libero_bddl.py /tmp/libero-src/libero-0.1.1.tar.gz

It checks the archive's sha256 against :data:`ARCHIVE_SHA256` (pass ``--any-sha`` to accept
another release), writes ``simkit/data/hebero/bddl_files/<libero_dir>/<task>.bddl`` for the tasks
listed in ``simkit/data/hebero/tasks.json``, LIBERO's LICENSE beside them, and ``SOURCE.json``
(archive name, archive sha256, per-file sha256). ``simkit compile hebero`` without
``--libero-root`` reads these files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tarfile
from pathlib import Path

ARCHIVE = "libero-0.1.1.tar.gz"
ARCHIVE_SHA256 = "31f17f69ced68e2ecde630353dda924372b0b7b647991e21eade231b241fc373"
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "simkit" / "data" / "hebero"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archive", type=Path, help="the downloaded libero sdist (.tar.gz)")
    ap.add_argument("--any-sha", action="store_true", help="accept an archive with another sha256")
    a = ap.parse_args()
    raw = a.archive.read_bytes()
    sha = hashlib.sha256(raw).hexdigest()
    if sha != ARCHIVE_SHA256 and not a.any_sha:
        print(f"{a.archive}: sha256 {sha} is not the recorded {ARCHIVE_SHA256}", file=sys.stderr)
        return 2
    table = json.loads((DATA / "tasks.json").read_text())
    out = DATA / "bddl_files"
    files: dict[str, str] = {}
    with tarfile.open(a.archive) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
        for suite in table["suites"].values():
            for task in suite["tasks"]:
                rel = f"{suite['libero_dir']}/{task}.bddl"
                member = members[f"libero/libero/bddl_files/{rel}"]
                data = tar.extractfile(member).read()  # type: ignore[union-attr]
                dst = out / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_bytes(data)
                files[rel] = hashlib.sha256(data).hexdigest()
        lic = tar.extractfile(members["LICENSE"]).read()  # type: ignore[union-attr]
    (out / "LICENSE").write_bytes(lic)
    source = {
        "package": "libero",
        "archive": a.archive.name,
        "archive_sha256": sha,
        "license": "MIT (LICENSE beside this file)",
        "files": dict(sorted(files.items())),
    }
    (out / "SOURCE.json").write_text(json.dumps(source, indent=1) + "\n")
    print(f"wrote {len(files)} BDDL files from {a.archive.name} (sha256 {sha[:12]}...) -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
