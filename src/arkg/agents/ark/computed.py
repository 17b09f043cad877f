"""Computed comparisons of cited facts for ARK's final answer (an arkg extension, off by default:
`ArkSettings.compare_values`).

A small model cites "(Swindon, latitude, 51.5580)" and "(Bristol, latitude, 51.4552)" and then writes
"51.5580 is less than 51.4552". Ordering two numbers or dates, or counting facts, is arithmetic, not
commonsense to guess at, so with the setting on the answer prompt states it: which subject has the
largest and the smallest cited value of a relation (or the earliest and latest date); for every two
cited facts whose values are numbers of the same relation, or dates, which is larger or earlier; and
how many values of a relation were cited for each subject, compared across subjects. Each line names
the cited facts it rests on, so it adds nothing the graph does not say. The whole numbers of a relation
named for years ("year described": 1843) are points in time: earliest and latest, before and after.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations
from typing import Literal

from pydantic import BaseModel

from arkg.agents.support import Computation
from arkg.agents.trace import TripleRecord
from arkg.agents.triple_keys import triple_text
from arkg.graph.literals import as_date, as_number, compare
from arkg.graph.matching import fold
from arkg.text import one_line

MAX_LINES = 12  # the answer prompt stays short; pairs beyond this are left out, in order of citation
_YEAR = re.compile(r"\d{3,4}")


class Computed(BaseModel):
    """One computed statement, what it states, and the keys of the cited facts it rests on."""

    text: str
    # extremes: who holds the largest and smallest value of a relation; ordering: how two values (or
    # two counts of cited values) compare; count: how many values of a relation one subject has.
    kind: Literal["extremes", "ordering", "count"]
    keys: list[str]
    # The values it was computed from and what it gives (the holders of the largest value, the order
    # of two values, a count): what the support check links an answer through.
    inputs: list[str] = []
    output: str = ""

    def as_computation(self) -> Computation:
        return Computation(operation=self.kind, inputs=self.inputs, output=self.output)


def computed_lines(cited: Sequence[TripleRecord]) -> list[Computed]:
    """Extremes and orderings of cited numbers and dates, then counts of cited values, at most MAX_LINES in all."""
    return [*_extremes(cited), *_orderings(cited), *_counts(cited)][:MAX_LINES]


def _extremes(cited: Sequence[TripleRecord]) -> list[Computed]:
    """One line per relation whose cited values, of two subjects or more, are all numbers or all dates:
    the subjects holding the largest and the smallest (the earliest and the latest). A question that asks
    which is larger, or for the largest of several, is answered by a name the line gives."""
    groups: dict[str, list[TripleRecord]] = {}
    for record in cited:
        if not record.incoming and (as_number(record.tail) is not None or as_date(record.tail) is not None):
            groups.setdefault(record.relation, []).append(record)
    lines = []
    for relation, records in groups.items():
        if len({record.head for record in records}) < 2:
            continue
        numbers = all(as_number(record.tail) is not None for record in records) and not _years(relation, records)
        if not numbers and not all(as_date(record.tail) is not None for record in records):
            continue
        low = [r for r in records if not any(compare(other.tail, "<", r.tail) for other in records)]
        high = [r for r in records if not any(compare(other.tail, ">", r.tail) for other in records)]
        if len(high) == len(records):  # all the same: the orderings say so
            continue
        named = one_line(relation)
        text = (
            f"Largest {named} cited: {_holders(high)}; smallest: {_holders(low)}."
            if numbers
            else f"Earliest {named} cited: {_holders(low)}; latest: {_holders(high)}."
        )
        holders = ", ".join(record.head for record in high)
        lines.append(Computed(text=text, kind="extremes", keys=_keys(records), inputs=_values(records), output=holders))
    return lines


def _years(relation: str, records: Sequence[TripleRecord]) -> bool:
    """Whether the relation is named for years and every value is a year: ordered as dates, not amounts."""
    return "year" in fold(relation).split() and all(_YEAR.fullmatch(record.tail.strip()) for record in records)


def _holders(records: Sequence[TripleRecord]) -> str:
    return ", ".join(f"{one_line(record.head)} ({one_line(record.tail)})" for record in records)


def _orderings(cited: Sequence[TripleRecord]) -> list[Computed]:
    lines = []
    for left, right in combinations(cited, 2):
        numbers = as_number(left.tail) is not None and as_number(right.tail) is not None
        # Numbers of different relations (an area and a population) have no common scale; dates do.
        if numbers and left.relation != right.relation:
            continue
        numbers = numbers and not _years(left.relation, [left, right])
        if not numbers and (as_date(left.tail) is None or as_date(right.tail) is None):
            continue
        words = _order_words(left.tail, right.tail, dated=not numbers)
        facts = f"{triple_text(left.as_triple())} and {triple_text(right.as_triple())}"
        lines.append(
            Computed(
                text=f"{facts}: {one_line(left.tail)} {words} {one_line(right.tail)}.",
                kind="ordering",
                keys=[left.key, right.key],
                inputs=[left.tail, right.tail],
                output=words,
            )
        )
    return lines


def _order_words(left: str, right: str, dated: bool) -> str:
    if compare(left, "<", right):
        return "is before" if dated else "is less than"
    if compare(left, ">", right):
        return "is after" if dated else "is greater than"
    return "is the same date as" if dated else "equals"


def _counts(cited: Sequence[TripleRecord]) -> list[Computed]:
    """Values of a relation per subject (the anchor side of the edge), for relations whose values are
    entities: the number of neighbours, children, languages... A relation cited for one subject gets a
    line when it has two values or more; one cited for several subjects is compared across them."""
    groups: dict[tuple[str, bool], dict[str, list[TripleRecord]]] = {}
    for record in cited:
        value = record.head if record.incoming else record.tail
        if as_number(value) is not None or as_date(value) is not None:
            continue
        subject = record.tail if record.incoming else record.head
        groups.setdefault((record.relation, record.incoming), {}).setdefault(subject, []).append(record)
    lines = []
    for (relation, incoming), subjects in groups.items():
        counted = [
            (_pattern(subject, relation, incoming), records)
            for subject, records in subjects.items()
            if len(records) > 1 or len(subjects) > 1
        ]
        for pattern, records in counted:
            lines.append(
                Computed(
                    text=f"{pattern}: {_facts(len(records))} cited.",
                    kind="count",
                    keys=_keys(records),
                    inputs=[record.head if record.incoming else record.tail for record in records],
                    output=str(len(records)),
                )
            )
        for (left, left_records), (right, right_records) in combinations(counted, 2):
            words = _order_words(str(len(left_records)), str(len(right_records)), dated=False)
            lines.append(
                Computed(
                    text=f"{left} {_facts(len(left_records))} and {right} {_facts(len(right_records))}:"
                    f" {len(left_records)} {words} {len(right_records)}.",
                    kind="ordering",
                    keys=_keys([*left_records, *right_records]),
                    inputs=[str(len(left_records)), str(len(right_records))],
                    output=words,
                )
            )
    return lines


def _pattern(subject: str, relation: str, incoming: bool) -> str:
    """The facts counted, with the counted side as "?": "(Peru, shares border with, ?)"."""
    return f"(?, {one_line(relation)}, {one_line(subject)})" if incoming else f"({one_line(subject)}, {one_line(relation)}, ?)"


def _facts(count: int) -> str:
    return f"{count} fact" if count == 1 else f"{count} facts"


def _keys(records: Sequence[TripleRecord]) -> list[str]:
    return [record.key for record in records]


def _values(records: Sequence[TripleRecord]) -> list[str]:
    return [record.tail for record in records]
