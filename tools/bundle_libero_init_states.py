"""Bundle LIBERO's fixed initial states of the 40 Hebero tasks into simkit/data/hebero/init_files/.

    python tools/bundle_libero_init_states.py INIT_FILES_DIR LIBERO_DUMP.json [LICENSE]

INIT_FILES_DIR is LIBERO's ``libero/libero/init_files`` (in the ``hf-libero`` 0.1.4 wheel, MIT);
LIBERO_DUMP.json is written by ``tools/libero_dump.py`` and gives each task's joint layout
(name, type, qpos and qvel address in LIBERO's model) and nq, nv. Writes the 40 files, LIBERO's
LICENSE (the third argument, e.g. the wheel's ``hf_libero-0.1.4.dist-info/licenses/LICENSE``, or the
first LICENSE above INIT_FILES_DIR) and ``SOURCE.json`` (sha256 of every
file, task id -> file, joint layout).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "simkit" / "data" / "hebero" / "init_files"


def main(argv: list[str]) -> int:
    src, dump = Path(argv[0]), json.loads(Path(argv[1]).read_text())
    table = json.loads((ROOT / "simkit" / "data" / "hebero" / "tasks.json").read_text())["suites"]
    OUT.mkdir(parents=True, exist_ok=True)
    record: dict = {
        "package": "hf-libero 0.1.4 (libero/libero/init_files)",
        "license": "MIT (LICENSE beside this file)",
        "row": "robosuite MjSimState.flatten(): [time, qpos (nq), qvel (nv)] of LIBERO's task model",
        "files": {},
        "tasks": {},
    }
    for suite, info in table.items():
        for name in info["tasks"]:
            tid, rel = f"{suite}/{name}", f"{info['libero_dir']}/{name}.pruned_init"
            (OUT / info["libero_dir"]).mkdir(exist_ok=True)
            shutil.copyfile(src / rel, OUT / rel)
            record["files"][rel] = hashlib.sha256((OUT / rel).read_bytes()).hexdigest()
            rec = dump["tasks"][tid]
            record["tasks"][tid] = {"file": rel, "nq": rec["nq"], "nv": rec["nv"], "joints": rec["joints"]}
    lic = (
        [Path(argv[2])]
        if len(argv) > 2
        else [p / "LICENSE" for p in src.parents if (p / "LICENSE").is_file()]
    )
    if lic:
        shutil.copyfile(lic[0], OUT / "LICENSE")
    (OUT / "SOURCE.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"{len(record['files'])} files -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
