"""Report rows are named short ("ark · tuned · T0 · free · kg=per-question"), and a legend under the
results table gives each full model spec once."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report import CONFIG, write_results

from arkg.data import TUNED_ADAPTERS
from arkg.eval.labels import model_names, model_short_name
from arkg.eval.report import build_report
from arkg.eval.report_render import results_table
from arkg.eval.setup import PER_QUESTION_KG

BASE = "llamacpp:SmolLM2-135M-Instruct.Q4_1.gguf"
TUNED = f"{BASE}+{TUNED_ADAPTERS['tuned']}"


@pytest.mark.parametrize(
    ("spec", "short"),
    [
        (BASE, "SmolLM2-135M-Instruct"),
        ("llamacpp:/models/qwen2.5-0.5b-instruct-q4_k_m.gguf", "qwen2.5-0.5b-instruct"),
        (TUNED, "tuned"),
        (f"{BASE}+{TUNED_ADAPTERS['tuned-kg-agent']}", "tuned-kg-agent"),
        (f"{BASE}+my-recipe-lora.gguf", "my-recipe-lora"),
        ("openai:gpt-4o-mini@http://127.0.0.1:8080/v1", "gpt-4o-mini"),
        ("scripted", "scripted"),
    ],
)
def test_model_short_names(spec: str, short: str) -> None:
    assert model_short_name(spec) == short


def test_one_short_name_for_two_models_is_numbered() -> None:
    other_base = f"llamacpp:Qwen2.5-0.5B.Q8_0.gguf+{TUNED_ADAPTERS['tuned']}"
    assert model_names([TUNED, BASE, other_base, TUNED]) == {
        TUNED: "tuned#1", BASE: "SmolLM2-135M-Instruct", other_base: "tuned#2",
    }  # fmt: skip


def test_rows_carry_short_labels_and_the_legend_each_full_spec_once(tmp_path: Path) -> None:
    tuned = CONFIG.model_copy(update={"model": TUNED, "temperature": 0.0, "kg": PER_QUESTION_KG})
    files = [
        write_results(tmp_path / "tuned.jsonl", tuned, [{"S1": True}]),
        write_results(tmp_path / "tuned-hot.jsonl", tuned.model_copy(update={"temperature": 0.7}), [{"S1": True}]),
        write_results(tmp_path / "base.jsonl", tuned.model_copy(update={"model": BASE}), [{"S1": False}]),
    ]
    table = results_table(build_report(files))
    assert [row[0] for row in table.rows[:3]] == [
        "ark · tuned · T0 · free · kg=per-question",
        "ark · tuned · T0.7 · free · kg=per-question",
        "ark · SmolLM2-135M-Instruct · T0 · free · kg=per-question",
    ]
    assert f"Models: tuned = {TUNED}; SmolLM2-135M-Instruct = {BASE}." in table.footnote
    assert table.footnote.count(TUNED) == 1
    assert "kg=per-question: each question's own graph" in table.footnote


def test_a_model_named_in_full_needs_no_legend(tmp_path: Path) -> None:
    table = results_table(build_report([write_results(tmp_path / "a.jsonl", CONFIG, [{"S1": True}])]))
    assert table.rows[0][0] == "ark · m · T0.7 · free · kg=gold-union"
    assert "Models:" not in table.footnote
