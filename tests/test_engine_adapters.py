"""The torch IterableDataset and plain webdataset both read simkit shards."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.executors.run import generate_corpus


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    root = tmp_path_factory.mktemp("adapt")
    generate_corpus("toy", 10, root / "a", seed=1, episodes_per_shard=2)
    generate_corpus("toy", 4, root / "b", seed=2, episodes_per_shard=2)
    return root / "a", root / "b"


def test_dataloader_workers_and_ranks_read_each_sample_once(corpora):
    import torch

    from simkit.adapters.torch import CorpusDataset

    ds = CorpusDataset(list(corpora), fields=["values", "info"])
    keys = []
    for batch in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2):
        assert set(batch) == {"__key__", "values", "info"}
        assert len(batch["values"]) == batch["info"]["n_values"]
        keys.append(batch["__key__"])
    assert len(keys) == 14 and len(set(keys)) == 10  # the two corpora share keys toy_00000000..3
    ranks = [[s["__key__"] for s in CorpusDataset(corpora[0], rank=r, world_size=2)] for r in range(2)]
    assert not set(ranks[0]) & set(ranks[1]) and len(ranks[0]) + len(ranks[1]) == 10


def test_shuffled_shards_change_with_epoch_but_cover_all(corpora):
    from simkit.adapters.torch import CorpusDataset

    ds = CorpusDataset(corpora[0], shuffle_shards=True, seed=3)
    orders = []
    for epoch in range(3):
        ds.set_epoch(epoch)
        orders.append([s["__key__"] for s in ds])
    assert all(sorted(o) == sorted(orders[0]) for o in orders)
    assert len({tuple(o) for o in orders}) > 1


def test_plain_webdataset_reads_the_same_samples(corpora):
    import webdataset as wds

    from simkit.adapters.torch import CorpusDataset, shard_urls

    ours = {s["__key__"]: s for s in CorpusDataset(corpora[0])}
    theirs = list(wds.WebDataset(shard_urls(corpora[0]), shardshuffle=False).decode("rgb8"))
    assert [s["__key__"] for s in theirs] == sorted(ours)
    for s in theirs:
        mine = ours[s["__key__"]]
        np.testing.assert_array_equal(s["values.npy"], mine["values"])
        np.testing.assert_array_equal(s["image.png"], mine["image"])
        assert s["info.json"] == mine["info"]


def test_unknown_field_is_an_error_listing_the_fields(corpora):
    from simkit.adapters.torch import CorpusDataset
    from simkit.core.errors import SimkitError

    with pytest.raises(SimkitError, match=r"no field.s. nosuch; the corpus has: image, info, meta, values"):
        CorpusDataset(corpora[0], fields=["nosuch", "values"])


@pytest.fixture(scope="module")
def one_shard(tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "c"
    generate_corpus("toy", 7, out, seed=4, episodes_per_shard=64)
    return out


def _worker_tag(sample):
    import torch

    info = torch.utils.data.get_worker_info()
    return sample["__key__"], info.id if info is not None else -1


def test_one_shard_corpus_feeds_every_dataloader_worker(one_shard):
    import torch

    from simkit.adapters.torch import CorpusDataset

    ds = CorpusDataset(one_shard, fields=["info"], transform=_worker_tag)
    got = list(torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2))
    by_worker = {w: sorted(k for k, ww in got if ww == w) for w in (0, 1)}
    assert len(by_worker[0]) == 4 and len(by_worker[1]) == 3  # 7 episodes dealt 4/3, not 7/0
    assert sorted(by_worker[0] + by_worker[1]) == [f"toy_{i:08d}" for i in range(7)]


def test_ranks_times_workers_partition_the_episodes_every_epoch(one_shard):
    from simkit.adapters.reader import CorpusReader

    for shuffle in (False, True):
        reader = CorpusReader(one_shard, fields=["info"], shuffle=shuffle, seed=9)
        for epoch in range(2):
            reader.set_epoch(epoch)
            shares = [
                [e.key for e in reader.share(rank, 2, worker, 2)] for rank in range(2) for worker in range(2)
            ]
            flat = [k for s in shares for k in s]
            assert sorted(flat) == [f"toy_{i:08d}" for i in range(7)]
            assert sorted(len(s) for s in shares) == [1, 2, 2, 2]


def test_shuffle_is_seeded_and_reseeded_by_set_epoch(one_shard):
    from simkit.adapters.torch import CorpusDataset

    def order(seed, epoch):
        ds = CorpusDataset(one_shard, fields=["info"], shuffle=True, seed=seed)
        ds.set_epoch(epoch)
        return [s["__key__"] for s in ds]

    assert order(1, 0) == order(1, 0)
    orders = {tuple(order(1, e)) for e in range(4)}
    assert len(orders) > 1 and all(sorted(o) == sorted(order(1, 0)) for o in orders)
    assert order(1, 0) != order(2, 0)
    expected = np.random.default_rng([1, 3]).permutation(7)
    assert order(1, 3) == [f"toy_{i:08d}" for i in expected]


def test_drop_last_gives_every_rank_the_same_number_of_episodes(one_shard):
    from simkit.adapters.torch import CorpusDataset

    sizes = [
        len(CorpusDataset(one_shard, rank=r, world_size=3, drop_last=True).my_episodes()) for r in range(3)
    ]
    assert sizes == [2, 2, 2]


def test_collate_ragged_pads_and_reports_lengths(one_shard):
    import torch

    from simkit.adapters.torch import CorpusDataset, collate_ragged

    ds = CorpusDataset(one_shard, fields=["values", "info"])
    samples = list(ds)
    batch = next(iter(torch.utils.data.DataLoader(ds, batch_size=7, collate_fn=collate_ragged)))
    lengths = [len(s["values"]) for s in samples]
    assert len(set(lengths)) > 1  # the toy corpus is ragged
    assert batch["values"].shape == (7, max(lengths)) and batch["values"].dtype == torch.float32
    assert batch["__lengths__"]["values"].tolist() == lengths
    for i, s in enumerate(samples):
        assert batch["values"][i, : lengths[i]].tolist() == s["values"].tolist()
        assert not batch["values"][i, lengths[i] :].any()
    assert batch["info"] == [s["info"] for s in samples] and batch["__key__"] == [
        s["__key__"] for s in samples
    ]


def test_arrays_are_writable_so_torch_does_not_warn(one_shard):
    import warnings

    import torch

    from simkit.adapters.torch import CorpusDataset

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for s in CorpusDataset(one_shard, fields=["image", "values"]):
            torch.from_numpy(s["image"]).add_(1)
            torch.from_numpy(s["values"])


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    out = tmp_path_factory.mktemp("media") / "m"
    generate_corpus("media", 5, out, seed=3, episodes_per_shard=2)
    return out


def test_step_dataset_batches_steps_with_the_default_collate(media):
    import torch

    from simkit.adapters.torch import CorpusDataset, StepDataset

    episodes = list(CorpusDataset(media, fields=["track", "steps"]))
    steps = StepDataset(CorpusDataset(media, fields=["track", "steps"]), step_fields=["track", "steps"])
    items = list(steps)
    assert len(items) == sum(len(e["track"]) for e in episodes)
    first = items[: len(episodes[0]["track"])]
    assert [it["__step__"] for it in first] == list(range(len(first)))
    np.testing.assert_array_equal(first[1]["track"], episodes[0]["track"][1])
    batch = next(iter(torch.utils.data.DataLoader(steps, batch_size=4)))
    assert batch["track"].shape == (4, 2) and batch["__step__"].tolist() == [
        it["__step__"] for it in items[:4]
    ]


def test_webdataset_recipe_decodes_png_flac_and_mp4(media):
    from simkit.adapters.torch import CorpusDataset
    from simkit.adapters.webdataset import webdataset_pipeline

    ours = {s["__key__"]: s for s in CorpusDataset(media)}
    theirs = list(webdataset_pipeline(media))
    assert sorted(s["__key__"] for s in theirs) == sorted(ours)
    for s in theirs:
        mine = ours[s["__key__"]]
        np.testing.assert_array_equal(s["image"], mine["image"])  # PNG
        samples, rate = s["audio"]  # FLAC
        assert rate == 16000 and samples.shape == (800, 1) and samples.dtype == np.float32
        np.testing.assert_array_equal(samples, mine["audio"][0])
        assert np.abs(samples).max() == pytest.approx(0.5, abs=1e-3)  # the generator's 0.5-amplitude sine
        level = mine["steps"][0]["level"]
        assert s["video"].shape == (3, 16, 16, 3) and s["video"].dtype == np.uint8  # MP4
        assert np.abs(s["video"].astype(int) - level).max() <= 2  # lossy H.264 of a flat grey frame
        np.testing.assert_array_equal(s["video"], mine["video"])


def test_packing_steps_batch_with_default_and_ragged_collate(tmp_path):
    """One packing placement per item: actions batch with the default collate; heightmaps, whose container
    size differs per episode, with collate_ragged (padded, shapes reported)."""
    import torch

    from simkit.adapters.torch import CorpusDataset, StepDataset, collate_ragged

    out = tmp_path / "pk"
    generate_corpus("packing", 3, out, seed=5, config={"tier_mix": {"easy": 1, "medium": 1, "hard": 0}})
    episodes = list(CorpusDataset(out, fields=["actions", "heightmaps"]))
    n_steps = sum(len(e["actions"]) for e in episodes)
    acts = StepDataset(CorpusDataset(out, fields=["actions"]), step_fields=["actions"])
    batch = next(iter(torch.utils.data.DataLoader(acts, batch_size=n_steps)))
    assert batch["actions"].shape == (n_steps, 5)
    np.testing.assert_array_equal(batch["actions"].numpy(), np.concatenate([e["actions"] for e in episodes]))
    steps = StepDataset(
        CorpusDataset(out, fields=["actions", "heightmaps"]), step_fields=["actions", "heightmaps"]
    )
    batch = next(iter(torch.utils.data.DataLoader(steps, batch_size=n_steps, collate_fn=collate_ragged)))
    shapes = [e["heightmaps"].shape[1:] for e in episodes for _ in range(len(e["actions"]))]
    assert batch["__shapes__"]["heightmaps"].tolist() == [list(s) for s in shapes]
    k = 0
    for e in episodes:
        for t in range(len(e["actions"])):  # heightmaps[t]: the state before step t
            L, W = e["heightmaps"].shape[1:]
            np.testing.assert_array_equal(batch["heightmaps"][k, :L, :W].numpy(), e["heightmaps"][t])
            k += 1


def test_step_fields_come_from_the_declared_shapes(tmp_path):
    from simkit.adapters.torch import CorpusDataset, StepDataset

    out = tmp_path / "pk"
    generate_corpus("packing", 2, out, seed=5, config={"tier_mix": {"easy": 1, "medium": 0, "hard": 0}})
    steps = StepDataset(CorpusDataset(out))
    assert steps.step_fields == [
        "actions",
        "poses",
        "heightmaps",
    ]  # ("T", 5), ("T", "N", 7), ("T+1", "L", "W")
    episodes = list(CorpusDataset(out, fields=["actions"]))
    assert len(list(steps)) == sum(len(e["actions"]) for e in episodes)
    assert StepDataset(CorpusDataset(out, fields=["actions", "case"])).step_fields == ["actions"]


def test_gloo_ranks_with_spawn_and_forkserver_workers_read_every_episode_once(one_shard, tmp_path):
    """2 real torch.distributed (gloo) ranks x 2 DataLoader workers: each of the 7 episodes once per epoch."""
    import json

    import torch.multiprocessing as mp
    from disthelp import rank_main

    mp.spawn(rank_main, args=(2, str(one_shard), str(tmp_path)), nprocs=2, join=True)
    got = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    everything = [f"toy_{i:08d}" for i in range(7)]
    for run in ("spawn", "forkserver"):
        keys = [key for rank in got for key, _ in rank[run]]
        assert sorted(keys) == everything, run  # each episode exactly once over ranks x workers
        for rank in got:
            assert {w for _, w in rank[run]} == {0, 1}, run  # both workers of each rank read
        assert sorted(len(rank[run]) for rank in got) == [3, 4], run  # rank 0 gets 4, rank 1 gets 3


def test_rank_comes_from_torchrun_variables_and_travels_into_workers(one_shard, monkeypatch):
    import pickle

    from simkit.adapters.reader import CorpusReader, distributed_rank
    from simkit.adapters.torch import CorpusDataset
    from simkit.core.errors import SimkitError

    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")
    monkeypatch.setenv("LOCAL_RANK", "0")
    assert distributed_rank() == (1, 3) and distributed_rank(0, 2) == (0, 2)
    assert len(CorpusReader(one_shard, fields=["info"])) == 2  # episodes 1 and 4 of 7
    ds = CorpusDataset(one_shard, fields=["info"])
    monkeypatch.setenv("RANK", "2")  # changed before the DataLoader pickles it: the pickle carries 2
    worker_copy = pickle.loads(pickle.dumps(ds))
    assert (worker_copy.reader.rank, worker_copy.reader.world_size) == (2, 3)
    assert worker_copy.my_episodes() == ["toy_00000002", "toy_00000005"]
    with pytest.raises(SimkitError, match="give both rank and world_size"):
        CorpusReader(one_shard, rank=1)
    monkeypatch.delenv("WORLD_SIZE")
    with pytest.raises(SimkitError, match="RANK and WORLD_SIZE must be set together"):
        CorpusReader(one_shard)
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(SimkitError, match=r"rank 2 of 2 \(from RANK/WORLD_SIZE\)"):
        distributed_rank()
