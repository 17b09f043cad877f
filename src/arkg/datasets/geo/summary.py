"""What a generated question set holds: questions by kind, hop count and split."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arkg.datasets.geo.questions import GeoQuestion
from arkg.tables import Table

SPLITS = ("train", "dev", "test")


def summary_table(questions: Sequence[GeoQuestion]) -> Table:
    """One row per question kind (and a total): how many questions of each hop count and each split."""
    hops = sorted({question.hops for question in questions})
    header = ["kind", *(f"{hop} hop{'s' if hop > 1 else ''}" for hop in hops), *SPLITS, "total"]

    def row(label: str, group: list[GeoQuestion]) -> list[str]:
        by_hops = Counter(question.hops for question in group)
        by_split = Counter(question.split for question in group)
        counts = [by_hops[hop] for hop in hops] + [by_split[split] for split in SPLITS] + [len(group)]
        return [label, *(f"{count:,}" for count in counts)]

    kinds = sorted({question.kind for question in questions})
    rows = [row(kind, [question for question in questions if question.kind == kind]) for kind in kinds]
    rows.append(row("all", list(questions)))
    return Table("Questions by kind, hops and split", header, rows)
