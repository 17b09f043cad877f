"""Which KG-Agent tools the synthesized training programs teach: a small training set is synthesized
through the library (geography KG and questions built in a temporary folder, KG-Agent pairs of the
gold programs in constrained mode, default split), and every program read back from the pairs file
is counted once per tool it calls.

    python bench/kg_agent_tool_coverage.py [--per-template N] [--people N] [--min-city-population N] [--work DIR]

Prints one row per tool of the default toolbox (programs using it, their share) and the coverage:
how many of the toolbox's tools at least one program teaches.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from arkg.agents.kg_agent.agent import NAME as KG_AGENT
from arkg.agents.kg_agent.tools import default_toolbox
from arkg.agents.modes import SelectionMode
from arkg.datasets.geo import build_geo_kg, generate_questions, write_questions
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.programs import parse_call
from arkg.synth import SynthOptions, Variant, geo_source, parse_split, synthesize
from arkg.tables import Table, markdown_table


def synthesize_programs(work: Path, per_template: int, people: int, min_city_population: int) -> Path:
    """Build the KG and questions in `work` and write the KG-Agent gold pairs; returns the pairs file."""
    db, questions, pairs = work / "geo.db", work / "geo.jsonl", work / "kg-agent.jsonl"
    build_geo_kg(db, min_city_population=min_city_population, people=people, overwrite=True)
    with SQLiteGraph(db, create=False) as kg:
        write_questions(generate_questions(kg.iter_triples(), seed=0, per_template=per_template), questions)
    options = SynthOptions(strategies=(KG_AGENT,), modes=(SelectionMode.CONSTRAINED,), variants=(Variant.GOLD,))
    source = geo_source(db, questions)
    try:
        synthesize([source], pairs, options, parse_split("default"), overwrite=True)
    finally:
        source.close()
    return pairs


def programs_of(pairs: Path) -> dict[str, list[str]]:
    """Each question's program: the KG-Agent replies of its pairs, in file order (one line per pair)."""
    programs: dict[str, list[str]] = defaultdict(list)
    with pairs.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record.get("strategy") == KG_AGENT:
                programs[f"{record['source']}/{record['question_id']}"].append(record["messages"][-1]["content"])
    return dict(programs)


def tool_use(programs: dict[str, list[str]]) -> Counter[str]:
    """How many programs call each tool (once per program, however often it calls it)."""
    return Counter(tool for lines in programs.values() for tool in {parse_call(line).tool for line in lines})


def coverage_table(used: Counter[str], programs: int) -> Table:
    """One row per tool of the default toolbox; the footnote says how many of them are taught."""
    toolbox = default_toolbox()
    rows = [[tool.name, str(used[tool.name]), f"{used[tool.name] / programs:.1%}" if programs else "-"] for tool in toolbox]
    taught = sum(1 for tool in toolbox if used[tool.name])
    return Table("KG-Agent tools in the synthesized programs", ["tool", "programs", "share"], rows, f"coverage: {taught} of {len(toolbox)} tools in {programs} programs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-template", type=int, default=3, help="questions per template (default 3)")
    parser.add_argument("--people", type=int, default=100, help="fictional people in the KG (default 100)")
    parser.add_argument("--min-city-population", type=int, default=1_000_000, help="smallest city kept (default 1,000,000)")
    parser.add_argument("--work", type=Path, help="folder for the KG, questions and pairs (default: a temporary one)")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kg-agent-tools-") as temporary:
        work = args.work or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        programs = programs_of(synthesize_programs(work, args.per_template, args.people, args.min_city_population))
    print("\n".join(markdown_table(coverage_table(tool_use(programs), len(programs)))))
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
