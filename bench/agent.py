"""Benchmark the ARK agent with the bundled model on the first CoLoTa questions, in both selection modes.

The KG is the union of CoLoTa's gold triples (arkg.eval.colota). The response cache is off, so
every call reaches the model. Per question and in total it prints: model calls, prompt and
completion tokens, invalid attempts, wall time, and the share of wall time spent outside the model
(the agent's own work: KG lookups, candidate matching, prompts, validation, tracing).

Modes alternate per question, so that an interrupted run still compares them on the same
questions. Each finished row is appended to --rows (JSON lines); running the same command again
skips the rows already there and prints the table over all of them.

    python bench/agent.py [--questions 40] [--modes free constrained] [--rows FILE]
                          [--data ../shared/benchmarks/colota/CR-LT-QA.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table

from arkg.agents.ark import ArkAgent, ArkSettings
from arkg.agents.modes import SelectionMode
from arkg.agents.strategy import AnswerKind, Query
from arkg.eval.colota import build_graph, load_dataset
from arkg.llm.llamacpp import LlamaCppModel

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks" / "colota" / "CR-LT-QA.json"


@dataclass(frozen=True)
class Row:
    mode: str
    question_id: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    invalid: int
    steps: int
    wall_s: float
    model_s: float
    correct: bool

    @property
    def outside_share(self) -> float:
        return (self.wall_s - self.model_s) / self.wall_s

    def line(self) -> str:
        return (
            f"{self.mode:11} {self.question_id:5} calls {self.calls:3}  tokens {self.prompt_tokens:6} + "
            f"{self.completion_tokens:4}  invalid {self.invalid:2}  steps {self.steps}  wall {self.wall_s:6.1f} s  "
            f"outside model {self.outside_share:6.2%}  correct {self.correct}"
        )


def run(questions: int, modes: list[SelectionMode], data: Path, rows_file: Path, console: Console) -> list[Row]:
    rows = [Row(**json.loads(line)) for line in rows_file.read_text().splitlines()] if rows_file.exists() else []
    done = {(row.mode, row.question_id) for row in rows}
    for row in rows:
        console.print(row.line(), style="dim")
    dataset = load_dataset(data)
    kg = build_graph(dataset)
    model = LlamaCppModel()
    agents = {mode: ArkAgent(kg, model, ArkSettings(mode=mode)) for mode in modes}
    for question in dataset.questions[:questions]:
        for mode, agent in agents.items():
            if (mode.value, question.id) in done:
                continue
            started = time.perf_counter()
            result = agent.ask(Query(text=question.text, kind=AnswerKind.YES_NO))
            wall = time.perf_counter() - started
            row = Row(
                mode=mode.value,
                question_id=question.id,
                calls=result.usage.calls,
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
                invalid=result.trace.invalid_attempts,
                steps=sum(1 for event in result.trace.events if event.kind == "cleanup"),
                wall_s=wall,
                model_s=result.usage.latency_s,
                correct=result.answer is question.answer,
            )
            with rows_file.open("a", encoding="utf-8") as file:
                file.write(json.dumps(asdict(row)) + "\n")
            rows.append(row)
            console.print(row.line())
    return rows


def summary_table(rows: list[Row]) -> Table:
    table = Table(box=box.MARKDOWN, title="ARK agent, bundled SmolLM2-135M, CoLoTa gold-triple KG, cache off")
    for column in (
        "mode", "questions", "model calls", "prompt tokens", "completion tokens", "invalid attempts",
        "wall s (total)", "wall s/question (median)", "outside model (total)", "outside model (median)", "correct",
    ):  # fmt: skip
        table.add_column(column, justify="left" if column == "mode" else "right")
    for mode in dict.fromkeys(row.mode for row in rows):
        group = [row for row in rows if row.mode == mode]
        wall = sum(row.wall_s for row in group)
        table.add_row(
            mode,
            str(len(group)),
            str(sum(row.calls for row in group)),
            str(sum(row.prompt_tokens for row in group)),
            str(sum(row.completion_tokens for row in group)),
            str(sum(row.invalid for row in group)),
            f"{wall:.0f}",
            f"{statistics.median(row.wall_s for row in group):.1f}",
            f"{(wall - sum(row.model_s for row in group)) / wall:.2%}",
            f"{statistics.median(row.outside_share for row in group):.2%}",
            f"{sum(row.correct for row in group)}/{len(group)}",
        )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--modes", nargs="+", type=SelectionMode, default=[SelectionMode.FREE, SelectionMode.CONSTRAINED])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--rows", type=Path, default=Path(tempfile.gettempdir()) / "arkg-bench-agent-rows.jsonl", help="resume file"
    )
    args = parser.parse_args()
    console = Console(width=200)
    try:
        rows = run(args.questions, args.modes, args.data, args.rows, console)
    except KeyboardInterrupt:
        console.print(f"Interrupted; finished rows are kept in {args.rows}. Run the same command to continue.")
        raise SystemExit(130) from None
    console.print(summary_table(rows))


if __name__ == "__main__":
    main()
