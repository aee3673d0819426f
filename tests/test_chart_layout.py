"""Chart text never runs into other text or data (issue 44): the cost axis's labels, the learning curve's and the
criterion map's labels, measured as drawn."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

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
