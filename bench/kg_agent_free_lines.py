"""Does KG-Agent's planner write runnable lines in free mode (the paper's mode)? Count them per step.

    python bench/kg_agent_free_lines.py                                   # the shipped adapter, sample KG
    python bench/kg_agent_free_lines.py --model llamacpp:/path/adapter.gguf --model llamacpp:tuned-kg-agent
    python bench/kg_agent_free_lines.py --questions geo.jsonl --db geo.db --limit 20

Each question is run with `kg-agent` in free mode (each line generated, then parsed and run; an
error goes back to the next attempt) at temperature 0, without the response cache. Per question it
prints the steps, the attempts that wrote a line that ran and those that did not, whether every
step got a runnable line within c_max attempts, the answer and the gold one; then per model the
totals. The default questions are the sample KG's demo questions (arkg.data.SAMPLE_QUESTIONS); a
question file of arkg's formats with `--db` gives others.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from arkg.agents.kg_agent.trace import LineAttempt, StopReason
from arkg.agents.modes import SelectionMode
from arkg.agents.strategy import AnswerKind, Query, build_strategy
from arkg.data import SAMPLE_QUESTIONS
from arkg.eval.datasets import open_dataset
from arkg.eval.scoring import is_correct
from arkg.graph import open_graph
from arkg.llm.spec import default_model_spec, open_model


@dataclass(frozen=True)
class Row:
    question: str
    valid: int  # attempts whose line ran: one per step that got a runnable line
    invalid: int
    every_step_ran: bool  # no step ran out of attempts
    answer: object
    gold: object
    correct: bool


def sample_questions() -> list[tuple[Query, object]]:
    return [(Query(text=sample.question, kind=AnswerKind.YES_NO), sample.answer) for sample in SAMPLE_QUESTIONS]


def file_questions(path: str, limit: int | None) -> list[tuple[Query, object]]:
    """The questions with their gold answers, asked as `arkg eval` asks them (the answer's kind told)."""
    questions = open_dataset(path).questions[:limit]
    return [
        (Query(text=q.text, kind=AnswerKind.YES_NO if q.yes_no else AnswerKind.OPEN, claim=q.claim), q.answer)
        for q in questions
    ]


def run(model_spec: str, kg, questions: list[tuple[Query, object]]) -> list[Row]:
    model = open_model(model_spec, cache=False)
    agent = build_strategy("kg-agent", model, kg, {"mode": SelectionMode.FREE})
    rows = []
    for query, gold in questions:
        result = agent.ask(query)
        attempts = [event for event in result.trace.events if isinstance(event, LineAttempt)]
        valid = sum(attempt.valid for attempt in attempts)
        row = Row(
            question=query.text,
            valid=valid,
            invalid=len(attempts) - valid,
            every_step_ran=result.stop_reason != StopReason.C_MAX.value,
            answer=result.answer,
            gold=gold,
            correct=is_correct(result.answer, gold),
        )
        print(
            f"  {row.question[:60]:60} lines run {row.valid:2}  invalid {row.invalid:2}  every step ran {row.every_step_ran!s:5}"
            f"  answer {row.answer!s:.30} (gold {row.gold!s:.30}) {'right' if row.correct else 'wrong'}",
            flush=True,
        )
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", help="model spec (repeat); default: the adapter tuned for kg-agent")
    parser.add_argument("--questions", help="a question file (default: the sample KG's demo questions)")
    parser.add_argument("--db", help="the KG of --questions")
    parser.add_argument("--limit", type=int, help="only the first N questions of --questions")
    args = parser.parse_args()
    if args.questions and not args.db:
        parser.error("--questions needs --db")
    kg = open_graph(args.db if args.questions else None, read_only=True)
    questions = file_questions(args.questions, args.limit) if args.questions else sample_questions()
    for spec in args.model or [default_model_spec("tuned-kg-agent")]:
        print(f"{spec}:", flush=True)
        rows = run(spec, kg, questions)
        ran = sum(row.every_step_ran for row in rows)
        attempts = sum(row.valid + row.invalid for row in rows)
        print(
            f"  total: every step got a runnable line in {ran}/{len(rows)} questions; {sum(row.valid for row in rows)}"
            f" of {attempts} attempts ran ({sum(row.invalid for row in rows) / len(rows):.2f} invalid per question);"
            f" right {sum(row.correct for row in rows)}/{len(rows)}"
        )


if __name__ == "__main__":
    main()
