"""bench/default_targets.py end to end with the test model: every row read from results files that
`arkg eval` wrote, its goal, and whether it is met; and bench/heldout_eval.py's `--model default`, which
runs `arkg eval` with no --model."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arkg.data import SAMPLE_QUESTIONS
from arkg.eval.results import read_results

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _script(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _arkg(*args: object) -> None:
    subprocess.run([sys.executable, "-m", "arkg", *map(str, args)], check=True, capture_output=True)


def _row(printed: str, target: str) -> list[str]:
    for line in printed.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] == target:
            return cells
    raise AssertionError(f"no row {target!r} in:\n{printed}")


def test_every_target_is_read_from_its_results_file_with_its_goal(tmp_path: Path) -> None:
    demo_questions, demo = tmp_path / "demo-questions.jsonl", tmp_path / "demo.jsonl"
    subprocess.run([sys.executable, BENCH / "default_targets.py", "--write-demo", demo_questions], check=True)
    written = [json.loads(line) for line in demo_questions.read_text(encoding="utf-8").splitlines()]
    assert [(entry["question"], entry["answer"]) for entry in written] == [(s.question, s.answer) for s in SAMPLE_QUESTIONS]
    _arkg("eval", demo_questions, "--db", "sample", "--strategy", "ark", "--model", "test", "--out", demo)

    folder = tmp_path / "heldout"
    subprocess.run([sys.executable, BENCH / "heldout_domains.py", "--out", folder, "--per-template", "1"], check=True, capture_output=True)
    subprocess.run(
        [sys.executable, BENCH / "heldout_eval.py", "--dir", folder, "--strategy", "ark", "--model", "test", "--limit", "3"],
        check=True,
        capture_output=True,
    )

    # The demo results stand in for the geography and CoLoTa runs: yes/no golds, one of them False.
    command = [sys.executable, BENCH / "default_targets.py", "--demo", demo, "--heldout", folder, "--model", "test", "--limit", "3"]
    command += ["--geography", demo, "--geography-floor", "0.5", "--colota", demo]
    printed = subprocess.run(command, check=True, capture_output=True, text=True).stdout

    right = sum(record.correct for record in read_results(demo).latest().values())
    assert _row(printed, "the sample KG's demo questions")[2:] == [f"{right}/4", "all", "yes" if right == 4 else "no"]
    geography = _row(printed, "geography test split (no regression)")
    assert geography[3:] == [">= 50%", "yes" if right >= 2 else "no"]
    colota = _row(printed, "CoLoTa, overall accuracy")
    assert colota[3:] == [">= 1/4 (25%), always False", "yes" if right >= 1 else "no"]

    # Against a baseline run on the same questions (here the run itself): never below it, p = 1.
    command = [sys.executable, BENCH / "default_targets.py", "--geography", demo, "--geography-baseline", demo]
    printed_paired = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    geography = _row(printed_paired, "geography test split (no regression)")
    share = f"{right}/4 ({100 * right / 4:.0f}%)"
    assert geography[2:] == [f"{share}; only this run right 0, only the baseline 0, p = 1.000", f">= {right}/4, the baseline", "yes"]
    assert f"geography baseline: {demo} (ark · test; " in printed_paired

    # A baseline that differs on one question: that question is counted on its side.
    lines = [json.loads(line) for line in demo.read_text(encoding="utf-8").splitlines()]
    flipped = next(line for line in lines if "question_id" in line)
    flipped["correct"] = not flipped["correct"]
    baseline = tmp_path / "baseline.jsonl"
    baseline.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    command = [sys.executable, BENCH / "default_targets.py", "--geography", demo, "--geography-baseline", baseline]
    geography = _row(subprocess.run(command, check=True, capture_output=True, text=True).stdout, "geography test split (no regression)")
    only_run, only_base = (0, 1) if flipped["correct"] else (1, 0)
    base_right = right + only_base - only_run
    assert geography[2:] == [
        f"{share}; only this run right {only_run}, only the baseline {only_base}, p = 1.000",
        f">= {base_right}/4, the baseline",
        "yes" if right >= base_right else "no",
    ]

    outcomes: dict[str, list[bool]] = {"yes/no": [], "open": []}
    calls = 0
    for domain in sorted(folder.glob("*/questions.jsonl")):
        first = [json.loads(line)["id"] for line in domain.read_text(encoding="utf-8").splitlines()[:3]]
        records = read_results(domain.parent / "results" / "ark--test.jsonl").latest().values()
        for record in (record for record in records if record.question_id in first):
            outcomes["yes/no" if isinstance(record.gold, bool) else "open"].append(record.correct)
            calls += record.usage.total_calls
    yes_no = _row(printed, "yes/no, held-out domains")
    assert yes_no[1].startswith("ark · test")
    assert re.fullmatch(rf"{sum(outcomes['yes/no'])}/{len(outcomes['yes/no'])} \(\d+%\)", yes_no[2])
    assert yes_no[3:] == [">= 90%", "yes" if sum(outcomes["yes/no"]) >= 0.9 * len(outcomes["yes/no"]) else "no"]
    assert _row(printed, "open questions, held-out domains (exact set)")[2].startswith(f"{sum(outcomes['open'])}/{len(outcomes['open'])} ")
    per_question = calls / (len(outcomes["yes/no"]) + len(outcomes["open"]))
    assert _row(printed, "model calls per question, held-out domains")[2:] == [f"{per_question:.1f}", "<= 6", "yes" if per_question <= 6 else "no"]


def test_a_file_not_given_is_a_row_not_measured_and_not_met(tmp_path: Path) -> None:
    printed = subprocess.run([sys.executable, BENCH / "default_targets.py"], check=True, capture_output=True, text=True).stdout
    rows = [line for line in printed.splitlines()[2:] if line.startswith("|")]
    assert len(rows) == 7
    assert all(" | - | not measured | " in row and row.endswith("| no |") for row in rows), printed


def test_held_out_results_missing_for_the_run_name_the_files_looked_for(tmp_path: Path) -> None:
    (tmp_path / "botany").mkdir()
    (tmp_path / "botany" / "questions.jsonl").write_text("", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, BENCH / "default_targets.py", "--heldout", tmp_path, "--model", "default"], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert str(tmp_path / "botany" / "results" / "ark--default.jsonl") in done.stderr


@pytest.mark.parametrize(("model", "passed"), [("default", None), ("llamacpp:tuned", "llamacpp:tuned")])
def test_heldout_eval_passes_no_model_for_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, passed: str | None) -> None:
    heldout_eval = _script("heldout_eval", monkeypatch)
    commands: list[list[str]] = []
    monkeypatch.setattr(heldout_eval, "_run", lambda command, allowed=(0,): commands.append(command))
    out = heldout_eval._evaluate(tmp_path, tmp_path / "kg.db", "ark", model, 20, [])
    (command,) = commands
    assert out == tmp_path / "results" / f"ark--{model.replace(':', '_')}.jsonl"
    assert command[command.index("--out") + 1] == str(out)
    assert (command[command.index("--model") + 1] if "--model" in command else None) == passed
