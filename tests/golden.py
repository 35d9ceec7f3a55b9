"""Golden corpus digests: one sha256 per (generator, version) over a tiny smoke corpus.

The digest covers every member of every shard except the ``versions`` entry of each episode's
``meta.json`` (simkit's and the backends' own version strings, which differ between environments
that must still produce the same corpus). Where a generator's bytes depend on a backend's release
(Blender's renders, FFmpeg's video, the numeric stack's last bits), the key names that package's
major.minor: ``wrop@2+bpy5.0`` (:data:`RELEASE_BOUND` says which and why).

A key may pin several digests (a list). MuJoCo's physics and Blender's renders round differently on
CPUs with other vector units (AVX-512 or not, FMA contraction): for the generators in
:data:`CPU_BOUND` the digests are pinned per CPU family (:func:`cpu_family`, listed per key in
``golden_cpus.json``); on a family not measured yet a mismatch skips with the measured digest (to be
added) instead of failing. Everywhere else, and on a measured family, any change fails.

Set ``SIMKIT_GOLDEN_UPDATE=1`` to print the table of measured digests instead of failing, after a
deliberate version bump (see docs/engine.md, "Golden digests").
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden_digests.json"
#: packages whose release changes a generator's bytes: distribution -> generators. Blender renders
#: differently per release; FFmpeg (inside PyAV) encodes video differently; numpy's bundled OpenBLAS and
#: SIMD loops and scipy's FFT round differently between numpy 1.26 and 2.x, which moves foa-qa's features by
#: <= 1.4e-14 and hebero-demos' MuJoCo states by <= 3e-9 (measured; packing and foa-nav are bit-identical).
RELEASE_BOUND = {"bpy": ("wrop", "pairs"), "av": ("media",), "numpy": ("foa-qa", "hebero-demos")}
#: generators whose bytes depend on the CPU's floating-point units (MuJoCo contact dynamics, Blender renders)
CPU_BOUND = ("hebero-demos", "pairs", "wrop")
GOLDEN_CPUS = GOLDEN.with_name("golden_cpus.json")


def cpu_family() -> str:
    """``vendor model-name family/model [avx512f] [avx2] [fma]`` from ``/proc/cpuinfo`` (``unknown``
    elsewhere): family and model number tell CPU generations apart that share a marketing name."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    get = {k.strip(): v.strip() for k, v in fields.items()}
    flags = [f for f in ("avx512f", "avx2", "fma") if f in get.get("flags", "").split()]
    gen = f"{get.get('cpu family', '?')}/{get.get('model', '?')}"
    return " ".join([get.get("vendor_id", "?"), get.get("model name", "?"), gen, *flags])


def corpus_digest(out: Path) -> str:
    """sha256 over (member name, member sha256) of every shard tar under ``out/shards``, in order."""
    h = hashlib.sha256()
    for shard in sorted((out / "shards").glob("*.tar")):
        with tarfile.open(shard) as tar:
            for m in tar.getmembers():
                data = tar.extractfile(m).read()  # type: ignore[union-attr]
                if m.name.endswith(".meta.json"):
                    meta = json.load(io.BytesIO(data))
                    meta.pop("versions", None)
                    data = json.dumps(meta, sort_keys=True).encode()
                h.update(f"{m.name}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return h.hexdigest()


def golden_key(name: str, version: object) -> str:
    """``name@version``, plus ``+bpy5.0`` where the generator's bytes depend on Blender's release."""
    from importlib.metadata import version as dist_version

    key = f"{name}@{version}"
    for dist, names in RELEASE_BOUND.items():
        if name.split("/")[0] in names:
            key += f"+{dist}" + ".".join(dist_version(dist).split(".")[:2])
    return key


def check_golden(name: str, version: object, out: Path) -> None:
    """Fail unless the smoke corpus in ``out`` has the pinned digest for (name, version)."""
    import pytest

    key, digest = golden_key(name, version), corpus_digest(out)
    table = json.loads(GOLDEN.read_text())
    if os.environ.get("SIMKIT_GOLDEN_UPDATE"):
        print(f"GOLDEN {key} {digest} cpu={cpu_family()}")
        return
    if key not in table:
        pytest.fail(f"no golden digest for {key} (measured {digest}): add it to {GOLDEN.name}", pytrace=False)
    pinned = table[key] if isinstance(table[key], list) else [table[key]]
    if digest not in pinned and name.split("/")[0] in CPU_BOUND:
        cpus = json.loads(GOLDEN_CPUS.read_text()).get(key, [])
        if cpu_family() not in cpus:
            pytest.skip(f"{key}: not pinned on this CPU family ({cpu_family()}); measured {digest}")
    if digest not in pinned:
        pytest.fail(
            f"{key}: corpus bytes changed without a version bump (pinned {', '.join(pinned)}, measured {digest}); "
            "bump the generator's version and pin the new digest",
            pytrace=False,
        )
