"""Report plots (matplotlib, the optional extra `report`): coverage vs correctness, and stability."""

from __future__ import annotations

import textwrap
from pathlib import Path

from arkg.errors import ArkgError
from arkg.eval.report import SystemReport

# Legend entries wrap at this many characters; the font shrinks down to the last size until the
# legend fits inside the axes (a legend outside them is cut off at the figure's edge).
LEGEND_WRAP = 50
LEGEND_SIZES = (9, 8, 7, 6, 5)


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ArkgError("Plots need matplotlib: pip install 'arkg[report]' (or leave out the report file)") from None
    matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    return plt


def save_plots(systems: list[SystemReport], stem: Path) -> list[Path]:
    """Write `<stem>-answer-rate-vs-accuracy.png` and, when some system has several runs,
    `<stem>-reliability.png` and `<stem>-risk-coverage.png`; return the files written."""
    plt = _pyplot()
    written = [_accuracy_plot(plt, systems, stem.with_name(f"{stem.name}-answer-rate-vs-accuracy.png"))]
    stochastic = [system for system in systems if system.reliabilities]
    if stochastic:
        written.append(_reliability_plot(plt, stochastic, stem.with_name(f"{stem.name}-reliability.png")))
        written.append(_risk_coverage_plot(plt, stochastic, stem.with_name(f"{stem.name}-risk-coverage.png")))
    return written


def _risk_coverage_plot(plt, systems: list[SystemReport], path: Path) -> Path:
    """Conditional accuracy against answer rate as the agreement the runs need rises (one curve per system)."""
    figure, axes = plt.subplots(figsize=(6.4, 4.8))
    for system in systems:
        points = [point for point in system.coverage if point.conditional_accuracy is not None]
        axes.plot(
            [point.answer_rate * 100 for point in points],
            [point.conditional_accuracy * 100 for point in points],
            marker="o",
            label=_entry(f"{system.label} ({system.scores.runs} runs)"),
        )
        for point in points:
            axes.annotate(f"{point.agreement:.0%}", (point.answer_rate * 100, point.conditional_accuracy * 100),
                          fontsize="x-small", xytext=(3, 3), textcoords="offset points")
    _percent_axes(axes, "Risk-coverage: agreement needed across runs")
    return _save(plt, figure, axes, path)


def _accuracy_plot(plt, systems: list[SystemReport], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(6.4, 4.8))
    for system in systems:
        rate, conditional = system.scores.answer_rate, system.scores.conditional_accuracy
        if conditional is None:
            continue  # nothing answered: no conditional accuracy to place
        axes.errorbar(
            rate.mean * 100, conditional.mean * 100,
            xerr=(rate.std or 0) * 100, yerr=(conditional.std or 0) * 100,
            fmt="o", capsize=3, label=_entry(system.label),
        )
    _percent_axes(axes, "Coverage vs correctness")
    return _save(plt, figure, axes, path)


def _percent_axes(axes, title: str) -> None:  # type: ignore[no-untyped-def]
    """Both scatter plots put answer rate against conditional accuracy, in percent."""
    axes.set(xlabel="Answer rate %", ylabel="Conditional accuracy %", xlim=(-3, 103), ylim=(-3, 103), title=title)
    axes.grid(alpha=0.3)


def _reliability_plot(plt, systems: list[SystemReport], path: Path) -> Path:
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(figsize=(6.4, 4.8))
    axes.hist(
        [system.reliabilities for system in systems], bins=10, range=(0, 1),
        label=[_entry(f"{system.label} ({system.scores.runs} runs)") for system in systems],
    )
    axes.set(xlabel="Per-question reliability (1 − H/log2 3)", ylabel="Questions", title="Reliability across runs")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # it counts questions
    return _save(plt, figure, axes, path)


def _entry(label: str) -> str:
    return textwrap.fill(label, LEGEND_WRAP)


def _save(plt, figure, axes, path: Path) -> Path:  # type: ignore[no-untyped-def]
    figure.tight_layout()
    if axes.get_legend_handles_labels()[0]:
        _legend_inside(figure, axes)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _legend_inside(figure, axes) -> None:  # type: ignore[no-untyped-def]
    """A legend within the axes: where it covers least, in the largest font that lets it fit."""
    renderer = figure.canvas.get_renderer()
    frame = axes.get_window_extent(renderer)
    for size in LEGEND_SIZES:
        legend = axes.legend(fontsize=size, loc="best", framealpha=0.8)
        box = legend.get_window_extent(renderer)
        if frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1:
            return
