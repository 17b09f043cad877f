"""Report plots (matplotlib, the optional extra `report`): coverage vs correctness, and stability."""

from __future__ import annotations

from pathlib import Path

from arkg.errors import ArkgError
from arkg.eval.report import SystemReport


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
    `<stem>-reliability.png`; return the files written."""
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
            label=f"{system.label} (T={system.config.temperature:g}, {system.scores.runs} runs)",
        )
        for point in points:
            axes.annotate(f"{point.agreement:.0%}", (point.answer_rate * 100, point.conditional_accuracy * 100),
                          fontsize="x-small", xytext=(3, 3), textcoords="offset points")
    return _finish(plt, figure, axes, "Risk-coverage: agreement needed across runs", path)


def _accuracy_plot(plt, systems: list[SystemReport], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(6.4, 4.8))
    for system in systems:
        rate, conditional = system.scores.answer_rate, system.scores.conditional_accuracy
        if conditional is None:
            continue  # nothing answered: no conditional accuracy to place
        axes.errorbar(
            rate.mean * 100, conditional.mean * 100,
            xerr=(rate.std or 0) * 100, yerr=(conditional.std or 0) * 100,
            fmt="o", capsize=3, label=f"{system.label} (T={system.config.temperature:g})",
        )
    return _finish(plt, figure, axes, "Coverage vs correctness", path)


def _finish(plt, figure, axes, title: str, path: Path) -> Path:  # type: ignore[no-untyped-def]
    """Both plots put answer rate against conditional accuracy, in percent."""
    axes.set(xlabel="Answer rate %", ylabel="Conditional accuracy %", xlim=(-3, 103), ylim=(-3, 103), title=title)
    axes.grid(alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _reliability_plot(plt, systems: list[SystemReport], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(6.4, 4.8))
    axes.hist(
        [system.reliabilities for system in systems], bins=10, range=(0, 1),
        label=[f"{system.label} (T={system.config.temperature:g}, {system.scores.runs} runs)" for system in systems],
    )
    axes.set(xlabel="Per-question reliability (1 − H/log2 3)", ylabel="Questions", title="Reliability across runs")
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
