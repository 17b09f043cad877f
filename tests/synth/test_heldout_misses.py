"""bench/heldout_misses.py: each wrong answer of a held-out run in its class (exploring or the answer
step), and the table end to end over results that `arkg eval` wrote with the test model."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arkg.eval.results import Record

BENCH = Path(__file__).resolve().parents[2] / "bench"
ENTITIES = {"Loth Voyager", "MV Brabei", "Port of Kaimurk", "MV Redeiba", "Vabeis Star", "Trihaven"}


@pytest.fixture
def misses(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    spec = importlib.util.spec_from_file_location("heldout_misses", BENCH / "heldout_misses.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(gold: Any, cited: list[tuple[str, str, str]], shown: list[tuple[str, str, str]] = (), anchors: list[str] = ()) -> Record:
    triples = [{"head": h, "relation": r, "tail": t, "props": {}} for h, r, t in cited]
    events = [{"kind": "triples", "anchor": anchor, "triples": []} for anchor in anchors]
    events.append({"kind": "triples", "anchor": "x", "triples": [{"head": h, "relation": r, "tail": t} for h, r, t in shown]})
    return Record.model_validate(
        {
            "question_id": "q", "run": 0, "seed": 0, "strategy": "ark", "model": "test", "settings": {}, "answer": None,
            "gold": gold, "correct": False, "reasoning_strategies": [], "usage": {}, "elapsed_s": 0.0,
            "cited_triples": triples, "trace": {"events": events},
        }
    )  # fmt: skip


CALLS = ("MV Redeiba", "calls at", "Port of Kaimurk")
OTHER = ("Vabeis Star", "calls at", "Port of Kaimurk")


@pytest.mark.parametrize(
    ("question", "record", "expected"),
    [
        ("Which vessels call at Port of Kaimurk?", _record(["MV Redeiba", "Vabeis Star"], [CALLS, OTHER]), "open: gold cited"),
        ("Which vessels call at Port of Kaimurk?", _record(["MV Redeiba", "Vabeis Star"], [CALLS], shown=[CALLS, OTHER]), "open: gold shown, not cited"),
        ("Which vessels call at Port of Kaimurk?", _record(["MV Redeiba", "Vabeis Star"], [CALLS]), "open: gold not shown"),
        ("How many vessels call at Port of Kaimurk?", _record(2, [CALLS]), "open: a count"),
        ("Which was launched first, Loth Voyager or MV Brabei?", _record(["MV Brabei"], []), "open: a choice among named entities"),
        ("Was Loth Voyager launched after MV Brabei?", _record(True, [], anchors=["Loth Voyager"]), "yes/no: a named entity not reached"),
        ("Was Loth Voyager launched after MV Brabei?", _record(True, [], anchors=["Loth Voyager", "MV Brabei"]), "yes/no: every named entity reached"),
        ("Is Loth Voyager registered at Trihaven?", _record(False, [("Loth Voyager", "home port", "Trihaven")]), "yes/no: every named entity reached"),
    ],
)
def test_each_wrong_answer_gets_its_class(misses: ModuleType, question: str, record: Record, expected: str) -> None:
    assert misses.miss_class(record, question, ENTITIES.__contains__) == expected


def test_the_table_counts_the_wrong_answers_of_each_domain(tmp_path: Path) -> None:
    folder = tmp_path / "heldout"
    subprocess.run([sys.executable, BENCH / "heldout_domains.py", "--out", folder, "--per-template", "1"], check=True, capture_output=True)
    command = [sys.executable, BENCH / "heldout_eval.py", "--dir", folder, "--strategy", "ark", "--model", "test", "--limit", "4"]
    evaluated = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    command = [sys.executable, BENCH / "heldout_misses.py", "--dir", folder, "--model", "test", "--limit", "4", "--list"]
    printed = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rows = {line.split("|")[1].strip(): [cell.strip() for cell in line.strip("|").split("|")] for line in printed.splitlines() if line.startswith("| ")}
    domains = sorted(path.parent.name for path in folder.glob("*/questions.jsonl"))
    assert sorted(name for name in rows if name not in ("domain", "---", "**all**")) == domains
    overall = rows["**all**"]
    assert int(overall[1]) == 4 * len(domains)
    assert int(overall[2]) == sum(int(count) for count in overall[3:])  # every wrong answer has one class
    assert int(overall[2]) == printed.count("\n- ")
    # The wrong answers are those heldout_eval counted as not right.
    right = sum(int(cell.split("/")[0]) for line in evaluated.splitlines() if "**overall**" in line for cell in line.split("|")[5:7])
    assert int(overall[2]) == int(overall[1]) - right
