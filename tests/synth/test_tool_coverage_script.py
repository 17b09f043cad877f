"""bench/kg_agent_tool_coverage.py: programs read back from a pairs file, counted once per tool; and
the script end to end on a small geography KG, whose synthesized programs teach most of the toolbox."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

from arkg.agents.kg_agent.tools import default_toolbox

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "kg_agent_tool_coverage.py"


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("kg_agent_tool_coverage", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pair(question: str, line: str, strategy: str = "kg-agent") -> str:
    messages = [{"role": "user", "content": "..."}, {"role": "assistant", "content": line}]
    return json.dumps({"messages": messages, "source": "geo", "question_id": question, "strategy": strategy}) + "\n"


def test_each_program_counts_once_per_tool_and_other_strategies_are_left_out(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        _pair("q1", 'v1 = get_tail_entity(["France"], "shares border with")')
        + _pair("q1", 'v2 = get_tail_entity(["Spain"], "shares border with")')
        + _pair("q1", "v3 = intersect(v1, v2)")
        + _pair("q1", "v4 = end(v3)")
        + _pair("q2", 'v1 = get_candidate_entity("Springfield")')
        + _pair("q2", "v2 = end(v1)")
        + _pair("q3", '{"anchor": "France"}', strategy="ark"),
        encoding="utf-8",
    )
    script = _script()
    programs = script.programs_of(pairs)
    assert set(programs) == {"geo/q1", "geo/q2"}
    used = script.tool_use(programs)
    assert used == {"get_tail_entity": 1, "intersect": 1, "end": 2, "get_candidate_entity": 1}
    table = script.coverage_table(used, len(programs))
    assert [row[0] for row in table.rows] == [tool.name for tool in default_toolbox()]
    assert ["end", "2", "100.0%"] in table.rows and ["get_relation", "0", "0.0%"] in table.rows
    assert table.footnote == "coverage: 4 of 13 tools in 2 programs"


def test_the_synthesized_programs_of_a_small_geography_set_teach_at_least_eleven_tools(tmp_path: Path) -> None:
    command = [sys.executable, str(SCRIPT), "--per-template", "1", "--people", "50", "--work", str(tmp_path)]
    printed = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    taught = re.search(r"coverage: (\d+) of 13 tools in (\d+) programs", printed)
    assert taught is not None, printed
    assert int(taught.group(1)) >= 11 and int(taught.group(2)) > 30
    for tool in ("get_relation", "retrieve_relation", "get_entity_by_type", "intersect"):
        assert re.search(rf"\| {tool} \| [1-9]\d* \|", printed), (tool, printed)
