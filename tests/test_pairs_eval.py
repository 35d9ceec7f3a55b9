"""The pair consistency metric (analytic values), prediction folders, and the `simkit eval pairs` /
`simkit assets scan` commands."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from simkit.cli import app
from simkit.core.errors import InputError
from simkit.eval.pairs.evaluate import consistency_scores, evaluate_corpus, read_prediction
from simkit.renderers.pairs.correspondence import warp

H, W = 20, 30


def grid():
    ys, xs = np.mgrid[0:H, 0:W]
    return np.stack([xs, ys], -1).astype(np.float64)


def test_warp_is_bilinear_and_exact_on_integer_shifts():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (H, W, 3)).astype(np.float64)
    c = grid() + [2, 1]
    out = warp(img, c)
    assert np.array_equal(out[:-1, :-2], img[1:, 2:])
    half = warp(img, grid() + [0.5, 0])
    assert half[:, :-1] == pytest.approx((img[:, :-1] + img[:, 1:]) / 2)
    ramp = np.tile(np.arange(W, dtype=float), (H, 1))  # bilinear reproduces a linear ramp exactly
    assert warp(ramp, grid() + [0.3, 0.7])[:, : W - 1] == pytest.approx(ramp[:, : W - 1] + 0.3)


def test_consistency_scores_analytic():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 200, (H, W, 3)).astype(np.uint8)
    b = np.roll(a, (-1, -2), axis=(0, 1))  # B(x, y) = A(x + 2, y + 1)
    c = grid() + [2, 1]
    m = np.zeros((H, W))
    m[: H - 1, : W - 2] = 1  # where the shifted source lies inside A
    s = consistency_scores(a, b, c, m)
    assert s["ref_mse"] == 0.0 and s["ref_psnr"] == float("inf")
    assert s["full_mse"] > 0
    # a constant intensity offset of 0.1 everywhere inside the mask: MSE 0.01, PSNR 20 dB
    b2 = np.clip(a.astype(int) + 25.5, 0, 255).astype(np.uint8)  # 25.5 -> 25 after the cast
    s2 = consistency_scores(a, b2, grid(), np.ones((H, W)))
    assert s2["ref_mse"] == pytest.approx((25 / 255) ** 2)
    assert s2["ref_psnr"] == pytest.approx(10 * np.log10(1 / (25 / 255) ** 2))
    assert s2["full_mse"] == s2["ref_mse"]
    empty = consistency_scores(a, b, c, np.zeros((H, W)))  # no covisible pixel: the ref scores are undefined
    assert np.isnan(empty["ref_mse"]) and np.isnan(empty["ref_psnr"]), empty
    with pytest.raises(ValueError, match="shapes disagree"):
        consistency_scores(a, b, c[:5], m)


def test_read_prediction_refuses_a_misshaped_npy(tmp_path):
    """A .npy must be (H, W, 2): a third channel is not silently dropped (docs/pairs.md: a misshaped file
    stops with one line naming it)."""
    np.save(tmp_path / "k.npy", np.zeros((H, W, 2), np.float32))
    assert read_prediction(tmp_path, "k", (H, W)).shape == (H, W, 2)
    np.save(tmp_path / "k.npy", np.zeros((H, W, 3), np.float32))
    with pytest.raises(InputError, match=r"shape \(\d+, \d+, 3\), expected"):
        read_prediction(tmp_path, "k", (H, W))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from test_pairs_generator import CUBE_F, CUBE_V, texture, write_obj

    from simkit.executors.run import generate_corpus

    d = tmp_path_factory.mktemp("evalcubes")
    for k in range(2):
        write_obj(d / f"cube{k}.obj", CUBE_V, CUBE_F, texture(k), size=(1.0, 0.9, 0.8))
    out = tmp_path_factory.mktemp("evalcorpus") / "pairs"
    cfg = {"assets": str(d), "width": 64, "height": 48, "samples": 2}
    s = generate_corpus("pairs", 2, out, seed=0, config=cfg, workers=1, progress=False)
    assert s.produced == 2
    return out


@pytest.mark.slow
def test_ground_truth_floor_and_prediction_folders(corpus, tmp_path):
    from simkit.episodes.reader import iter_corpus

    gt = evaluate_corpus(corpus)
    assert len(gt.rows) == 2 and 0 < gt.summary["ref_mse"] < 0.05  # shading changes keep the floor above 0
    pred = tmp_path / "pred"
    pred.mkdir()
    shifted = tmp_path / "shifted"
    shifted.mkdir()
    for ep in iter_corpus(corpus):
        np.save(pred / f"{ep['__key__']}.npy", ep["correspondence"])
        np.save(shifted / f"{ep['__key__']}.npy", ep["correspondence"] + np.float32(4.0))
    same = evaluate_corpus(corpus, pred)
    assert same.summary == pytest.approx(gt.summary)
    assert evaluate_corpus(corpus, shifted).summary["ref_mse"] > 2 * gt.summary["ref_mse"]
    first = next(iter(sorted(p.name for p in pred.iterdir())))
    (pred / first).unlink()
    with pytest.raises(InputError, match="no prediction for episode"):
        evaluate_corpus(corpus, pred)
    np.save(pred / first, np.zeros((4, 4, 2)))
    with pytest.raises(InputError, match=r"shape \(4, 4, 2\), expected \(48, 64, 2\)"):
        evaluate_corpus(corpus, pred)


@pytest.mark.slow
def test_cli_eval_pairs_and_assets_scan(corpus, tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["eval", "pairs", "--gt", str(corpus), "--out", str(tmp_path / "s.json")])
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-1]
    assert last.startswith("pairs consistency (ground truth, 2 pairs): Ref-MSE ")
    doc = json.loads((tmp_path / "s.json").read_text())
    assert f"{doc['summary']['ref_mse']:.6g}" in last
    r = runner.invoke(app, ["eval", "pairs", "--gt", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "error:" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["assets", "scan", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "asset folder does not exist" in r.output


@pytest.mark.slow
def test_inspect_draws_a_b_m_and_flow_per_pair(corpus, tmp_path):
    from PIL import Image

    r = CliRunner().invoke(app, ["inspect", str(corpus), "--out", str(tmp_path / "pics")])
    assert r.exit_code == 0, r.output
    pics = sorted(p.name for p in (tmp_path / "pics").glob("pair_*.png"))
    assert pics == ["pair_pairs_00000000.png", "pair_pairs_00000001.png"]
    row = np.asarray(Image.open(tmp_path / "pics" / pics[0]))
    cap = 18  # the caption strip above each panel (PANEL_CAPTIONS)
    assert row.shape[1] >= 4 * 64 and row.shape[0] >= cap + 48  # four 64 x 48 panels: A, B, M, flow
    m_panel = row[4 + cap : 4 + cap + 48, 4 + 2 * (64 + 4) : 4 + 2 * (64 + 4) + 64]
    assert set(np.unique(m_panel).tolist()) <= {0, 255}  # the covisibility panel is binary


def test_assets_scan_of_a_file_says_not_a_folder(tmp_path):
    (tmp_path / "f.glb").write_text("x")
    r = CliRunner().invoke(app, ["assets", "scan", str(tmp_path / "f.glb")])
    assert r.exit_code == 2 and "not a folder" in r.output and "does not exist" not in r.output


def test_assets_scan_out_in_a_new_folder_and_an_impossible_out(tmp_path):
    """--out in a folder that does not exist yet is created (was a FileNotFoundError traceback); an --out
    under a file is refused before the scan."""
    mesh = tmp_path / "meshes"
    mesh.mkdir()
    (mesh / "t.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")
    out = tmp_path / "new" / "sub" / "index.json"
    r = CliRunner().invoke(app, ["assets", "scan", str(mesh), "--out", str(out)])
    assert r.exit_code == 0 and out.is_file() and "accepted 1 of 1" in r.output, r.output
    r = CliRunner().invoke(app, ["assets", "scan", str(mesh), "--out", str(mesh / "t.obj" / "x.json")])
    assert r.exit_code == 2 and "which is a file" in r.output and "accepted" not in r.output


def test_summary_counts_exact_pairs_at_the_psnr_cap_and_json_is_strict():
    import json

    from simkit.commands import strict_json
    from simkit.eval.pairs.evaluate import PSNR_CAP_DB, PairsEvaluation

    ev = PairsEvaluation(
        rows=[
            {"key": "a", "ref_mse": 0.0, "ref_psnr": float("inf")},
            {"key": "b", "ref_mse": 0.01, "ref_psnr": 20.0},
            {"key": "c", "ref_mse": float("nan"), "ref_psnr": float("nan")},
        ]
    )
    assert ev.summary["ref_psnr"] == pytest.approx((PSNR_CAP_DB + 20.0) / 2)
    assert ev.summary["ref_mse"] == pytest.approx(0.005)
    text = json.dumps(strict_json({"rows": ev.rows}), allow_nan=False)
    assert json.loads(text)["rows"][0]["ref_psnr"] is None and "NaN" not in text
