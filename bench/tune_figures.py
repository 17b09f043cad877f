"""Tuned against untuned: the figures of docs/BENCHMARKS.md ("The tuned adapter"), from `arkg eval` results.

Each argument is LABEL=RESULTS.jsonl (a results file written by `arkg eval`). Per file it prints the
questions, accuracy on yes/no and on open questions (numbers and entity lists) apart, invalid
attempts per question (ARK's trace: an anchor that is no explorable entity, a relation the anchor
does not have; KG-Agent's: a line that did not run), gold-evidence recall (share of each question's gold triples
retrieved, and cited; mean over questions), calls (model or response cache), prompt and completion tokens, and wall seconds
per question, with the share of calls the cache answered (their wall time is not the model's);
errors count as wrong. A second table tells how the questions ended (each stop reason and its count)
and how the yes/no answers lean: answered yes, no or none, and right where the gold is yes and no.

With `--intervals` each accuracy carries its 95% Wilson interval: the noise a single run's figure has at
its number of questions. With `--templates` a third table counts the right answers per question
template (a geography question's id is TEMPLATE-N), for the templates where the runs differ. With
`--invalid` a table tells where ARK's invalid attempts are: the questions holding one, the decisions
(an anchor decision per step, a relation decision per anchor retrieved) in which the model gives a
rejected reply again, how many of those then go on to another reply, and how many answers are those of
the first run on the same questions. With `--rescore` a table names the answers that today's scoring
(`arkg.eval.scoring`) judges otherwise than the file records: what a change to scoring does to a run.
With `--snap-names` a table tells what ARK's `snap_names` setting does to a run recorded without it:
each open answer with its misspelt names written as its cited facts write them
(`arkg.graph.matching.snap_names`, applied after the model's reply, so this is the answer the
setting gives), rescored.

    python bench/tune_figures.py untuned=runs/geo-untuned.jsonl tuned=runs/geo-tuned.jsonl [--intervals] [--templates] [--invalid] [--rescore] [--snap-names]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from arkg.eval.scoring import gold_answer, is_correct
from arkg.eval.stats import wilson
from arkg.graph.matching import snap_names


@dataclass(frozen=True)
class Figures:
    label: str
    questions: int
    yes_no: tuple[int, int]  # (correct, asked)
    open: tuple[int, int]
    invalid_per_question: float
    retrieved_recall: float
    cited_recall: float
    calls: float
    cached_share: float
    prompt_tokens: float
    completion_tokens: float
    wall_s: float
    wall_s_median: float
    stops: Counter[str]  # stop reason -> questions
    yes_no_answers: tuple[int, int, int]  # answered (yes, no, none) to the yes/no questions
    right_by_gold: tuple[tuple[int, int], tuple[int, int]]  # (correct, asked) where the gold is yes, and no
    by_template: dict[str, tuple[int, int]]  # template -> (correct, asked)
    answers: dict[str, object]  # question id -> answer
    with_invalid: int  # questions with an invalid attempt
    repeating: tuple[int, int]  # (decisions giving a rejected reply again, of which then another reply)
    rescored: list[str]  # questions whose recorded `correct` today's scoring does not give
    snapped: list[tuple[str, bool, bool]]  # open answers snap_names changes: (question, right before, right after)


def _invalid_attempts(record: dict) -> int:
    events = (record.get("trace") or {}).get("events", [])
    return sum(
        (event["kind"] in ("anchor", "line") and not event["valid"]) or (event["kind"] == "relation" and event["outcome"] == "invalid")
        for event in events
    )


def _decisions(record: dict) -> list[list[tuple[str, bool]]]:
    """ARK's anchor and relation decisions in order, each as its attempts (reply, invalid)."""
    decisions: dict[tuple[str, int], list[tuple[str, bool]]] = {}
    relation_decision = 0
    for event in (record.get("trace") or {}).get("events", []):
        if event["kind"] == "relations":  # the relations of a new anchor: a new relation decision
            relation_decision += 1
        elif event["kind"] == "anchor":
            decisions.setdefault(("anchor", event["step"]), []).append((event["proposed"], not event["valid"]))
        elif event["kind"] == "relation":
            decisions.setdefault(("relation", relation_decision), []).append((event["proposed"], event["outcome"] == "invalid"))
    return list(decisions.values())


def _repeating(records: list[dict]) -> tuple[int, int]:
    repeats = went_on = 0
    for record in records:
        for attempts in _decisions(record):
            rejected: set[str] = set()
            for index, (reply, invalid) in enumerate(attempts):
                if invalid and reply in rejected:
                    repeats += 1
                    went_on += any(later != reply for later, _ in attempts[index + 1 :])
                    break
                if invalid:
                    rejected.add(reply)
    return repeats, went_on


def figures(label: str, path: Path) -> Figures:
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines[1:] if line.strip()]  # line 1 is the run's header
    yes_no = [r for r in records if isinstance(r["gold"], bool)]
    open_ = [r for r in records if not isinstance(r["gold"], bool)]
    evidence = [r["evidence"] for r in records if r.get("evidence") and r["evidence"]["gold"]]
    count = len(records)
    return Figures(
        label=label,
        questions=count,
        yes_no=(sum(bool(r["correct"]) for r in yes_no), len(yes_no)),
        open=(sum(bool(r["correct"]) for r in open_), len(open_)),
        invalid_per_question=sum(map(_invalid_attempts, records)) / count,
        retrieved_recall=statistics.fmean(e["retrieved_recall"] for e in evidence) if evidence else float("nan"),
        cited_recall=statistics.fmean(e["cited_recall"] for e in evidence) if evidence else float("nan"),
        # Calls the response cache answered count too: the strategy made them; only their wall time is not real.
        calls=sum(r["usage"]["calls"] + r["usage"]["cached_calls"] for r in records) / count,
        cached_share=sum(r["usage"]["cached_calls"] for r in records)
        / max(1, sum(r["usage"]["calls"] + r["usage"]["cached_calls"] for r in records)),
        prompt_tokens=sum(r["usage"]["prompt_tokens"] for r in records) / count,
        completion_tokens=sum(r["usage"]["completion_tokens"] for r in records) / count,
        wall_s=sum(r["elapsed_s"] for r in records) / count,
        wall_s_median=statistics.median(r["elapsed_s"] for r in records),
        stops=Counter(r["stop_reason"] or "error" for r in records),
        yes_no_answers=tuple(sum(r["answer"] is value for r in yes_no) for value in (True, False, None)),
        right_by_gold=tuple(
            (sum(bool(r["correct"]) for r in yes_no if r["gold"] is gold), sum(r["gold"] is gold for r in yes_no))
            for gold in (True, False)
        ),
        by_template=_by_template(records),
        answers={r["question_id"]: r["answer"] for r in records},
        with_invalid=sum(_invalid_attempts(r) > 0 for r in records),
        repeating=_repeating(records),
        rescored=[r["question_id"] for r in records if is_correct(r["answer"], gold_answer(r["gold"])) != bool(r["correct"])],
        snapped=_snapped(records),
    )


def _snapped(records: list[dict]) -> list[tuple[str, bool, bool]]:
    changed = []
    for r in records:
        if not isinstance(r["answer"], str) or isinstance(r["gold"], bool):
            continue
        names = (name for triple in r.get("cited_triples", ()) for name in (triple["head"], triple["tail"]))
        answer, replaced = snap_names(r["answer"], names)
        if replaced:
            gold = gold_answer(r["gold"])
            changed.append((r["question_id"], is_correct(r["answer"], gold), is_correct(answer, gold)))
    return changed


def _by_template(records: list[dict]) -> dict[str, tuple[int, int]]:
    right: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    for record in records:
        template = record["question_id"].rpartition("-")[0] or record["question_id"]
        asked[template] += 1
        right[template] += bool(record["correct"])
    return {template: (right[template], count) for template, count in asked.items()}


def _share(pair: tuple[int, int], interval: bool = False) -> str:
    correct, asked = pair
    if not asked:
        return "-"
    if not interval:
        return f"{correct}/{asked} ({correct / asked:.0%})"
    bounds = wilson(correct, asked)
    return f"{correct}/{asked} ({correct / asked:.0%}; {bounds.low:.0%}-{bounds.high:.0%})"


def table(rows: list[Figures], intervals: bool = False) -> str:
    header = (
        "| run | questions | yes/no correct | open correct | all correct | invalid attempts/q | gold retrieved | gold cited "
        "| calls/q | prompt tokens/q | completion tokens/q | wall s/q (mean, median) | calls from cache |"
    )
    lines = [header, "|" + " --- |" * (header.count("|") - 1)]
    for f in rows:
        both = (f.yes_no[0] + f.open[0], f.yes_no[1] + f.open[1])
        lines.append(
            f"| {f.label} | {f.questions} | {_share(f.yes_no, intervals)} | {_share(f.open, intervals)} | {_share(both, intervals)} "
            f"| {f.invalid_per_question:.2f} | {f.retrieved_recall:.1%} | {f.cited_recall:.1%} | {f.calls:.1f} "
            f"| {f.prompt_tokens:,.0f} | {f.completion_tokens:,.0f} | {f.wall_s:.1f}, {f.wall_s_median:.1f} | {f.cached_share:.0%} |"
        )
    return "\n".join(lines)


def endings(rows: list[Figures]) -> str:
    lines = ["| run | stops | yes/no answered yes, no, none | right where gold is yes | right where gold is no |", "|" + " --- |" * 5]
    for f in rows:
        stops = "; ".join(f"{count} {reason}" for reason, count in f.stops.most_common())
        answers = ", ".join(map(str, f.yes_no_answers))
        lines.append(f"| {f.label} | {stops} | {answers} | {_share(f.right_by_gold[0])} | {_share(f.right_by_gold[1])} |")
    return "\n".join(lines)


def templates(rows: list[Figures]) -> str:
    """Right answers per template, where the runs do not all agree (a template a run lacks counts as -)."""
    names = sorted({name for f in rows for name in f.by_template})
    lines = ["| template | questions | " + " | ".join(f.label for f in rows) + " |", "|" + " --- |" * (len(rows) + 2)]
    for name in names:
        cells = [f.by_template.get(name) for f in rows]
        if len(set(cells)) == 1:
            continue
        asked = max(cell[1] for cell in cells if cell)
        lines.append(f"| {name} | {asked} | " + " | ".join("-" if cell is None else str(cell[0]) for cell in cells) + " |")
    return "\n".join(lines)


def invalid(rows: list[Figures]) -> str:
    lines = [
        "| run | questions with an invalid attempt | decisions repeating a rejected reply | of which then another reply "
        "| answers as the first run's |",
        "|" + " --- |" * 5,
    ]
    first = rows[0].answers
    for f in rows:
        common = [question for question in f.answers if question in first]
        same = sum(f.answers[question] == first[question] for question in common)
        lines.append(f"| {f.label} | {f.with_invalid} | {f.repeating[0]} | {f.repeating[1]} | {same}/{len(common)} |")
    return "\n".join(lines)


def snapping(rows: list[Figures]) -> str:
    lines = ["| run | open answers whose names snap_names changes | right before | right after | questions |", "|" + " --- |" * 5]
    for f in rows:
        lines.append(
            f"| {f.label} | {len(f.snapped)} | {sum(before for _, before, _ in f.snapped)} | {sum(after for _, _, after in f.snapped)}"
            f" | {', '.join(question for question, _, _ in f.snapped) or '-'} |"
        )
    return "\n".join(lines)


def rescore(rows: list[Figures]) -> str:
    lines = ["| run | answers scored otherwise today | questions |", "|" + " --- |" * 3]
    for f in rows:
        lines.append(f"| {f.label} | {len(f.rescored)} | {', '.join(f.rescored) or '-'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="LABEL=RESULTS.jsonl (the path is what follows the last '=')")
    parser.add_argument("--intervals", action="store_true", help="add each accuracy's 95%% Wilson interval")
    parser.add_argument("--templates", action="store_true", help="add right answers per template where the runs differ")
    parser.add_argument("--invalid", action="store_true", help="add where ARK's invalid attempts are, and answers as the first run's")
    parser.add_argument("--rescore", action="store_true", help="add the answers today's scoring judges otherwise than recorded")
    parser.add_argument("--snap-names", action="store_true", help="add what ARK's snap_names does to open answers recorded without it")
    args = parser.parse_args()
    rows = []
    for run in args.runs:
        label, _, path = run.rpartition("=")
        if not label or not Path(path).is_file():
            parser.error(f"{run!r}: expected LABEL=RESULTS.jsonl, and {path!r} is not a file")
        rows.append(figures(label, Path(path)))
    print(table(rows, args.intervals))
    print()
    print(endings(rows))
    if args.templates:
        print()
        print(templates(rows))
    if args.invalid:
        print()
        print(invalid(rows))
    if args.rescore:
        print()
        print(rescore(rows))
    if args.snap_names:
        print()
        print(snapping(rows))


if __name__ == "__main__":
    main()
