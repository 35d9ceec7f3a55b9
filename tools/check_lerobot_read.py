"""Check that LeRobot's own ``LeRobotDataset`` reads what ``simkit export hebero-lerobot`` wrote.

Two steps, because lerobot (Python >= 3.12, its own torch) and simkit live in different environments:

1. in simkit's environment, record what the frames must hold, straight from the corpus:
   ``python tools/check_lerobot_read.py expect CORPUS EXPECT.npz``
2. in an environment with ``lerobot[dataset]`` (no simkit needed):
   ``python tools/check_lerobot_read.py read DATASET EXPECT.npz``

``read`` loads DATASET with ``lerobot.datasets.lerobot_dataset.LeRobotDataset(repo_id, root=DATASET,
video_backend="pyav")`` and checks every frame: ``action`` and the ee_pos / gripper parts of
``observation.state`` equal the corpus values cast to float32, ``observation.joint_states`` too,
``task`` is the demo's instruction, and each camera's decoded frame (float [0, 1], C x H x W) is
within codec tolerance of the corpus frame (mean absolute error <= 2 grey levels, max <= 32).
It prints one line per check and exits 1 when any fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

CAMERAS = ("agentview", "eye_in_hand")
MEAN_TOL, MAX_TOL = 2.0, 32.0  # grey levels (0-255) of H.264 at crf 18 on smooth pictures


def expect(corpus: Path, out: Path) -> None:
    """Per frame (T per demo, corpus order): action, ee_pos, gripper, joint_states, camera frames, task."""
    from simkit.episodes.reader import iter_corpus

    cols: dict[str, list] = {}
    tasks = []
    for s in iter_corpus(corpus):
        t = len(s["actions"])
        tasks += [s["demo"]["instruction"]] * t
        cols.setdefault("action", []).append(np.asarray(s["actions"], np.float32))
        for k in ("ee_pos", "gripper_states", "joint_states"):
            cols.setdefault(k, []).append(np.asarray(s[k][:t], np.float32))
        for c in CAMERAS:
            if s.get(f"{c}_rgb") is not None:
                cols.setdefault(c, []).append(np.asarray(s[f"{c}_rgb"][:t]))
    np.savez(out, task=np.array(tasks), **{k: np.concatenate(v) for k, v in cols.items()})
    print(f"wrote {out}: {len(tasks)} frames, cameras {[c for c in CAMERAS if c in cols]}")


def read(dataset: Path, ref: Path) -> int:
    import lerobot
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    e = np.load(ref)
    ds = LeRobotDataset("simkit/hebero-demos", root=dataset, video_backend="pyav")
    print(f"lerobot {lerobot.__version__}: {ds.num_episodes} episodes, {len(ds)} frames, fps {ds.fps}")
    cams = [c for c in CAMERAS if c in e.files]
    bad = []
    err = {c: [] for c in cams}
    for i in range(len(ds)):
        item = ds[i]
        st = item["observation.state"].numpy()
        same = (
            np.array_equal(item["action"].numpy(), e["action"][i])
            and np.array_equal(st[:3], e["ee_pos"][i])
            and np.array_equal(st[6:8], e["gripper_states"][i])
            and np.array_equal(item["observation.joint_states"].numpy(), e["joint_states"][i])
            and item["task"] == str(e["task"][i])
        )
        if not same:
            bad.append(i)
        for c in cams:
            img = item[f"observation.images.{c}"].numpy().transpose(1, 2, 0) * 255.0
            err[c].append(np.abs(img - e[c][i].astype(np.float64)))
    ok = len(ds) == len(e["action"]) and not bad
    print(
        f"frames read {len(ds)} (expected {len(e['action'])}); low-dim/task mismatches at {bad[:5] or 'none'}"
    )
    print(f"tasks: {sorted(set(ds.meta.tasks.index))}")
    for c in cams:
        a = np.stack(err[c])
        good = a.mean() <= MEAN_TOL and a.max() <= MAX_TOL
        ok &= bool(good)
        print(
            f"{c}: decoded vs corpus frames mean |d| {a.mean():.3f}, max {a.max():.1f} grey levels "
            f"({'ok' if good else 'FAIL'}: mean <= {MEAN_TOL}, max <= {MAX_TOL})"
        )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("expect", help="simkit side: reference values from the corpus")
    a.add_argument("corpus", type=Path)
    a.add_argument("out", type=Path)
    b = sub.add_parser("read", help="lerobot side: load the dataset and compare")
    b.add_argument("dataset", type=Path)
    b.add_argument("ref", type=Path)
    args = p.parse_args()
    if args.cmd == "expect":
        expect(args.corpus, args.out)
        return 0
    return read(args.dataset, args.ref)


if __name__ == "__main__":
    sys.exit(main())
