"""Pictures of the packing corpus: the final panel shows the boxes, the strips say which step they show."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from simkit.generators.packing.generator import box_colour_map, contact_sheet_figure, strip_figure, top_ids
from simkit.scenes.packing.layout import compile_case


def _heightmaps(case):
    L, W, _ = case.container.size
    hms = [np.zeros((L, W), np.int32)]
    for p in case.expert:
        b = case.box(p.box_id)
        lx, ly = b.footprint(p.orientation)
        h = hms[-1].copy()
        h[p.x : p.x + lx, p.y : p.y + ly] = p.z + b.height
        hms.append(h)
    return np.stack(hms)


def test_final_panel_gives_every_visible_box_its_own_colour():
    case = compile_case("medium", np.random.default_rng(4))
    hms = _heightmaps(case)
    assert np.ptp(hms[-1]) == 0  # a full container: the final heightmap alone is one uniform colour
    ids = top_ids(case, len(case.expert))
    rgb = box_colour_map(case, len(case.expert))
    visible = np.unique(ids)
    colours = {tuple(np.round(rgb[ids == b][0], 4)) for b in visible}
    assert len(visible) >= 2 and len(colours) == len(visible) == len({b % 20 for b in visible})
    for b in visible:  # one colour over each box's whole top
        assert np.allclose(rgb[ids == b], rgb[ids == b][0])


def test_contact_sheet_has_colour_bars_and_strips_label_each_step():
    case = compile_case("easy", np.random.default_rng(1))
    hms = _heightmaps(case)
    fig = contact_sheet_figure(plt, [(case, hms), (case, hms)])
    bars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert len(bars) == 2 and all("height (cm)" in ax.get_ylabel() for ax in bars)
    titles = [ax.get_title() for ax in fig.axes]
    assert sum(t.startswith("final, seen from above") for t in titles) == 2
    T = len(case.expert)
    levels = len({p.z for p in case.expert})
    name = f"{levels} box level" + ("" if levels == 1 else "s")
    assert sum(t == f"final, side view along +x:\n{name}, nearest in front" for t in titles) == 2
    side = next(ax for ax in fig.axes if ax.get_title().startswith("final, side view"))
    assert len(side.patches) == T  # every box, not only the top layer
    assert not any("\\n" in t for t in titles)  # line breaks, not a literal backslash-n
    plt.close(fig)
    fig = strip_figure(plt, case, hms, "k")
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    T = len(case.expert)
    assert titles[0] == "step 0: empty" and len(titles) == T + 1
    assert titles[1:] == [f"step {t + 1}: box {p.box_id}" for t, p in enumerate(case.expert)]
    assert case.tier in fig._suptitle.get_text()
    plt.close(fig)
