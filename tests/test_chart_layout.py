"""Chart text never runs into other text or data (issue 44): the cost axis's labels, the learning curve's and the
criterion map's labels, measured as drawn."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Text

from benchmarks.report.charts.style import log_axis, panels, usd


def overlapping(boxes: list[object]) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])]


@pytest.mark.parametrize("costs", [[0.00022, 0.00065, 0.0059, 0.017], [0.00072, 0.0035, 0.011], [0.002, 0.0045],
                                   [1e-5, 0.5]])
def test_the_cost_axis_labels_never_touch(costs: list[float]) -> None:
    fig, axes = panels(8)  # the report's panels: three to a row
    for ax in axes:
        ax.plot(costs, [0.5] * len(costs), "o")
        log_axis(ax, costs, usd)
    fig.tight_layout()
    fig.canvas.draw()
    for ax in axes:
        labels = [t for t in ax.get_xticklabels() if t.get_text() and t.get_visible()]
        assert len(labels) >= 2
        boxes = [t.get_window_extent().expanded(1.05, 1.0) for t in labels]
        assert not overlapping(boxes), [t.get_text() for t in labels]
    plt.close(fig)


def test_the_map_labels_sit_on_no_marker_error_bar_or_other_label() -> None:
    """The default run's crowded middle (issue 44: `explore:readable=True` sat on fanout's and pipeline's bars)."""
    import pandas as pd

    from benchmarks.report.charts.criterion_map import _obstacles, place_labels, points_of

    rows = [("multihop", 0.65, 0.055, -0.04, 0.15, 0.55, 0.75), ("explore:readable=True", 0.635, 0.022, -0.06, 0.10,
            0.55, 0.72), ("pipeline", 0.677, 0.0, -0.05, 0.05, 0.58, 0.77), ("fanout", 0.583, -0.08, -0.16, 0.0,
            0.45, 0.72), ("support", 0.542, -0.09, -0.16, -0.02, 0.42, 0.67), ("repair", 0.977, 0.0, -0.04, 0.04,
            0.95, 1.0)]
    df = pd.DataFrame(rows, columns=["task", "drawability", "success_diff", "diff_ci_low", "diff_ci_high",
                                     "drawability_ci_low", "drawability_ci_high"]).assign(cost_ratio=0.6,
                                                                                         verdict="workflow")
    pts = points_of(df, None)
    fig, ax = plt.subplots(figsize=(10, 7))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.3, 0.3)
    fig.tight_layout()
    place_labels(ax, pts)
    fig.canvas.draw()
    px = fig.dpi / 72
    labels = [Text.get_window_extent(t) for t in ax.texts]  # the label's box, not its leader line's
    assert len(labels) == len(pts) and not overlapping(labels)
    for box in labels:
        for obstacle in (o for p in pts for o in _obstacles(ax, p, px)):
            assert not (box.x0 < obstacle[2] and obstacle[0] < box.x1 and box.y0 < obstacle[3] and obstacle[1] < box.y1)
    plt.close(fig)
