"""A catalogue of corpus corruptions: each edits a copy of a good corpus in one way.

Used by the validate and reader tests and by ``tools/robustness.py``. Each entry maps a name to
``(inject(corpus_dir), needle)``: ``needle`` is a substring ``simkit validate`` must report.
The good corpus :data:`CORRUPTIONS` expect: the toy generator, 6 episodes, 3 per shard (two shards), seed 2;
:data:`PACKING_CORRUPTIONS` expect a packing corpus of 2 episodes, 1 per shard, seed 0. The kinds in
:data:`READER_BLIND` leave every checksum and every recorded parameter consistent: only the generator's own
check (``validate``) can see them, a reader cannot.
"""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Callable
from pathlib import Path

from simkit.episodes.corpus import CorpusLayout, read_manifest, sha256, write_manifest

S0 = "shards/shard-000000.tar"
S1 = "shards/shard-000001.tar"


def retar(path: Path, edit: Callable[[list], list]) -> None:
    """Rewrite a tar, letting ``edit(list of (TarInfo, bytes))`` change it (PAX format, like the writer)."""
    with tarfile.open(path) as tf:
        items = [(m, tf.extractfile(m).read() if m.isreg() else b"") for m in tf.getmembers()]
    items = edit(items)
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tf:
        for info, data in items:
            if info.isreg():
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if info.isreg() else None)


def _flip(c: Path, needle: bytes, shard: str = S0, delta: int = 1) -> None:
    p = c / shard
    b = bytearray(p.read_bytes())
    i = b.index(needle) + delta
    b[i] ^= 0x01
    p.write_bytes(bytes(b))


def _rows(c: Path, shard_id: int) -> tuple[Path, list]:
    p = CorpusLayout(c).rows_path(shard_id)
    return p, json.loads(p.read_text())


def _edit_manifest(c: Path, edit: Callable[[list], None]) -> None:
    rows = read_manifest(c / "manifest.parquet")
    edit(rows)
    write_manifest(CorpusLayout(c), rows)


def _edit_info(c: Path, edit: Callable[[dict], None]) -> None:
    p = c / "corpus.json"
    info = json.loads(p.read_text())
    edit(info)
    p.write_text(json.dumps(info))


def _rename_member(old: str, new: str) -> Callable[[list], list]:
    def edit(items):
        for info, _ in items:
            if info.name == old:
                info.name = new
        return items

    return edit


def _add_member(name: str, data: bytes, at: int | None = None) -> Callable[[list], list]:
    def edit(items):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        items.insert(len(items) if at is None else at, (info, data))
        return items

    return edit


def _truncate_trailer(c: Path) -> None:
    """Cut a shard right after its last member's data (no end-of-archive marker)."""
    with tarfile.open(c / S1) as tf:
        last = tf.getmembers()[-1]
    end = last.offset_data + -(-last.size // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE
    (c / S1).write_bytes((c / S1).read_bytes()[:end])


def _duplicate(c: Path) -> None:
    def edit(items):
        first = next(it for it in items if it[0].name == "toy_00000001.values.npy")
        dup = tarfile.TarInfo(first[0].name)
        return items + [(dup, first[1])]

    retar(c / S0, edit)


def _symlink(c: Path) -> None:
    def edit(items):
        link = tarfile.TarInfo("toy_00000001.link.txt")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        return items + [(link, b"")]

    retar(c / S0, edit)


def _both_sha_edit(c: Path) -> None:
    """The manifest says one thing, the rows file another (manifest edited, rows file not)."""

    def edit(rows):
        rows[0]["members"][0]["sha256"] = "0" * 64

    _edit_manifest(c, edit)


def _member_size_in_manifest(c: Path) -> None:
    def edit_rows(rows):
        rows[0]["members"][0]["bytes"] += 7

    path, rows = _rows(c, 0)
    edit_rows(rows)
    path.write_text(json.dumps(rows))
    _edit_manifest(c, edit_rows)


def _rows_traversal(c: Path) -> None:
    path, rows = _rows(c, 0)
    rows[0]["shard"] = "../../outside.tar"
    path.write_text(json.dumps(rows))


def _manifest_traversal(c: Path) -> None:
    def edit(rows):
        rows[0]["shard"] = "../../../tmp/elsewhere.tar"

    _edit_manifest(c, edit)


def _rows_and_manifest_traversal(c: Path) -> None:
    path, rows = _rows(c, 1)
    for r in rows:
        r["shard"] = "/tmp/abs/shard-000001.tar"
    path.write_text(json.dumps(rows))
    _edit_manifest(c, lambda rs: [r.update(shard="/tmp/abs/shard-000001.tar") for r in rs if r["index"] >= 3])


def _swap_members(c: Path) -> None:
    """Two episodes' values members exchanged (each still a valid npy)."""

    def edit(items):
        a = next(i for i, it in enumerate(items) if it[0].name == "toy_00000000.values.npy")
        b = next(i for i, it in enumerate(items) if it[0].name == "toy_00000001.values.npy")
        items[a], items[b] = (items[a][0], items[b][1]), (items[b][0], items[a][1])
        return items

    retar(c / S0, edit)


def _refreshed_forgery(c: Path) -> None:
    """A member edited and its checksum updated in the rows file only (the manifest still has the old one)."""
    new = json.dumps({"first": 0.5, "n_values": 99, "pid_free": True}).encode()

    def edit(items):
        return [(i, new if i.name == "toy_00000000.info.json" else d) for i, d in items]

    retar(c / S0, edit)
    path, rows = _rows(c, 0)
    for m in rows[0]["members"]:
        if m["name"] == "toy_00000000.info.json":
            m["sha256"], m["bytes"] = sha256(new), len(new)
    path.write_text(json.dumps(rows))


def _replace_member_refreshed(c: Path, shard: str, name: str, data: bytes) -> None:
    """Put ``data`` in place of member ``name`` and refresh its size and sha256 in the rows file and the
    manifest, as a careful forger would."""
    retar(c / shard, lambda items: [(i, data if i.name == name else d) for i, d in items])
    shard_id = int(Path(shard).name[6:12])
    rows_file, rows = _rows(c, shard_id)
    for r in rows:
        for m in r["members"]:
            if m["name"] == name:
                m["sha256"], m["bytes"] = sha256(data), len(data)
    rows_file.write_text(json.dumps(rows))
    by_key = {r["key"]: r for r in rows}
    _edit_manifest(c, lambda ms: [m.update(by_key[m["key"]]) for m in ms if m["key"] in by_key])


def _other_episodes_meta(c: Path) -> None:
    """Episode 1's meta.json in episode 0 (its index and key fixed too), every checksum refreshed."""
    with tarfile.open(c / S0) as tf:
        meta = json.loads(tf.extractfile("toy_00000001.meta.json").read())
    meta.update(index=0, key="toy_00000000")
    _replace_member_refreshed(c, S0, "toy_00000000.meta.json", json.dumps(meta).encode())


def _member(c: Path, shard: str, name: str) -> bytes:
    with tarfile.open(c / shard) as tf:
        return tf.extractfile(name).read()


def _two_unequal(c: Path) -> tuple[int, int]:
    """Two episodes of shard 0 whose ``values`` differ in length (the toy check can tell them apart)."""
    import numpy as np

    n = {i: len(np.load(io.BytesIO(_member(c, S0, f"toy_{i:08d}.values.npy")))) for i in range(3)}
    pair = next(((a, b) for a in n for b in n if a < b and n[a] != n[b]), None)
    assert pair is not None, f"shard 0's episodes all hold {n[0]} values"
    return pair


def _swap_values_refreshed(c: Path) -> None:
    """Two episodes' ``values`` exchanged, every size and checksum refreshed (rows file and manifest)."""
    a, b = _two_unequal(c)
    va, vb = (_member(c, S0, f"toy_{i:08d}.values.npy") for i in (a, b))
    _replace_member_refreshed(c, S0, f"toy_{a:08d}.values.npy", vb)
    _replace_member_refreshed(c, S0, f"toy_{b:08d}.values.npy", va)


def _other_episodes_info_refreshed(c: Path) -> None:
    """Another episode's ``info.json`` in place of one's own, every checksum refreshed."""
    a, b = _two_unequal(c)
    _replace_member_refreshed(c, S0, f"toy_{a:08d}.info.json", _member(c, S0, f"toy_{b:08d}.info.json"))


# -- packing: 2 episodes, 1 per shard -----------------------------------------------------------------------
P0 = "packing_00000000"


def _packing_other_metrics(c: Path) -> None:
    _replace_member_refreshed(c, S0, f"{P0}.metrics.json", _member(c, S1, "packing_00000001.metrics.json"))


def _packing_metric_edited(key: str, factor: float) -> Callable[[Path], None]:
    def inject(c: Path) -> None:
        m = json.loads(_member(c, S0, f"{P0}.metrics.json"))
        m[key] = m[key] * factor
        _replace_member_refreshed(c, S0, f"{P0}.metrics.json", json.dumps(m).encode())

    return inject


def _packing_poses_lifted(c: Path) -> None:
    """Every box of episode 0 lifted by 5 cm (z of the (T, N, 7) poses), checksums refreshed: the metrics no
    longer follow from the poses."""
    import numpy as np

    poses = np.load(io.BytesIO(_member(c, S0, f"{P0}.poses.npy")))
    poses[..., 2] += 0.05
    buf = io.BytesIO()
    np.save(buf, poses)
    _replace_member_refreshed(c, S0, f"{P0}.poses.npy", buf.getvalue())


def _packing_container_edited(c: Path) -> None:
    """Episode 0's container made one cell wider in its case.json, checksums refreshed."""
    case = json.loads(_member(c, S0, f"{P0}.case.json"))
    case["container"]["size"][0] += 1
    _replace_member_refreshed(c, S0, f"{P0}.case.json", json.dumps(case).encode())


def _packing_resolution_edited(c: Path) -> None:
    _edit_info(c, lambda i: i["config"].update(resolution=i["config"]["resolution"] * 2))


PACKING_CORRUPTIONS: dict[str, tuple[Callable[[Path], None], str]] = {
    "packing_metrics_of_another_episode": (_packing_other_metrics, f"{P0}: metric "),
    "packing_compactness_edited": (_packing_metric_edited("compactness", 1.1), f"{P0}: metric compactness"),
    "packing_volume_edited": (
        _packing_metric_edited("packed_volume_m3", 0.9),
        f"{P0}: metric packed_volume_m3",
    ),
    "packing_poses_lifted": (_packing_poses_lifted, f"{P0}: geometric check: outside"),
    "packing_container_edited": (_packing_container_edited, f"{P0}: layout volumes do not add up"),
    "packing_resolution_edited": (_packing_resolution_edited, "(corpus.json config: 0.05)"),
}


def _broken_header_checksum(c: Path) -> None:
    with tarfile.open(c / S0) as tf:
        second = tf.getmembers()[1].offset
    p = c / S0
    b = bytearray(p.read_bytes())
    b[second + 3] ^= 0x55  # a byte of the second member's name: its header checksum no longer matches
    p.write_bytes(bytes(b))


CORRUPTIONS: dict[str, tuple[Callable[[Path], None], str]] = {
    "flipped_json_byte": (lambda c: _flip(c, b'"n_values"'), "checksum mismatch"),
    "flipped_png_byte": (lambda c: _flip(c, b"IDAT", delta=8), "checksum mismatch"),
    "flipped_npy_byte": (lambda c: _flip(c, b"\x93NUMPY", delta=129), "checksum mismatch"),
    "truncated_mid_member": (lambda c: (c / S1).write_bytes((c / S1).read_bytes()[:700]), "shard-000001.tar"),
    "truncated_trailer": (_truncate_trailer, "truncated"),
    "not_a_tar": (lambda c: (c / S0).write_bytes(b"hello" * 300), "cannot be read as a tar"),
    "empty_shard": (lambda c: (c / S0).write_bytes(b""), "shard-000000.tar"),
    "missing_shard": (lambda c: (c / S1).unlink(), "missing"),
    "missing_member": (
        lambda c: retar(c / S0, lambda it: [x for x in it if x[0].name != "toy_00000001.values.npy"]),
        "missing",
    ),
    "extra_member_known_key": (
        lambda c: retar(c / S0, _add_member("toy_00000001.extra.txt", b"x")),
        "not in the manifest",
    ),
    "extra_member_unknown_key": (
        lambda c: retar(c / S0, _add_member("toy_00000042.image.png", b"x")),
        "not in the manifest",
    ),
    "renamed_member": (
        lambda c: retar(c / S0, _rename_member("toy_00000002.values.npy", "toy_00000002.valuez.npy")),
        "not in the manifest",
    ),
    "duplicate_member": (_duplicate, "duplicate"),
    "dotdot_member": (
        lambda c: retar(c / S0, _rename_member("toy_00000000.image.png", "../escape.image.png")),
        "unsafe member name",
    ),
    "absolute_member": (
        lambda c: retar(c / S0, _rename_member("toy_00000000.image.png", "/etc/passwd.image.png")),
        "unsafe member name",
    ),
    "symlink_member": (_symlink, "not a regular file"),
    "trailing_garbage": (
        lambda c: (c / S0).write_bytes((c / S0).read_bytes() + b"garbage!" * 64),
        "trailing",
    ),
    "swapped_members": (_swap_members, "checksum mismatch"),
    "forged_rows_checksum": (_refreshed_forgery, "differs from the shard-000000.tar rows file"),
    "manifest_garbage": (lambda c: (c / "manifest.parquet").write_bytes(b"not parquet"), "unreadable"),
    "manifest_missing": (lambda c: (c / "manifest.parquet").unlink(), "manifest.parquet: missing"),
    "manifest_sha_edited": (_both_sha_edit, "differs from the shard-000000.tar rows file"),
    "manifest_row_dropped": (
        lambda c: _edit_manifest(c, lambda rs: rs.pop(1)),
        "complete on disk but missing from the manifest",
    ),
    "manifest_shard_traversal": (_manifest_traversal, "not a shard file name"),
    "rows_shard_traversal": (_rows_traversal, "not a shard file name"),
    "rows_and_manifest_absolute_shard": (_rows_and_manifest_traversal, "not a shard file name"),
    "member_size_edited": (_member_size_in_manifest, "checksum mismatch"),
    "rows_file_garbage": (
        lambda c: CorpusLayout(c).rows_path(1).write_text("{not json"),
        "shard-000001.rows.json: unreadable",
    ),
    "rows_file_deleted": (lambda c: CorpusLayout(c).rows_path(1).unlink(), "no complete shard lists it"),
    "extra_shard_file": (
        lambda c: (c / "shards" / "shard-000000-01.tar").write_bytes((c / S1).read_bytes()),
        "extra file in shards/",
    ),
    "corpus_json_missing": (lambda c: (c / "corpus.json").unlink(), "corpus.json: missing"),
    "corpus_json_garbage": (lambda c: (c / "corpus.json").write_text("{"), "malformed JSON"),
    "corpus_json_counts": (
        lambda c: _edit_info(c, lambda i: i["counts"].update(ok=7, present=7)),
        "counts.present",
    ),
    "corpus_json_schema": (
        lambda c: _edit_info(c, lambda i: i["schema"].update(depth="npy")),
        "schema",
    ),
    "corpus_json_seed_edited": (
        lambda c: _edit_info(c, lambda i: i.update(seed=i["seed"] + 1)),
        "meta.json disagrees with corpus.json",
    ),
    "corpus_json_version_edited": (
        lambda c: _edit_info(c, lambda i: i.update(version="2")),
        "meta.json disagrees with corpus.json",
    ),
    "corpus_json_not_object": (lambda c: (c / "corpus.json").write_text("[1, 2]"), "not a simkit corpus"),
    "stray_copied_shard": (
        lambda c: (c / "shards" / "shard-000099.tar").write_bytes((c / S0).read_bytes()),
        "shard-000099.tar: extra file in shards/",
    ),
    "corpus_json_unknown_format": (
        lambda c: _edit_info(c, lambda i: i.update(format="simkit-corpus/2")),
        "unknown format 'simkit-corpus/2'",
    ),
    "corpus_json_no_format": (lambda c: _edit_info(c, lambda i: i.pop("format")), "no format version"),
    "corpus_json_other_generator": (
        lambda c: _edit_info(c, lambda i: i.update(generator="media")),
        "key does not match index",
    ),
    "other_episodes_meta_refreshed": (_other_episodes_meta, "params do not match the manifest row's"),
    "broken_tar_header_checksum": (_broken_header_checksum, "damaged member header"),
}
CORRUPTIONS |= {
    "swapped_values_refreshed": (_swap_values_refreshed, "values length differs from info.n_values"),
    "other_episodes_info_refreshed": (
        _other_episodes_info_refreshed,
        "values length differs from info.n_values",
    ),
    "corpus_json_config_edited": (
        lambda c: _edit_info(c, lambda i: i["config"].update(size=8)),
        "image is not 8x8 pixels (config size)",
    ),
}

#: kinds with every checksum and recorded parameter consistent: the generator's check alone sees them
READER_BLIND = frozenset(
    {"swapped_values_refreshed", "other_episodes_info_refreshed", "corpus_json_config_edited"}
    | {k for k in PACKING_CORRUPTIONS if k != "packing_resolution_edited"}
)
