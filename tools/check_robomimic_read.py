"""Check that robomimic's ``SequenceDataset`` reads what ``simkit export hebero-hdf5`` wrote, values exact.

Run it where robomimic is importable (it needs only numpy, h5py, torch, tqdm and termcolor to import
``robomimic.utils.dataset``; see docs/hebero.md for the environment used):

    python tools/check_robomimic_read.py OUT/libero_goal/*_demo.hdf5

For each file: the observation keys are the file's own (``data/demo_0/obs``; modality ``rgb`` for
``*_rgb``, ``depth`` for ``*_depth``, else ``low_dim``), registered with
``ObsUtils.initialize_obs_utils_with_obs_specs``; then for seq_length 1 and 10 a
``SequenceDataset(path, obs_keys, dataset_keys=("actions", "rewards", "dones", "states"),
seq_length=L, hdf5_cache_mode="low_dim", filter_by_attribute="train")`` is built with every other
argument at its default (frame_stack 1, padding on, ``load_next_obs=True``), and every item is
compared with the file read by h5py: dataset keys as robomimic casts them (float32), ``obs`` and
``next_obs`` exactly, sequences padded with the demo's last row. Also reports what
``EnvUtils.create_env_from_metadata`` does with the file's ``env_args``. Exits 1 on a mismatch.
"""

from __future__ import annotations

import sys

import h5py
import numpy as np

DATASET_KEYS = ("actions", "rewards", "dones", "states")


def _modality(key: str) -> str:
    return "rgb" if key.endswith("_rgb") else "depth" if key.endswith("_depth") else "low_dim"


def _expected(ref: dict, demo: str, key: str, start: int, length: int, cast: bool) -> np.ndarray:
    a = ref[demo][key]
    if cast:
        a = a.astype("float32")
    idx = np.minimum(np.arange(start, start + length), len(a) - 1)  # pad_seq_length: repeat the last row
    return a[idx]


def check_file(path: str) -> bool:
    import robomimic.utils.obs_utils as ObsUtils
    from robomimic.utils.dataset import SequenceDataset

    with h5py.File(path, "r") as f:  # read everything first: robomimic opens the file in SWMR mode
        obs_keys = sorted(f["data/demo_0/obs"])
        train = [d.decode() for d in f["mask/train"][()]]
        n = sum(int(f[f"data/{d}"].attrs["num_samples"]) for d in train)
        keys = [*DATASET_KEYS, *(f"{p}/{k}" for p in ("obs", "next_obs") for k in obs_keys)]
        ref = {d: {k: f[f"data/{d}/{k}"][()] for k in keys} for d in train}
    specs: dict[str, list[str]] = {"low_dim": [], "rgb": [], "depth": []}
    for k in obs_keys:
        specs[_modality(k)].append(k)
    ObsUtils.initialize_obs_utils_with_obs_specs({"obs": specs})
    ok = True
    for seq in (1, 10):
        ds = SequenceDataset(
            hdf5_path=path,
            obs_keys=obs_keys,
            dataset_keys=DATASET_KEYS,
            seq_length=seq,
            hdf5_cache_mode="low_dim",
            filter_by_attribute="train",
        )
        bad = 0
        for i in range(len(ds)):
            item = ds[i]
            demo = ds._index_to_demo_id[i]
            start = i - ds._demo_id_to_start_indices[demo]
            for k in DATASET_KEYS:
                bad += not np.array_equal(item[k], _expected(ref, demo, k, start, seq, cast=True))
            for prefix in ("obs", "next_obs"):
                for k in obs_keys:
                    want = _expected(ref, demo, f"{prefix}/{k}", start, seq, cast=False)
                    bad += not np.array_equal(item[prefix][k], want)
        ok &= bad == 0 and len(ds) == n and ds.n_demos == len(train)
        print(
            f"{path}: seq_length {seq}: {ds.n_demos} train demo(s), {len(ds)} sequences (expected {n}), "
            f"obs keys {obs_keys}, {bad} mismatching arrays"
        )
    _report_env(path)
    return ok


def _report_env(path: str) -> None:
    import json

    import robomimic.utils.env_utils as EnvUtils

    # what FileUtils.get_env_metadata_from_dataset returns (that module imports torchvision, not needed here)
    with h5py.File(path, "r") as f:
        meta = json.loads(f["data"].attrs["env_args"])
    print(f"env_args: type {meta['type']}, env_name {meta['env_name']!r}, env_kwargs {meta['env_kwargs']}")
    try:
        env = EnvUtils.create_env_from_metadata(meta)
        print(f"create_env_from_metadata: {type(env).__name__}")
    except Exception as exc:  # report, do not fail: the env is simkit's, built with gymnasium
        print(f"create_env_from_metadata: {type(exc).__name__}: {exc}")


def main(paths: list[str]) -> int:
    import robomimic

    print(f"robomimic {robomimic.__version__}")
    results = [check_file(p) for p in paths]
    print("PASS" if all(results) and results else "FAIL")
    return 0 if all(results) and results else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
