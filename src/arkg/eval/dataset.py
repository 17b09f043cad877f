"""What an evaluation runs on, whatever file it came from: questions with gold answers and evidence.

Adapters turn published formats into a Dataset: CoLoTa (arkg.eval.colota), the ARK-V1 per-question
graphs (arkg.eval.arkv1), arkg's geography questions (arkg.eval.geo), RoG/GCR per-question subgraphs
(arkg.eval.rog), MetaQA (arkg.eval.metaqa) and hand-written question files (arkg.eval.question_file);
arkg.eval.datasets picks one by looking at the file. A question either runs on a KG shared by the
whole data set, or carries its own (`graph`). A data set that brings no triples at all (MetaQA, a
hand-written file) runs on a KG the user names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Sequence

from arkg.agents import MAX_QUESTION_CHARS
from arkg.errors import ArkgError
from arkg.graph.model import KnowledgeGraph, Triple
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.text import clip, one_line

# A gold answer: True / False for yes/no questions and claims, a number, or the names that answer it.
GoldAnswer = bool | int | float | tuple[str, ...]
# Gold names as a data set wrote them -> the names the KG knows (a format whose writer mangled names).
NameRepair = Callable[[tuple[str, ...], KnowledgeGraph], tuple[str, ...]]
# Half of a UTF-16 surrogate pair, as a JSON escape such as `\ud800` decodes: no character, so no
# prompt, cache key or results file can hold it.
_SURROGATE = re.compile("[\ud800-\udfff]")


class Effect(str, Enum):
    """What a problem cost: the whole question, one triple item, or nothing (a note)."""

    QUESTION_SKIPPED = "question skipped"
    ITEM_SKIPPED = "item skipped"
    NOTE = "note"


@dataclass(frozen=True)
class Problem:
    id: str
    field: str
    reason: str
    effect: Effect

    def __str__(self) -> str:
        return f"{self.id} [{self.field}] {self.effect.value}: {self.reason}"


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    answer: GoldAnswer | None  # None: asked without a gold answer (a batch of questions), not scored
    entities: dict[str, str]  # name -> KG id (e.g. a Wikidata QID; empty when the source has none)
    strategies: tuple[str, ...]  # tags to break accuracy down by (CoLoTa's reasoning strategies, templates)
    triples: tuple[Triple, ...]  # gold evidence
    # A claim to verify (CoLoTa's claim-verification files) rather than a question; answered alike.
    claim: bool = False
    # The question's own KG (the ARK-V1 authors' per-question neighbourhoods); None: the data set's KG.
    graph: tuple[Triple, ...] | None = None

    @property
    def yes_no(self) -> bool:
        return isinstance(self.answer, bool)


@dataclass
class Dataset:
    path: Path
    entries: int
    questions: list[Question] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # The union of the gold triples of every entry (also entries skipped as questions), without repeats.
    triples: list[Triple] = field(default_factory=list)
    items_parsed: int = 0
    # A format that holds no KG at all (MetaQA, a hand-written file): it runs on one the user names.
    needs_kg: bool = False
    # How gold names are mended once the user's KG is open (see arkg.eval.kg_names); None: taken as written.
    repair_names: NameRepair | None = None

    @property
    def scored(self) -> bool:
        """Whether there is anything to score: at least one question has a gold answer."""
        return any(question.answer is not None for question in self.questions)

    def question(self, question_id: str) -> Question:
        [question] = self.select([question_id])
        return question

    def select(self, ids: Sequence[str] = (), limit: int | None = None) -> list[Question]:
        """The questions with these ids (all when none given), in file order, at most `limit` of them.

        Selecting nothing is an error: a data set without usable questions, or a limit below 1.
        """
        if not self.questions:
            raise ArkgError(self._nothing_usable())
        if limit is not None and limit < 1:
            raise ArkgError(f"limit must be at least 1 (got {limit})")
        wanted = set(ids)
        unknown = wanted - {question.id for question in self.questions}
        if unknown:
            raise ArkgError(f"{self.path}: no usable question with id(s) {', '.join(sorted(unknown))}")
        chosen = [question for question in self.questions if not wanted or question.id in wanted]
        return chosen if limit is None else chosen[:limit]

    def _nothing_usable(self) -> str:
        if not self.entries:
            return f"{self.path}: the data set has no entries"
        skipped = [p for p in self.problems if p.effect is Effect.QUESTION_SKIPPED]
        shown = "; ".join(one_line(clip(str(problem), 160)) for problem in skipped[:3])
        more = f" (and {len(skipped) - 3} more)" if len(skipped) > 3 else ""
        detail = f": {shown}{more}" if skipped else ""
        return f"{self.path}: none of its {self.entries} entries is a usable question{detail}"

    def summary(self) -> str:
        skipped = [p for p in self.problems if p.effect is Effect.QUESTION_SKIPPED]
        # Only formats with gold triples written as text items (CoLoTa) have items to count.
        items = (
            f"{self.items_parsed} triple items parsed into {len(self.triples)} distinct triples; "
            if self.items_parsed or self.triples
            else ""
        )
        lines = [
            f"{self.path.name}: {self.entries} entries, {len(self.questions)} usable questions, "
            f"{len({p.id for p in skipped})} skipped; {items}{len(self.problems)} problem(s):"
        ]
        lines += [f"  {problem}" for problem in self.problems]
        return "\n".join(lines)


def skip_unaskable(dataset: Dataset) -> None:
    """Move the questions no strategy can be asked to the data set's problems (question skipped): text
    longer than MAX_QUESTION_CHARS (`arkg ask` and the servers refuse it too), or a lone surrogate in
    a text that is prompted or written to the results file."""
    kept = []
    for question in dataset.questions:
        found = _unaskable(question)
        if found is None:
            kept.append(question)
        else:
            dataset.problems.append(Problem(question.id, *found, Effect.QUESTION_SKIPPED))
    dataset.questions = kept


def _unaskable(question: Question) -> tuple[str, str] | None:
    """The field that makes a question unaskable, and why; None for an askable one."""
    if len(question.text) > MAX_QUESTION_CHARS:
        return "question", f"{len(question.text):,} characters; a question is at most {MAX_QUESTION_CHARS:,}"
    names = question.answer if isinstance(question.answer, tuple) else ()
    fields: tuple[tuple[str, Iterable[str]], ...] = (
        ("id", [question.id]), ("question", [question.text]), ("answer", names),
        ("entities", question.entities), ("strategies", question.strategies),
    )  # fmt: skip
    for field_name, texts in fields:
        for text in texts:
            if not text.isascii() and (found := _SURROGATE.search(text)):
                return field_name, (
                    f"holds \\u{ord(found.group()):04x}, half of a UTF-16 surrogate pair and not a character; "
                    "write the character itself"
                )
    return None


def build_graph(dataset: Dataset, store: str | Path | None = None) -> SQLiteGraph:
    """A SQLite KG holding the data set's gold triples: in memory by default, or in the file `store`."""
    graph = SQLiteGraph(":memory:" if store is None else str(store))
    graph.add_triples(dataset.triples)
    return graph
