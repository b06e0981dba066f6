"""Text that overlaps in a figure, found from the drawn figure's geometry.

conftest.py runs :func:`layout_problems` on every figure a test saves, so a
recipe's or ``slingsim plot``'s figure with colliding labels fails its test.
"""
import itertools

TOLERANCE_PX = 1.0
"""Boxes may touch by this much (anti-aliasing, rounding) without counting as overlap."""


def _overlap(a, b):
    t = TOLERANCE_PX
    return a.x0 + t < b.x1 - t and b.x0 + t < a.x1 - t and a.y0 + t < b.y1 - t and b.y0 + t < a.y1 - t


def layout_problems(fig):
    """Descriptions of every overlap: two texts, or a text over an axes it does not belong to."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    drawn_ticks, all_ticks = _tick_labels(fig)
    texts = []
    for text in fig.findobj(Text):
        if id(text) in all_ticks and id(text) not in drawn_ticks:
            continue  # a tick matplotlib keeps but does not draw (outside the view)
        if not text.get_visible() or not text.get_text().strip():
            continue
        box = text.get_window_extent(renderer)
        if box.width <= 0 or not _overlap(box, canvas):
            continue
        texts.append((text, box))
    problems = []
    for (a, abox), (b, bbox) in itertools.combinations(texts, 2):
        if _overlap(abox, bbox):
            problems.append(f"text {a.get_text()!r} overlaps text {b.get_text()!r}")
    areas = [(ax, ax.get_window_extent(renderer)) for ax in fig.axes if ax.get_visible()]
    for text, box in texts:
        owner = text.axes
        for ax, area in areas:
            if ax is not owner and _overlap(box, area) and not _inside(owner, ax):
                problems.append(f"text {text.get_text()!r} overlaps the axes {ax.get_title() or ax.get_label()!r}")
    return problems


def _tick_labels(fig):
    """ids of the tick labels drawn (ticks inside each axis' view), and of every tick label."""
    drawn, every = set(), set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                every.update((id(tick.label1), id(tick.label2)))
            # matplotlib's own list of the ticks it draws (private, stable since 3.1)
            for tick in axis._update_ticks():
                drawn.update(id(label) for label in (tick.label1, tick.label2) if label.get_visible())
    return drawn, every


def _inside(owner, ax):
    """Whether ``owner`` (a text's axes) is drawn inside ``ax`` (an inset or a legend's parent), or is ``ax``."""
    return owner is not None and (owner is ax or getattr(owner, "_axes", None) is ax)
