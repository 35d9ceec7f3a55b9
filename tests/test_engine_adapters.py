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
