"""bench/tune_figures.py on a hand-made results file: accuracy split, stops and the lean of yes/no answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIGURES = Path(__file__).resolve().parents[2] / "bench" / "tune_figures.py"


def _record(gold: object, answer: object, stop: str, question_id: str = "borders-1") -> dict:
    return {
        "question_id": question_id, "gold": gold, "answer": answer, "correct": answer == gold, "stop_reason": stop, "elapsed_s": 1.0,
        "usage": {"calls": 3, "cached_calls": 0, "prompt_tokens": 100, "completion_tokens": 10}, "trace": {"events": []},
    }  # fmt: skip


def _results(path: Path, records: list[dict]) -> Path:
    """A results file as `arkg eval` writes it: a header line, then one record per line."""
    path.write_text("\n".join(json.dumps(line) for line in [{"format": "arkg-eval/1"}, *records]) + "\n", encoding="utf-8")
    return path


def test_the_endings_table_counts_stops_and_yes_no_answers_by_gold(tmp_path: Path) -> None:
    own, k_max = "the model stopped exploring", "k_max reasoning steps reached"
    records = [
        _record(True, True, own), _record(True, True, k_max), _record(False, True, own),
        _record(False, None, own), _record(False, False, own), _record(["Paris"], ["Lyon"], k_max),
    ]  # fmt: skip
    results = _results(tmp_path / "run.jsonl", records)
    printed = subprocess.run([sys.executable, FIGURES, f"tuned={results}"], capture_output=True, text=True, check=True).stdout
    rows = [line for line in printed.splitlines() if line.startswith("| tuned |")]
    assert rows[0].startswith("| tuned | 6 | 3/5 (60%) | 0/1 (0%) | 3/6 (50%) |")
    assert rows[1] == f"| tuned | 4 {own}; 2 {k_max} | 3, 1, 1 | 2/2 (100%) | 1/3 (33%) |"


def test_a_label_may_hold_an_equals_sign_and_intervals_are_wilson(tmp_path: Path) -> None:
    records = [_record(True, True, "stop")] * 8 + [_record(True, False, "stop")] * 2
    results = _results(tmp_path / "run.jsonl", records)
    printed = subprocess.run(
        [sys.executable, FIGURES, f"lr=3e-4={results}", "--intervals"], capture_output=True, text=True, check=True
    ).stdout
    # 8 of 10: the 95% Wilson interval is 49% to 94%.
    assert "| lr=3e-4 | 10 | 8/10 (80%; 49%-94%) | - | 8/10 (80%; 49%-94%) |" in printed


def test_a_results_file_that_is_not_there_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "none.jsonl"
    run = subprocess.run([sys.executable, FIGURES, f"tuned={missing}"], capture_output=True, text=True)
    assert run.returncode == 2 and str(missing) in run.stderr


def test_templates_where_runs_differ_get_a_row_each(tmp_path: Path) -> None:
    first = [_record(True, True, "stop", "borders-1"), _record(True, True, "stop", "borders-2"), _record(["Lima"], ["Lima"], "stop", "capital_of-7")]
    second = [_record(True, False, "stop", "borders-1"), _record(True, True, "stop", "borders-2"), _record(["Lima"], ["Lima"], "stop", "capital_of-7")]
    paths = [_results(tmp_path / "first.jsonl", first), _results(tmp_path / "second.jsonl", second)]
    printed = subprocess.run(
        [sys.executable, FIGURES, f"a={paths[0]}", f"b={paths[1]}", "--templates"], capture_output=True, text=True, check=True
    ).stdout
    assert "| template | questions | a | b |" in printed
    assert "| borders | 2 | 2 | 1 |" in printed
    assert "capital_of" not in printed  # both right on it: no row


def _attempt(kind: str, step: int, proposed: str, ok: bool) -> dict:
    if kind == "anchor":
        return {"kind": "anchor", "step": step, "proposed": proposed, "valid": ok}
    return {"kind": "relation", "step": step, "proposed": proposed, "outcome": "valid" if ok else "invalid"}


def test_the_invalid_table_finds_repeated_rejections_per_decision_and_compares_answers(tmp_path: Path) -> None:
    repeats_then_moves_on = _record(True, True, "stop", "borders-1")
    repeats_then_moves_on["trace"]["events"] = [
        _attempt("anchor", 1, "Briston", False), _attempt("anchor", 1, "Briston", False), _attempt("anchor", 1, "Bristol", True),
        {"kind": "relations", "step": 1}, _attempt("relation", 1, "pet", False), _attempt("relation", 1, "pet", False),
    ]  # fmt: skip
    # "pet" rejected at one anchor and once at the next: two decisions, no repeat.
    new_decision = _record(True, False, "stop", "borders-2")
    new_decision["trace"]["events"] = [
        {"kind": "relations", "step": 1}, _attempt("relation", 1, "pet", False), _attempt("relation", 1, "", True),
        {"kind": "relations", "step": 1}, _attempt("relation", 1, "pet", False), _attempt("relation", 1, "has pet", True),
    ]  # fmt: skip
    clean = _record(True, True, "stop", "borders-3")
    paths = [
        _results(tmp_path / "first.jsonl", [repeats_then_moves_on, new_decision, clean]),
        _results(tmp_path / "second.jsonl", [clean, repeats_then_moves_on]),
    ]
    printed = subprocess.run(
        [sys.executable, FIGURES, f"a={paths[0]}", f"b={paths[1]}", "--invalid"], capture_output=True, text=True, check=True
    ).stdout
    assert "| a | 2 | 2 | 1 | 3/3 |" in printed  # the anchor repeat goes on to "Bristol"; the relation repeat does not
    assert "| b | 1 | 2 | 1 | 2/2 |" in printed


def test_rescore_names_the_answers_today_s_scoring_judges_otherwise(tmp_path: Path) -> None:
    semicolons = {**_record(["Abuja", "Tripoli, Libya"], "Abuja; Tripoli, Libya", "stop", "neighbour_capitals-1"), "correct": False}
    records = [semicolons, _record(True, True, "stop", "borders-2"), _record(["Lima"], "Quito", "stop", "capital_of-3")]
    results = _results(tmp_path / "run.jsonl", records)
    printed = subprocess.run([sys.executable, FIGURES, f"kga={results}", "--rescore"], capture_output=True, text=True, check=True).stdout
    assert "| kga | 1 | neighbour_capitals-1 |" in printed


def test_snap_names_tells_which_open_answers_the_setting_changes_and_whether_they_become_right(tmp_path: Path) -> None:
    cited = [{"head": "Velora Rafukeil", "relation": "described by", "tail": "R. Sand"}, {"head": "Tirsa Trus", "relation": "described by", "tail": "R. Sand"}]
    misspelt = {**_record(["Velora Rafukeil", "Tirsa Trus"], "Velora Rafieil, Tirsa Trus", "stop", "lookup-1"), "cited_triples": cited}
    unknown = {**_record(["Quenta Has"], "Paris", "stop", "lookup-2"), "cited_triples": cited}
    results = _results(tmp_path / "run.jsonl", [misspelt, unknown, _record(True, True, "stop", "borders-2")])
    printed = subprocess.run([sys.executable, FIGURES, f"ark={results}", "--snap-names"], capture_output=True, text=True, check=True).stdout
    assert "| ark | 1 | 0 | 1 | lookup-1 |" in printed
