"""Check every gold answer of the hand-written held-out KGs against the KG itself.

    python bench/heldout_kgs/check.py                 # every folder under bench/heldout_kgs/
    python bench/heldout_kgs/check.py hospital-network

For each folder holding kg.jsonl and questions.jsonl: the KG is loaded with arkg's own loader into a
temporary SQLite store, the question file is opened with arkg's own reader (`arkg eval` reads it the
same way; it must report no problem), and then every question is checked:

- each topic entity (`entities`) and each gold name (`answer` as names) is an entity of the KG;
- its `check` program, replayed over the KG, gives exactly the gold answer.

unknown_entity.jsonl (questions naming something the KG does not hold; no gold answer, since the right
reply is to say the name is unknown) is checked too: no `answer`; each name of its `unknown` field (some of
its `entities`) is not in the KG, not even up to case, accents or white space; its other entities are.

One line per KG: questions, verified, mismatches (each mismatch on its own line after it). Exit 1 on
any mismatch.

## The `check` programs

A PATH is a list: a start entity, then hops `[relation, "out" | "in"]`; it names the set of entities
reached ("out" follows edges from head to tail, "in" from tail to head), each hop taken from every
entity of the set before it:

    ["Quillfen", ["depends on", "out"], ["maintained by", "out"]]
    ["Kestrune Labs", ["stewarded by", "in"]]

A check is one of:

| check | gold | holds when |
| --- | --- | --- |
| `["names", PATH, PATH...]` | names | the intersection of the paths' sets is exactly the gold names |
| `["count", PATH, PATH...]` | a number | the intersection has that many entities |
| `["member", PATH, NAME]` | yes/no | NAME is in the path's set (a "no" is closed-world: the set is not empty, NAME is not in it) |
| `["compare", A, OP, B]` | yes/no | `A OP B`, OP one of < <= > >= = !=; A and B are each a PATH reaching exactly one value, or a number |
| `["same", PATH, PATH]` | yes/no | both sets are non-empty and equal |
| `["most", [NAME...], [HOP...]]` | a name | of the candidates, the one whose HOPs reach the greatest value (one value each, no tie) |
| `["least", [NAME...], [HOP...]]` | a name | the same, for the smallest value |

Values compare as arkg compares them (arkg.graph.literals: numbers as numbers, years and dates as dates).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from arkg.eval.datasets import open_dataset
from arkg.graph.literals import as_date, as_number, compare
from arkg.graph.matching import fold
from arkg.graph.model import Direction
from arkg.graph.sqlite_store import SQLiteGraph

HERE = Path(__file__).resolve().parent
KG_FILE, QUESTIONS_FILE, UNKNOWN_FILE = "kg.jsonl", "questions.jsonl", "unknown_entity.jsonl"
OPS = ("<", "<=", ">", ">=", "=", "!=")


class Mismatch(Exception):
    pass


def reach(graph: SQLiteGraph, path: list) -> set[str]:
    if not path or not isinstance(path[0], str):
        raise Mismatch(f"a path starts with an entity name: {path!r}")
    start, *hops = path
    if not graph.has_entity(start):
        raise Mismatch(f"path start {start!r} is not in the KG")
    found = {start}
    for hop in hops:
        found = follow(graph, found, hop)
    return found


def follow(graph: SQLiteGraph, entities: set[str], hop: list) -> set[str]:
    relation, direction = hop
    direction = Direction(direction)
    if direction is Direction.BOTH:
        raise Mismatch(f"a hop goes out or in, not both: {hop!r}")
    reached: set[str] = set()
    for entity in entities:
        for triple in graph.triples(entity, relation, direction):
            reached.add(triple.tail if direction is Direction.OUT else triple.head)
    return reached


def one_value(graph: SQLiteGraph, operand: list | int | float) -> str | int | float:
    if isinstance(operand, (int, float)) and not isinstance(operand, bool):
        return operand
    values = reach(graph, operand)
    if len(values) != 1:
        raise Mismatch(f"{operand!r} reaches {sorted(values)}, not one value")
    return values.pop()


def intersection(graph: SQLiteGraph, paths: list) -> set[str]:
    if not paths:
        raise Mismatch("no path given")
    sets = [reach(graph, path) for path in paths]
    return set.intersection(*sets)


def replay(graph: SQLiteGraph, check: list) -> tuple[object, str]:
    """The check's result (what the gold must equal) and a short account of the values it read."""
    op, *args = check
    if op == "names":
        found = intersection(graph, args)
        return set(found), f"{sorted(found)}"
    if op == "count":
        found = intersection(graph, args)
        return len(found), f"{len(found)}: {sorted(found)}"
    if op == "member":
        path, name = args
        found = reach(graph, path)
        if not found:
            raise Mismatch(f"{path!r} reaches nothing, so a 'no' would not be closed-world")
        return name in found, f"{name!r} in {sorted(found)}"
    if op == "compare":
        left, operator, right = args
        if operator not in OPS:
            raise Mismatch(f"unknown comparison {operator!r}")
        a, b = one_value(graph, left), one_value(graph, right)
        verdict = compare(a, operator, b)
        if verdict is None:
            raise Mismatch(f"{a!r} and {b!r} cannot be compared with {operator}")
        return verdict, f"{a} {operator} {b}"
    if op == "same":
        first, second = (reach(graph, path) for path in args)
        if not first or not second:
            raise Mismatch(f"a path reaches nothing: {sorted(first)} / {sorted(second)}")
        return first == second, f"{sorted(first)} vs {sorted(second)}"
    if op in ("most", "least"):
        candidates, hops = args
        values = {name: one_value(graph, [name, *hops]) for name in candidates}
        ranked = sorted(candidates, key=lambda name: _sort_key(values[name]), reverse=op == "most")
        if len(ranked) > 1 and compare(values[ranked[0]], "=", values[ranked[1]]):
            raise Mismatch(f"a tie: {values}")
        return {ranked[0]}, f"{values}"
    raise Mismatch(f"unknown check {op!r}")


def _sort_key(value: str | int | float) -> float:
    number = as_number(value)
    if number is not None:
        return number
    date = as_date(value)
    if date is None:
        raise Mismatch(f"{value!r} is neither a number nor a date")
    year, month, day = date
    return year * 10_000 + (month or 0) * 100 + (day or 0)


def gold_of(entry: dict) -> object:
    answer = entry.get("answer", entry.get("answers"))
    if isinstance(answer, bool) or isinstance(answer, (int, float)):
        return answer
    return {answer} if isinstance(answer, str) else set(answer)


def check_folder(folder: Path) -> tuple[str, list[str]]:
    mismatches: list[str] = []
    with tempfile.TemporaryDirectory() as temp:
        graph = SQLiteGraph(Path(temp) / "kg.db")
        try:
            graph.load(folder / KG_FILE)
            triples = graph.stats().triples
            dataset = open_dataset(folder / QUESTIONS_FILE)
            mismatches += [f"reader: {problem}" for problem in dataset.problems]
            entries = [json.loads(line) for line in (folder / QUESTIONS_FILE).read_text(encoding="utf-8").splitlines() if line.strip()]
            verified = 0
            for entry in entries:
                qid = entry.get("id", "?")
                try:
                    for name in entry.get("entities", []):
                        if not graph.has_entity(name):
                            raise Mismatch(f"topic entity {name!r} is not in the KG")
                    gold = gold_of(entry)
                    if isinstance(gold, set):
                        for name in gold:
                            if not graph.has_entity(name):
                                raise Mismatch(f"gold name {name!r} is not in the KG")
                    if "check" not in entry:
                        raise Mismatch("no check program")
                    result, account = replay(graph, entry["check"])
                    if type(result) is not type(gold) or result != gold:
                        raise Mismatch(f"gold {gold!r}, the KG gives {result!r} ({account})")
                    verified += 1
                except (Mismatch, ValueError, TypeError) as error:
                    mismatches.append(f"{qid}: {error}")
            unknown = folder / UNKNOWN_FILE
            unknown_count = 0
            if unknown.exists():
                folded = {fold(entity.name) for entity in graph.entity_counts()}
                for line in unknown.read_text(encoding="utf-8").splitlines():
                    if not line.strip():
                        continue
                    entry = json.loads(line)
                    unknown_count += 1
                    qid = entry.get("id", "?")
                    if "answer" in entry or "answers" in entry:
                        mismatches.append(f"{UNKNOWN_FILE} {qid}: holds a gold answer")
                    unknown_names = entry.get("unknown") or []
                    if not unknown_names or not set(unknown_names) <= set(entry.get("entities", [])):
                        mismatches.append(f"{UNKNOWN_FILE} {qid}: `unknown` must name some of its `entities`")
                    for name in entry.get("entities", []):
                        if name in unknown_names and (graph.has_entity(name) or fold(name) in folded):
                            mismatches.append(f"{UNKNOWN_FILE} {qid}: {name!r} is in the KG")
                        elif name not in unknown_names and not graph.has_entity(name):
                            mismatches.append(f"{UNKNOWN_FILE} {qid}: topic entity {name!r} is not in the KG")
                unknown_dataset = open_dataset(unknown)
                mismatches += [f"reader ({UNKNOWN_FILE}): {problem}" for problem in unknown_dataset.problems]
        finally:
            graph.close()
    yes = sum(entry.get("answer") is True for entry in entries)
    no = sum(entry.get("answer") is False for entry in entries)
    line = (
        f"{folder.name}: {triples} triples, {len(entries)} questions ({yes} yes, {no} no, {len(entries) - yes - no} open),"
        f" {verified} verified, {unknown_count} unknown-entity questions, {len(mismatches)} mismatch(es)"
    )
    return line, mismatches


def main(argv: list[str]) -> int:
    folders = [HERE / name for name in argv] if argv else sorted(p.parent for p in HERE.glob(f"*/{QUESTIONS_FILE}"))
    if not folders:
        print(f"{HERE}: no folder with {QUESTIONS_FILE}")
        return 1
    failed = False
    for folder in folders:
        line, mismatches = check_folder(folder)
        print(line)
        for mismatch in mismatches:
            print(f"  MISMATCH {mismatch}")
        failed |= bool(mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
