"""The results table names the KG each system ran on, explains those names once, and is headed after
ARK-V1's Table III only when every row follows the paper's protocol."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report import CONFIG, write_results

from arkg.agents import protocol_settings, strategy_settings
from arkg.data import TUNED_ADAPTERS
from arkg.eval.report import build_report
from arkg.eval.report_render import results_table
from arkg.eval.setup import PER_QUESTION_KG

TABLE_III = "Results (cf. ARK-V1 Table III)"
MODEL = "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf"
# An ARK run as the paper made it (`--protocol paper`: free mode, outgoing edges, c_max 5, k_max 8, the
# paper's retries), untuned, on per-question graphs; results files record every setting.
PAPER_SETTINGS = strategy_settings("ark", protocol_settings("ark", "paper")).model_dump(mode="json")
PAPER = CONFIG.model_copy(update={
    "kg": PER_QUESTION_KG, "model": MODEL, "model_identity": "llamacpp:sha256:" + "a" * 64, "settings": PAPER_SETTINGS,
})  # fmt: skip


def table(tmp_path: Path, *configs):
    files = [write_results(tmp_path / f"{n}.jsonl", config, [{"S1": True}]) for n, config in enumerate(configs)]
    return results_table(build_report(files))


def test_a_gold_union_run_is_labelled_so_and_not_headed_as_table_iii(tmp_path: Path) -> None:
    """A run on the union of the gold triples says so in its label and in the legend, and the table
    is not presented as comparable with the paper's Table III."""
    result = table(tmp_path, PAPER.model_copy(update={"kg": "gold"}))
    assert result.rows[0][0] == "ark · SmolLM2-135M-Instruct · T0.7 · free · paper protocol · kg=gold-union"
    assert result.title == "Results"
    assert "kg=gold-union: one graph of the union of every question's gold triples" in result.footnote


def test_a_run_following_the_paper_protocol_is_headed_as_table_iii(tmp_path: Path) -> None:
    """ARK, free mode, outgoing edges, the paper's bounds, an untuned model, per-question graphs."""
    result = table(tmp_path, PAPER)
    assert result.title == TABLE_III
    assert result.rows[0][0] == "ark · SmolLM2-135M-Instruct · T0.7 · free · paper protocol · kg=per-question"
    assert "kg=per-question: each question's own graph" in result.footnote


@pytest.mark.parametrize(
    "change",
    [
        {"settings": {**PAPER.settings, "mode": "constrained"}},
        {"settings": {**PAPER.settings, "edges": "both"}},
        {"settings": {**PAPER.settings, "c_max": 3}},
        {"settings": {**PAPER.settings, "k_max": 4}},
        {"settings": {**PAPER.settings, "retry_repeats": False}},
        {"model": f"{MODEL}+{TUNED_ADAPTERS['tuned']}",
         "model_identity": f"{PAPER.model_identity}+lora:sha256:{'1' * 64}"},
        {"strategy": "kg-agent"},
        {"perturbation": "remove-gold"},
    ],
    ids=["constrained", "both-edges", "c_max", "k_max", "no-paper-retries", "tuned-adapter", "other-strategy", "perturbed"],
)
def test_any_departure_from_the_paper_protocol_drops_the_table_iii_heading(tmp_path: Path, change: dict) -> None:
    """One such row among paper-protocol rows is enough for the plain heading."""
    assert table(tmp_path, PAPER, PAPER.model_copy(update=change)).title == "Results"


def test_runs_differing_only_in_their_kg_get_different_labels(tmp_path: Path) -> None:
    """Gold union, per-question graphs, neighbourhood snapshots and a --db store each name their KG,
    and the legend explains each name once."""
    kgs = ["gold", PER_QUESTION_KG, f"{PER_QUESTION_KG}:snapshots", "bolt://localhost:7687"]
    result = table(tmp_path, *(PAPER.model_copy(update={"kg": kg}) for kg in kgs))
    labels = [row[0] for row in result.rows[: len(kgs)]]  # then the constant baselines
    assert [label.rpartition(" · ")[2] for label in labels] == [
        "kg=gold-union", "kg=per-question", "kg=per-question:snapshots", "kg=db:bolt://localhost:7687",
    ]  # fmt: skip
    for name in ("gold-union", "per-question", "per-question:snapshots", "db:bolt://localhost:7687"):
        assert result.footnote.count(f"kg={name}: ") == 1
    assert result.title == "Results"  # the --db store and gold union are not the paper's graphs


def test_a_strategy_reading_no_kg_names_none(tmp_path: Path) -> None:
    result = table(tmp_path, CONFIG.model_copy(update={"strategy": "cot", "settings": {}, "kg": "none"}))
    assert result.rows[0][0] == "cot · m · T0.7"
    assert "kg=" not in result.footnote
