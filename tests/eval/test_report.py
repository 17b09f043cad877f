"""Reports built from results files: Table III figures, the strategy breakdown, documents and plots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arkg.errors import ArkgError
from arkg.eval.metrics import Spread
from arkg.eval.report import build_report
from arkg.eval.report_render import abstention_table, evidence_table, percent, results_table, strategy_table, to_markdown, write_report
from arkg.eval.results import RunConfig

CONFIG = RunConfig(
    dataset="d.json", dataset_sha256="abc", kg="gold", strategy="ark", model="m",
    temperature=0.7, seed=0, max_tokens=64, settings={"mode": "free"},
)
GOLD = {"S1": True, "S2": False, "S3": True}
TAGS = {"S1": ["sports"], "S2": ["sports", "historical"], "S3": ["historical"]}


def write_results(path: Path, config: RunConfig, runs: list[dict[str, bool | None]], error_on: set = frozenset()) -> Path:
    lines = [config.model_dump_json()]
    for run, answers in enumerate(runs):
        for qid, answer in answers.items():
            lines.append(json.dumps({
                "question_id": qid, "run": run, "seed": run, "strategy": config.strategy, "model": config.model,
                "settings": config.settings, "answer": answer, "gold": GOLD[qid], "correct": answer == GOLD[qid],
                "reasoning_strategies": TAGS[qid], "usage": {"calls": 4, "prompt_tokens": 100, "completion_tokens": 20},
                "elapsed_s": 1.0, "error": "ModelError: x" if (qid, run) in error_on else None,
            }))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_stochastic_system_row_matches_hand_computed_figures(tmp_path: Path) -> None:
    runs = [{"S1": True, "S2": False, "S3": None}, {"S1": True, "S2": True, "S3": True}]
    [system] = build_report([write_results(tmp_path / "a.jsonl", CONFIG, runs)])
    row = results_table([system]).rows[0]
    # answer rate 2/3, 3/3 -> 83.33 ± 23.57; conditional 2/2, 2/3 -> 83.33 ± 23.57; overall 2/3, 2/3 -> 66.67 ± 0.00
    # Wilson at the mean: overall 2 of 3 -> 20.8–93.9; conditional 0.8333 of the 2.5 answered per run -> 27.8–98.5.
    # reliability: S1 1, S2 (1/2,1/2) 0.3691, S3 (1/2,1/2) 0.3691 -> 0.58; yes/no answers over both runs: 4 True, 1 False, 1 None
    assert row == [
        "ark · m · T0.7 · free · kg=gold-union", "2", "3", "83.33 ± 23.57", "83.33 ± 23.57 (27.8–98.5)",
        "66.67 ± 0.00 (20.8–93.9)", "0.58", "4 / 1 / 1", "4.0", "120",
    ]  # fmt: skip
    assert len(system.reliabilities) == 3


def test_strategy_breakdown_counts_each_tag(tmp_path: Path) -> None:
    [system] = build_report([write_results(tmp_path / "a.jsonl", CONFIG, [{"S1": True, "S2": True, "S3": True}])])
    table = strategy_table([system])
    assert table.rows == [["historical", "2", "50.0"], ["sports", "2", "50.0"]]


def test_single_run_reports_no_std_and_reliability_as_undefined(tmp_path: Path) -> None:
    config = CONFIG.model_copy(update={"temperature": 0.0})
    [system] = build_report([write_results(tmp_path / "a.jsonl", config, [dict.fromkeys(GOLD, None)])])
    row = results_table([system]).rows[0]
    assert row[3:7] == ["0.00", "n/a", "0.00 (0.0–56.1)", "n/a"]
    assert any("reliability is undefined" in note for note in system.notes)
    assert any("conditional accuracy is undefined" in note for note in system.notes)


def test_partial_runs_score_only_common_questions_and_errors_are_noted(tmp_path: Path) -> None:
    runs = [{"S1": True, "S2": False, "S3": True}, {"S1": True}]
    [system] = build_report([write_results(tmp_path / "a.jsonl", CONFIG, runs, error_on={("S1", 1)})])
    assert system.scores.questions == 1
    assert "2 question(s) answered in only some of the 2 runs are left out" in system.notes
    assert system.failed == 1


def test_files_of_different_systems_make_separate_rows(tmp_path: Path) -> None:
    a = write_results(tmp_path / "a.jsonl", CONFIG, [{"S1": True}])
    cot = CONFIG.model_copy(update={"strategy": "cot", "settings": {}, "kg": "none"})
    b = write_results(tmp_path / "b.jsonl", cot, [{"S1": False}])
    assert [s.label for s in build_report([a, b])] == ["ark · m · T0.7 · free · kg=gold-union", "cot · m · T0.7"]


def test_same_named_models_of_other_weights_or_settings_are_separate_systems_told_apart(tmp_path: Path) -> None:
    base = CONFIG.model_copy(update={
        "model": "llamacpp:m+adapter.gguf", "settings": {"mode": "free", "compare_values": False},
        "model_identity": "llamacpp:sha256:" + "a" * 64 + "+lora:sha256:" + "1" * 64,
    })  # fmt: skip
    other = base.model_copy(update={"model_identity": "llamacpp:sha256:" + "a" * 64 + "+lora:sha256:" + "2" * 64})
    computed = other.model_copy(update={"settings": {"mode": "free", "compare_values": True}})
    files = [
        write_results(tmp_path / "a.jsonl", base, [{"S1": True}]),
        write_results(tmp_path / "b.jsonl", other, [{"S1": False}]),
        write_results(tmp_path / "c.jsonl", computed, [{"S1": True}]),
        write_results(tmp_path / "d.jsonl", base, [{"S2": False}]),  # the other half of a.jsonl's run
    ]
    systems = build_report(files)
    assert [s.label for s in systems] == [
        "ark · adapter · T0.7 · free · kg=gold-union · compare_values=False · model 11111111",
        "ark · adapter · T0.7 · free · kg=gold-union · compare_values=False · model 22222222",
        "ark · adapter · T0.7 · free · kg=gold-union · compare_values=True · model 22222222",
    ]
    assert [s.scores.questions for s in systems] == [2, 1, 1]


def test_calls_answered_by_the_response_cache_count_as_calls(tmp_path: Path) -> None:
    path = write_results(tmp_path / "a.jsonl", CONFIG.model_copy(update={"temperature": 0.0}), [{"S1": True}])
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1])
    record["usage"] = {"calls": 1, "cached_calls": 3, "prompt_tokens": 100, "completion_tokens": 20}
    path.write_text("\n".join([lines[0], json.dumps(record)]) + "\n", encoding="utf-8")
    [system] = build_report([path])
    assert system.calls_per_question == 4  # a rerun from the cache costs the strategy as many calls


def test_percent_formatting() -> None:
    assert percent(Spread(0.5767, 0.0268, 30)) == "57.67 ± 2.68"
    assert percent(Spread(0.59, None, 1)) == "59.00"
    assert percent(None) == "n/a"


def test_markdown_report_with_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="plots need the optional extra 'report'")
    runs = [{"S1": True, "S2": False, "S3": None}, {"S1": True, "S2": True, "S3": True}]
    systems = build_report([write_results(tmp_path / "a.jsonl", CONFIG, runs)])
    written = write_report(systems, tmp_path / "report.md", as_html=False)
    assert [p.name for p in written] == [
        "report.md", "report-answer-rate-vs-accuracy.png", "report-reliability.png", "report-risk-coverage.png",
    ]  # fmt: skip
    assert all(p.stat().st_size > 0 for p in written)
    text = written[0].read_text(encoding="utf-8")
    assert "| ark · m · T0.7 · free · kg=gold-union | 2 | 3 | 83.33 ± 23.57 |" in text
    assert "![report-reliability](report-reliability.png)" in text
    assert "## Evidence and grounding" in text and "## Abstention: answer rate vs conditional accuracy" in text
    html = write_report(systems, tmp_path / "report.html", as_html=True)[0].read_text(encoding="utf-8")
    assert "<td>83.33 ± 23.57</td>" in html


def test_markdown_without_images() -> None:
    text = to_markdown([strategy_table([])], [], [], [])
    assert "## Plots" not in text


def test_missing_matplotlib_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    systems = build_report([write_results(tmp_path / "a.jsonl", CONFIG, [{"S1": True}])])
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    with pytest.raises(ArkgError, match=r"pip install 'arkg\[report\]'"):
        write_report(systems, tmp_path / "report.md", as_html=False)
    assert not (tmp_path / "report.md").exists()


def write_measured(path: Path, runs: list[dict[str, tuple[bool | None, int]]]) -> Path:
    """Records whose answers cite `n` facts, with evidence and grounding measured as `arkg eval` does; an
    answer citing exactly one fact is the one its facts support."""
    lines = [CONFIG.model_dump_json()]
    for run, answers in enumerate(runs):
        for qid, (answer, cited) in answers.items():
            lines.append(json.dumps({
                "question_id": qid, "run": run, "seed": run, "strategy": "ark", "model": "m", "settings": {},
                "answer": answer, "gold": GOLD[qid], "correct": answer == GOLD[qid], "reasoning_strategies": TAGS[qid],
                "usage": {"calls": 1}, "elapsed_s": 1.0,
                "cited_triples": [{"head": "a", "relation": "r", "tail": str(n)} for n in range(cited)],
                "evidence": {"gold": 2, "retrieved": 3, "cited": cited, "retrieved_gold": 2 if cited else 1,
                             "cited_gold": min(cited, 1), "cited_non_gold": max(cited - 1, 0), "hops": 1 + run},
                "grounding": {"basis": _basis(answer, cited),
                              "violations": ["forged"] if (qid, run) == ("S3", 1) else [],
                              "support": {"supported": answer is not None and cited == 1}},
            }))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _basis(answer: bool | None, cited: int) -> str:
    if answer is None:
        return "no answer"
    return "kg" if cited == 1 else "unsupported" if cited else "neither"


def test_evidence_grounding_and_grounded_abstention_from_hand_computed_records(tmp_path: Path) -> None:
    runs = [
        {"S1": (True, 1), "S2": (True, 0), "S3": (True, 2)},
        {"S1": (True, 1), "S2": (False, 1), "S3": (None, 0)},
    ]
    [system] = build_report([write_measured(tmp_path / "m.jsonl", runs)])
    evidence = system.evidence
    # retrieved recall: (1, 0.5, 1, 1, 1, 0.5) / 6; cited recall: (0.5, 0, 0.5, 0.5, 0.5, 0) / 6
    assert evidence.retrieved_recall == pytest.approx(5 / 6) and evidence.cited_recall == pytest.approx(2 / 6)
    # precision over the 4 records citing something: 1, 1/2, 1, 1
    assert evidence.citation_precision == pytest.approx(3.5 / 4) and evidence.hops == 1.5
    assert (system.grounding.violations, system.grounding.records_with_violations) == (1, 1)
    assert system.grounding.basis == {"kg": 3, "unsupported": 1, "neither": 1, "no answer": 1}
    # Grounded: run 0 keeps S1, S3 (S2 cites nothing) -> answer rate 2/3, both correct;
    # run 1 keeps S1, S2 -> 2/3, S1 correct and S2 correct (False) -> 1.0
    assert system.grounded.answer_rate.mean == pytest.approx(2 / 3)
    assert system.grounded.conditional_accuracy.mean == 1.0
    # Self-consistency over the two runs: at 50% every question has a majority answer: S1 True, S2 True or
    # False (tie: the first seen), S3 True; at 100% only S1 agrees.
    points = {point.agreement: point for point in system.coverage}
    assert points[1.0].answer_rate == pytest.approx(1 / 3) and points[1.0].conditional_accuracy == 1.0
    assert points[0.5].answer_rate == 1.0
    # Supported: S1 in both runs and S2 in run 1 (3 of the 5 definite answers). With support as the
    # selector, run 0 covers 1/3 and run 1 2/3, each answer right.
    assert system.supported_share == pytest.approx(3 / 5)
    assert system.supported.answer_rate.mean == pytest.approx(1 / 2) and system.supported.conditional_accuracy.mean == 1.0
    row = evidence_table([system]).rows[0]
    assert row[1:8] == ["83.3", "33.3", "87.5", "1.50", "1 in 1", "60.0", "3 / 0 / 0 / 0 / 1 / 1 / 1 / 0"]
    assert abstention_table([system]).rows[0][5:7] == ["50.00 ± 23.57", "100.00 ± 0.00"]


def test_a_failed_question_counts_as_no_answer_in_the_grounded_scores(tmp_path: Path) -> None:
    path = write_measured(tmp_path / "m.jsonl", [{"S1": (True, 1), "S2": (True, 1)}])
    lines = path.read_text(encoding="utf-8").splitlines()
    failed = json.loads(lines[2])  # S2: the model's reply could not be read, so nothing was measured
    failed.update(answer=None, correct=False, cited_triples=[], evidence=None, grounding=None, error="ModelError: cut off")
    path.write_text("\n".join([*lines[:2], json.dumps(failed)]) + "\n", encoding="utf-8")
    [system] = build_report([path])
    assert system.grounded is not None
    assert system.grounded.answer_rate.mean == 0.5 and system.grounded.conditional_accuracy.mean == 1.0


def test_files_of_older_versions_report_evidence_as_not_available(tmp_path: Path) -> None:
    [system] = build_report([write_results(tmp_path / "a.jsonl", CONFIG, [{"S1": True}])])
    assert system.evidence is None and system.grounding is None and system.grounded is None
    assert system.supported is None and system.supported_share is None
    assert evidence_table([system]).rows[0][1:] == ["n/a"] * 7
