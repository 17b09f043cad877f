"""The KG each question runs on: the data set's shared KG, the question's own graph, a per-question
snapshot of a SPARQL endpoint, or any of these perturbed.

    setup = QuestionSetup(build, shared=kg)                      # every question on one KG
    setup = QuestionSetup(build, base=dataset.triples, perturbation=Perturbation.REMOVE_GOLD)
    with setup.assign(question) as assignment:
        assignment.strategy.ask(...); assignment.kg; assignment.changes

Perturbations test whether an answer follows the graph:
- remove-gold: the question's gold triples are taken out (a grounded strategy should abstain);
- replace-tail: the last gold triple's tail is replaced by a wrong one (a grounded answer should change);
- add-conflict: a second triple with the same head and relation but another tail is added beside the
  gold one (the ARK-V1 paper's S34 error class: the graph contradicts itself).
A wrong tail is another tail the KG has for the same relation (chosen by a hash of the question id,
so runs repeat), or for a number a different number; when neither exists the perturbation does not
apply and the question says so (its `changes` are empty).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from arkg.agents.strategy import Strategy
from arkg.errors import ArkgError
from arkg.eval.dataset import Question
from arkg.eval.evidence import same_fact
from arkg.graph.model import KnowledgeGraph, Triple
from arkg.graph.sqlite_store import SQLiteGraph

Builder = Callable[[KnowledgeGraph | None], Strategy]


class Perturbation(str, Enum):
    NONE = "none"
    REMOVE_GOLD = "remove-gold"
    REPLACE_TAIL = "replace-tail"
    ADD_CONFLICT = "add-conflict"


@dataclass
class Assignment:
    strategy: Strategy
    kg: KnowledgeGraph | None
    changes: list[str] = field(default_factory=list)  # what the perturbation did to this question's KG
    # A graph of the question's own (given, snapshotted or perturbed): it may hold only some of the names
    # the question gives, so a missing name is no reason to answer None there.
    own_graph: bool = False


class SnapshotCache:
    """One SQLite snapshot per question of the 1-hop neighbourhood of its entities, fetched once from a
    SPARQL endpoint and reused offline afterwards (each written atomically, so an interrupted fetch
    resumes with the questions it had not finished)."""

    def __init__(self, directory: Path, fetch: Callable[[list[str], Path], object] | None) -> None:
        self.directory = directory
        self.fetch = fetch

    def path(self, question: Question) -> Path:
        return self.directory / f"{_safe(question.id)}.db"

    def ensure(self, question: Question) -> Path:
        target = self.path(question)
        if target.is_file():
            return target
        if self.fetch is None:
            raise ArkgError(f"no snapshot {target} for question {question.id}; give --db ENDPOINT to fetch it")
        seeds = [qid for qid in question.entities.values() if qid] or list(question.entities)
        if not seeds:
            raise ArkgError(f"question {question.id} names no entity to fetch the neighbourhood of")
        self.directory.mkdir(parents=True, exist_ok=True)
        self.fetch(seeds, target)
        return target


class QuestionSetup:
    """Builds, for each question, the strategy over the KG that question runs on."""

    def __init__(
        self,
        build: Builder,
        *,
        shared: KnowledgeGraph | None = None,
        base: list[Triple] | None = None,
        snapshots: SnapshotCache | None = None,
        perturbation: Perturbation = Perturbation.NONE,
        uses_kg: bool = True,
    ) -> None:
        if perturbation is not Perturbation.NONE and shared is not None and base is None:
            raise ArkgError(
                "perturbations rebuild each question's KG in memory: they run on the data set's gold triples, the "
                "questions' own graphs or per-question snapshots, not on a --db store"
            )
        self.build = build
        self.shared = shared
        self.base = base
        self.snapshots = snapshots
        self.perturbation = perturbation
        self.uses_kg = uses_kg
        self._shared_strategy: Strategy | None = None

    @contextmanager
    def assign(self, question: Question) -> Iterator[Assignment]:
        own = question.graph is not None or self.snapshots is not None or self.perturbation is not Perturbation.NONE
        if not (own and self.uses_kg):
            if self._shared_strategy is None:  # one strategy object serves every question
                self._shared_strategy = self.build(self.shared)
            yield Assignment(self._shared_strategy, self.shared)
            return
        triples = self._triples(question)
        changes: list[str] = []
        if self.perturbation is not Perturbation.NONE:
            triples, changes = perturb(triples, question, self.perturbation)
        kg = SQLiteGraph()
        try:
            kg.add_triples(triples)
            yield Assignment(self.build(kg), kg, changes, own_graph=True)
        finally:
            kg.close()

    def _triples(self, question: Question) -> list[Triple]:
        if question.graph is not None:
            return list(question.graph)
        if self.snapshots is not None:
            with SQLiteGraph(self.snapshots.ensure(question), create=False) as snapshot:
                return list(snapshot.iter_triples())
        if self.base is not None:
            return list(self.base)
        raise ArkgError(f"question {question.id} has no KG to run on")


def perturb(triples: list[Triple], question: Question, kind: Perturbation) -> tuple[list[Triple], list[str]]:
    """The question's KG with one perturbation applied, and what was changed (empty: it did not apply)."""
    gold = [triple for triple in triples if any(same_fact(g, triple) for g in question.triples)]
    if not gold:
        return triples, []
    if kind is Perturbation.REMOVE_GOLD:
        kept = [triple for triple in triples if triple not in gold]
        return kept, [f"removed {_text(triple)}" for triple in gold]
    target = gold[-1]  # the last gold triple: the final hop of the chain
    wrong = _wrong_tail(target, triples, question.id)
    if wrong is None:
        return triples, []
    altered = Triple(target.head, target.relation, wrong, dict(target.props))
    if kind is Perturbation.REPLACE_TAIL:
        return [altered if triple == target else triple for triple in triples], [f"replaced {_text(target)} by {_text(altered)}"]
    return [*triples, altered], [f"added {_text(altered)} beside {_text(target)}"]


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _wrong_tail(target: Triple, triples: list[Triple], question_id: str) -> str | None:
    others = sorted({t.tail for t in triples if t.relation == target.relation and t.tail != target.tail})
    if others:
        return others[int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % len(others)]
    number = _NUMBER.search(target.tail)
    if number is None:
        return None
    digits = number.group()
    changed = digits[:-1] + str((int(digits[-1]) + 5) % 10)  # same shape, clearly another value
    return target.tail[: number.start()] + changed + target.tail[number.end() :]


def _safe(question_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", question_id)


def _text(triple: Triple) -> str:
    return f"({triple.head}, {triple.relation}, {triple.tail})"
