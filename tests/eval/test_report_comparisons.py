"""Rows against each other and against chance: constant baselines of a yes/no data set, a warning when
rows ran on different questions, and paired exact McNemar tests over the questions both ran."""

from __future__ import annotations

import json
from pathlib import Path

from test_report import CONFIG

from arkg.eval.comparisons import constant_baselines, paired_comparisons, question_set_warning
from arkg.eval.report import build_report
from arkg.eval.report_render import paired_table, report_tables, results_table
from arkg.eval.results import RunConfig

T0 = CONFIG.model_copy(update={"temperature": 0.0})
# Ten claims split 5/5, as a CoLoTa sample: C2, C4, ... are true.
GOLD = {f"C{n}": n % 2 == 0 for n in range(1, 11)}


def write_claims(path: Path, config: RunConfig, runs: list[dict[str, bool | str | None]], gold: dict | None = None) -> Path:
    gold = gold or GOLD
    lines = [config.model_dump_json()]
    for run, answers in enumerate(runs):
        for qid, answer in answers.items():
            lines.append(json.dumps({
                "question_id": qid, "run": run, "seed": run, "strategy": config.strategy, "model": config.model,
                "settings": config.settings, "answer": answer, "gold": gold[qid], "correct": answer == gold[qid],
                "reasoning_strategies": [], "usage": {"calls": 1}, "elapsed_s": 1.0,
            }))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_always_true_on_a_balanced_yes_no_set_ties_a_system_at_50_percent(tmp_path: Path) -> None:
    [system] = build_report([write_claims(tmp_path / "a.jsonl", T0, [dict.fromkeys(GOLD, True)])])
    rows = results_table([system]).rows
    assert [row[0] for row in rows] == ["ark · m · T0 · free · kg=gold-union", "always True", "always False"]
    # 5 of 10 right: 50.00 with the Wilson interval 23.7–76.3, for the system and both constant answers.
    assert {row[5] for row in rows} == {"50.00 (23.7–76.3)"}
    assert rows[0][7] == "10 / 0 / 0" and rows[1][7] == "10 / 0 / 0" and rows[2][7] == "0 / 10 / 0"
    assert rows[1][1] == "–" and rows[1][8:] == ["–", "–"]


def test_no_constant_baseline_when_some_question_is_open(tmp_path: Path) -> None:
    gold = {**GOLD, "C11": ["Paris"]}
    path = write_claims(tmp_path / "a.jsonl", T0, [{**dict.fromkeys(GOLD, True), "C11": "Paris"}], gold)
    assert constant_baselines(build_report([path])) == []


def test_rows_on_different_question_sets_are_named_and_paired_on_the_shared_ids(tmp_path: Path) -> None:
    """10 against 5 questions (the first five): the warning names both rows; the paired test uses the 5."""
    everything = write_claims(tmp_path / "a.jsonl", T0, [dict.fromkeys(GOLD, True)])
    cot = T0.model_copy(update={"strategy": "cot", "kg": "none", "settings": {}})
    half = write_claims(tmp_path / "b.jsonl", cot, [{qid: GOLD[qid] for qid in list(GOLD)[:5]}])
    systems = build_report([everything, half])
    warning = question_set_warning(systems)
    assert warning is not None
    assert "2 different question sets (10 questions: ark · m · T0 · free · kg=gold-union; 5 questions: cot · m · T0)" in warning
    [pair] = paired_comparisons(systems)
    # On C1..C5 the first is right on C2, C4; the second on all five: 3 discordant, all one way.
    assert (pair.shared, pair.only_first, pair.only_second, pair.p) == (5, 0, 3, 0.25)
    assert paired_table(systems).rows == [
        ["ark · m · T0 · free · kg=gold-union", "cot · m · T0", "5", "40.0", "100.0", "-60.0", "0", "3", "0.250"]
    ]
    # Each question set gets its own constant answers, named after its first row.
    assert [row[0] for row in results_table(systems).rows[2:]] == [
        "always True · questions of ark · m · T0 · free · kg=gold-union",
        "always False · questions of ark · m · T0 · free · kg=gold-union",
        "always True · questions of cot · m · T0",
        "always False · questions of cot · m · T0",
    ]


def test_as_many_questions_but_other_ids_is_also_warned_about(tmp_path: Path) -> None:
    ids = list(GOLD)
    first = write_claims(tmp_path / "a.jsonl", T0, [dict.fromkeys(ids[:5], True)])
    second = write_claims(tmp_path / "b.jsonl", T0.model_copy(update={"temperature": 0.7}), [dict.fromkeys(ids[5:], True)])
    systems = build_report([first, second])
    assert "5 questions: ark · m · T0 · free · kg=gold-union; 5 questions: ark · m · T0.7" in (question_set_warning(systems) or "")
    assert paired_comparisons(systems) == []  # no question in common


def test_the_same_questions_need_no_warning(tmp_path: Path) -> None:
    first = write_claims(tmp_path / "a.jsonl", T0, [dict.fromkeys(GOLD, True)])
    second = write_claims(tmp_path / "b.jsonl", T0.model_copy(update={"temperature": 0.7}), [dict.fromkeys(GOLD, False)])
    assert question_set_warning(build_report([first, second])) is None


def test_mcnemar_over_one_against_nine_discordant_questions(tmp_path: Path) -> None:
    """The first system is right only on C1, the second on C2..C10 only: b = 1, c = 9, p = 0.0215."""
    first = write_claims(tmp_path / "a.jsonl", T0, [{qid: GOLD[qid] == (qid == "C1") for qid in GOLD}])
    second = write_claims(tmp_path / "b.jsonl", T0.model_copy(update={"temperature": 0.7}), [{qid: GOLD[qid] != (qid == "C1") for qid in GOLD}])
    [row] = paired_table(build_report([first, second])).rows
    assert row[2:] == ["10", "10.0", "90.0", "-80.0", "1", "9", "0.021"]


def test_systems_with_several_runs_are_not_paired(tmp_path: Path) -> None:
    single = write_claims(tmp_path / "a.jsonl", T0, [dict.fromkeys(GOLD, True)])
    runs = write_claims(tmp_path / "b.jsonl", CONFIG, [dict.fromkeys(GOLD, True), dict.fromkeys(GOLD, False)])
    systems = build_report([single, runs])
    assert paired_comparisons(systems) == []
    assert "Paired comparisons" not in [table.title for table in report_tables(systems)]
