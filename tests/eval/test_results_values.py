"""A results file's records hold only values a run can have measured: a negative token count or run,
a nan or infinite time is refused, naming the file and the line, never read as a figure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arkg.cli import app
from arkg.errors import ArkgError
from arkg.eval.results import RunConfig, read_results

CONFIG = RunConfig(
    dataset="d.json", dataset_sha256="abc", kg="gold", strategy="ark", model="m",
    temperature=0.0, seed=0, max_tokens=64, settings={},
)  # fmt: skip


def _record(question_id: str, **changes: Any) -> dict[str, Any]:
    record = {
        "question_id": question_id, "run": 0, "seed": 0, "strategy": "ark", "model": "m", "settings": {},
        "answer": True, "gold": True, "correct": True, "reasoning_strategies": [],
        "usage": {"calls": 2, "prompt_tokens": 100, "completion_tokens": 20, "latency_s": 0.5}, "elapsed_s": 1.0,
    }  # fmt: skip
    for key, value in changes.items():
        if key.startswith("usage."):
            record["usage"][key.removeprefix("usage.")] = value
        else:
            record[key] = value
    return record


def _write(path: Path, *records: dict[str, Any]) -> Path:
    # json.dumps writes nan and inf as NaN and Infinity, as a careless writer of the file would.
    path.write_text("\n".join([CONFIG.model_dump_json(), *map(json.dumps, records)]) + "\n", encoding="utf-8")
    return path


BAD = [
    pytest.param({"usage.prompt_tokens": -5}, "prompt_tokens", id="negative-prompt-tokens"),
    pytest.param({"usage.completion_tokens": -1}, "completion_tokens", id="negative-completion-tokens"),
    pytest.param({"usage.reasoning_tokens": -1}, "reasoning_tokens", id="negative-reasoning-tokens"),
    pytest.param({"usage.calls": -1}, "calls", id="negative-calls"),
    pytest.param({"usage.cached_calls": -3}, "cached_calls", id="negative-cached-calls"),
    pytest.param({"usage.latency_s": float("nan")}, "latency_s", id="nan-latency"),
    pytest.param({"usage.latency_s": -0.5}, "latency_s", id="negative-latency"),
    pytest.param({"run": -1}, "run", id="negative-run"),
    pytest.param({"elapsed_s": float("nan")}, "elapsed_s", id="nan-elapsed"),
    pytest.param({"elapsed_s": float("inf")}, "elapsed_s", id="infinite-elapsed"),
    pytest.param({"elapsed_s": -1.0}, "elapsed_s", id="negative-elapsed"),
]


@pytest.mark.parametrize(("changes", "field"), BAD)
def test_an_impossible_value_is_refused_naming_the_line(tmp_path: Path, changes: dict[str, Any], field: str) -> None:
    # The bad record is line 3, followed by a good one: not a last line cut off by a kill.
    path = _write(tmp_path / "r.jsonl", _record("S1"), _record("S2", **changes), _record("S3"))
    with pytest.raises(ArkgError, match=rf"r\.jsonl, line 3: not a valid record of an arkg results file \(.*{field}"):
        read_results(path)


def test_report_refuses_the_file_in_one_line(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", _record("S1", **{"usage.prompt_tokens": -5}), _record("S2"))
    result = CliRunner().invoke(app, ["report", str(path)])
    assert result.exit_code == 1, result.output
    assert "r.jsonl, line 2: not a valid record" in result.output and "prompt_tokens" in result.output


def test_measured_values_from_zero_up_are_read(tmp_path: Path) -> None:
    zero = {"usage.calls": 0, "usage.prompt_tokens": 0, "usage.latency_s": 0.0, "elapsed_s": 0.0}
    path = _write(tmp_path / "r.jsonl", _record("S1", **zero), _record("S2", run=3, elapsed_s=12.5))
    first, second = read_results(path).records
    assert first.usage.prompt_tokens == 0 and first.elapsed_s == 0.0
    assert second.run == 3 and second.elapsed_s == 12.5
