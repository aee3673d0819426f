"""The criterion map's labels stay inside the axes, however crowded the right edge (drawable tasks sit there)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.text import Text

from benchmarks.report.charts.criterion_map import OFFSETS, Point, place_labels


def test_labels_crowded_at_the_right_edge_stay_inside_the_axes() -> None:
    fig, ax = plt.subplots(figsize=(10, 7))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.3, 0.3)
    pts = [Point(x, y, y - 0.05, y + 0.05, 300.0, x - 0.01, x + 0.01, "o", "#0072B2", "black", name)
           for x, y, name in [(0.97, 0.0, "repair"), (0.995, 0.0, "pipeline"), (0.98, -0.08, "fanout"),
                              (0.97, 0.055, "multihop")]]
    place_labels(ax, pts)
    fig.canvas.draw()
    frame = ax.get_window_extent()
    for text in ax.texts:
        box = text.get_window_extent()
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, text.get_text()
    plt.close(fig)


def test_crowded_labels_do_not_cover_each_other() -> None:
    """The default run's repair and pipeline sat a hair apart at the right edge; their labels must not overlap,
    and a label pushed away from its point has a leader line to it."""
    fig, ax = plt.subplots(figsize=(10, 7))
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.3, 0.3)
    pts = [Point(x, y, y - 0.05, y + 0.05, 300.0, x - 0.01, x + 0.01, "o", "#0072B2", "black", name)
           for x, y, name in [(0.97, 0.0, "repair"), (0.995, 0.0, "pipeline"), (0.98, -0.08, "fanout"),
                              (0.97, 0.055, "multihop"), (0.96, 0.01, "support")]]
    place_labels(ax, pts)
    fig.canvas.draw()
    # the label's own box: an annotation's extent also spans its leader line, which may pass another label
    boxes = [(t.get_text(), Text.get_window_extent(t)) for t in ax.texts]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), (a, b)
    near = {t.get_text() for t in ax.texts if t.xyann == OFFSETS[0][0]}
    assert all((t.arrow_patch is None) == (t.get_text() in near) for t in ax.texts)
    assert len(near) < len(ax.texts)  # crowded: some labels were pushed away, each with its line
    plt.close(fig)
