"""The Hebero pictures: one axis per unit in the demo plot, whole task names and a free legend in the
`eval hebero` bar chart (figures captured before they are closed)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def figures(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seen = []
    monkeypatch.setattr(plt, "close", lambda fig=None: seen.append(fig))
    return seen


def _axes_of(fig, label):
    return [ax for ax in fig.axes for line in ax.get_lines() if line.get_label() == label]


def test_demo_plot_puts_metres_millimetres_joints_and_reward_on_their_own_axes(tmp_path, figures):
    from simkit.generators.hebero.generator import draw_demo

    T = 21
    q = np.linspace(0.04, 0.01, T)  # the fingers close from 80 mm to 20 mm (the joints move as +q, -q)
    smp = {
        "__key__": "k",
        "demo": {"task_id": "goal/x", "object_names": ["bowl"], "articulation_names": ["stove/knob"]},
        "ee_pos": np.c_[np.zeros(T), np.zeros(T), np.linspace(1.2, 0.9, T)],
        "gripper_states": np.c_[q, -q],
        "object_poses": np.tile([0.1, 0.2, 0.9, 1, 0, 0, 0], (T, 1)),
        "articulation": np.linspace(0, 1.5, T)[:, None],
        "rewards": np.r_[np.zeros(T - 5), np.full(4, 10.0)],
    }
    assert draw_demo(smp, tmp_path).is_file()
    fig = figures[-1]
    (height,) = _axes_of(fig, "gripper height z")
    (finger,) = _axes_of(fig, "finger opening")
    (joint,) = _axes_of(fig, "stove/knob")
    (reward,) = _axes_of(fig, "reward per step")
    assert len({id(height), id(finger), id(joint), id(reward)}) == 4  # no two units share an axis
    assert "(m)" in height.get_ylabel() and "(mm)" in finger.get_ylabel()
    assert "rad" in joint.get_ylabel() and reward.get_ylabel() == "reward"
    opening = next(ln for ln in finger.get_lines() if ln.get_label() == "finger opening").get_ydata()
    np.testing.assert_allclose([opening[0], opening[-1]], [80.0, 20.0])  # q_left - q_right, not the sum


def test_bar_chart_shows_whole_task_names_and_keeps_the_legend_off_the_bars(tmp_path, figures):
    from simkit.eval.hebero.evaluate import EvalResult, bar_chart

    ids = [f"goal/put_the_wine_bottle_on_top_of_the_cabinet_{k}" for k in range(10)]
    sr = np.linspace(1.0, 0.0, 10)  # the first bar reaches the top, where a legend used to sit
    bar_chart(EvalResult(ids, sr, 3, label="p"), tmp_path / "sr.png")
    fig = figures[-1]
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [i.split("/", 1)[1] for i in ids]
    fig.canvas.draw()
    legend = (fig.legends or [ax.get_legend()])[0].get_window_extent()
    for bar in ax.patches:
        assert not legend.overlaps(bar.get_window_extent())
    renderer = fig.canvas.get_renderer()
    for label in ax.get_yticklabels():  # every name inside the figure
        box = label.get_window_extent(renderer)
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= fig.bbox.x1
