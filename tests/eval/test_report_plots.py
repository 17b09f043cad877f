"""Report plots: every legend lies inside its axes (none cut off at the figure's edge, however long the
labels), and the reliability histogram counts questions in whole numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report import CONFIG, write_results

from arkg.eval.report import build_report

matplotlib = pytest.importorskip("matplotlib", reason="plots need the optional extra 'report'")

from arkg.eval.plots import save_plots  # noqa: E402

# Long labels: abstention settings are part of the label.
ABSTAINING = {"mode": "free", "abstention": {"grounded": True, "samples": 5, "agreement": 0.6, "temperature": 0.7}}


@pytest.fixture
def figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """The figures save_plots drew, by file name, kept open for inspection."""
    import matplotlib.pyplot as plt

    kept: dict[str, object] = {}
    monkeypatch.setattr(plt, "close", lambda figure: kept.setdefault(f"figure{len(kept)}", figure))
    runs = [{"S1": True, "S2": False, "S3": None}, {"S1": True, "S2": True, "S3": True}, {"S1": False, "S2": True, "S3": True}]
    files = [
        write_results(tmp_path / f"{n}.jsonl", CONFIG.model_copy(update={"temperature": t, "settings": ABSTAINING}), runs)
        for n, t in enumerate((0.3, 0.7, 1.0))
    ]
    systems = build_report(files)
    assert all(len(system.label) > 90 for system in systems)
    written = save_plots(systems, tmp_path / "report")
    return {path.name: figure for path, figure in zip(written, kept.values())}


def test_every_legend_lies_inside_its_axes(figures: dict[str, object]) -> None:
    assert sorted(figures) == ["report-answer-rate-vs-accuracy.png", "report-reliability.png", "report-risk-coverage.png"]
    for name, figure in figures.items():
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        [axes] = figure.axes  # type: ignore[attr-defined]
        legend, frame = axes.get_legend().get_window_extent(renderer), axes.get_window_extent(renderer)
        assert frame.x0 <= legend.x0 and legend.x1 <= frame.x1 and frame.y0 <= legend.y0 and legend.y1 <= frame.y1, name
        assert len(axes.get_legend().get_texts()) == 3


def test_the_reliability_histogram_counts_whole_questions(figures: dict[str, object]) -> None:
    [axes] = figures["report-reliability.png"].axes  # type: ignore[attr-defined]
    ticks = [tick for tick in axes.get_yticks() if axes.get_ylim()[0] <= tick <= axes.get_ylim()[1]]
    assert len(ticks) >= 2 and all(float(tick).is_integer() for tick in ticks)
