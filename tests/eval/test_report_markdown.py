"""`arkg report --md`: what a results file holds (strategy, model and KG names, reasoning-strategy tags)
reads as text, never as Markdown or HTML, as the HTML report escapes it too."""

from __future__ import annotations

import json
from pathlib import Path

from arkg.eval.report import build_report
from arkg.eval.report_render import markdown_text, notes, report_tables, to_markdown, warnings
from arkg.eval.results import RunConfig

HOSTILE = "<script>alert(1)</script> a|b `code` [link](http://x) *bold* _em_ \\| &lt; line\nbreak"
CONFIG = RunConfig(
    dataset="d.json", dataset_sha256="abc", kg="gold", strategy=HOSTILE, model="m|`x`<b>",
    temperature=0.0, seed=0, max_tokens=64, settings={"mode": "free"},
)


def _results(path: Path, config: RunConfig, questions: list[str]) -> Path:
    lines = [config.model_dump_json()]
    for qid in questions:
        lines.append(json.dumps({
            "question_id": qid, "run": 0, "seed": 0, "strategy": config.strategy, "model": config.model,
            "settings": config.settings, "answer": True, "gold": True, "correct": True,
            "reasoning_strategies": [f"tag|<i>{qid}</i>`"], "usage": {"calls": 1}, "elapsed_s": 1.0,
        }))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _unescaped(line: str, char: str) -> int:
    """How many times `char` occurs in `line` other than behind a backslash escape."""
    count, escaped = 0, False
    for c in line:
        if escaped:
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == char:
            count += 1
    return count


def test_every_value_from_a_results_file_is_escaped(tmp_path: Path) -> None:
    # Two systems on different questions: the warning names them both.
    systems = build_report([
        _results(tmp_path / "a.jsonl", CONFIG, ["S1", "S2"]),
        _results(tmp_path / "b.jsonl", CONFIG.model_copy(update={"strategy": "kaping"}), ["S1"]),
    ])  # fmt: skip
    text = to_markdown(report_tables(systems), warnings(systems), notes(systems), [])
    assert warnings(systems) and HOSTILE in systems[0].label  # the values do reach the report
    for char in "<>`[]*_":
        assert _unescaped(text.replace("**Warning:**", ""), char) == 0, char
    assert "\\<script\\>alert(1)\\</script\\>" in text and "m\\|\\`x\\`\\<b\\>" in text
    assert "tag\\|\\<i\\>S1\\</i\\>\\`" in text and "line\\\\nbreak" in text
    # Each table keeps its columns: a row has as many cell pipes as its header.
    tables = [block.splitlines() for block in text.split("\n\n") if block.startswith("| ")]
    assert len(tables) >= 4
    for table in tables:
        assert {_unescaped(line, "|") for line in table} == {_unescaped(table[0], "|")}, table


def test_markdown_text_escapes_markup_and_keeps_plain_text() -> None:
    assert markdown_text("ark · m · T0.7 · free · kg=gold-union") == "ark · m · T0.7 · free · kg=gold-union"
    assert markdown_text("a|b") == "a\\|b" and markdown_text("a|b", pipes=False) == "a|b"
    assert markdown_text("\\`<x>`") == "\\\\\\`\\<x\\>\\`"
    assert markdown_text("two\nlines") == "two\\\\nlines"
