"""Gold reasoning chains: a question, its gold answer, and the KG facts that ground it, in order.

Every source (CoLoTa, the geography questions, the sample KG) is read into `Chain`s; a question
that cannot become one is an `Unusable` naming the question and why. Later stages (programs,
pairs) report their own failures the same way, so nothing is ever dropped without a record.
"""

from __future__ import annotations

from dataclasses import dataclass

from arkg.agents.teaching import GoldAnswer, Reason
from arkg.agents.triple_keys import identity
from arkg.graph.model import Triple

@dataclass(frozen=True)
class GroundedFact:
    """A fact as its source states it, and the KG triples it names.

    Several triples when the source leaves out props that tell parallel edges apart. `notes` say
    how a fuzzy match differs from the statement (empty for an exact one)."""

    stated: Triple
    triples: tuple[Triple, ...]
    notes: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return not self.notes


@dataclass(frozen=True)
class ChainStep:
    facts: tuple[GroundedFact, ...]
    text: str = ""  # the source's own sentence for this step ("" when it gives none)


@dataclass(frozen=True)
class Chain:
    source: str
    id: str
    question: str
    answer: GoldAnswer
    steps: tuple[ChainStep, ...]
    topic_entities: tuple[str, ...]  # KG names of the entities the question is about
    conclusion: str = ""  # the source's closing sentence: why the facts give the answer
    program: tuple[str, ...] = ()  # a gold program known by construction (empty: synthesize one)
    split: str = ""  # the source's own split label ("train", "dev", "test"; "" when it has none)

    @property
    def yes_no(self) -> bool:
        return isinstance(self.answer, bool)

    @property
    def facts(self) -> tuple[GroundedFact, ...]:
        return tuple(fact for step in self.steps for fact in step.facts)

    @property
    def triples(self) -> tuple[Triple, ...]:
        """The KG triples of the chain, in order, each once."""
        seen: dict[tuple, Triple] = {}
        for fact in self.facts:
            for triple in fact.triples:
                seen.setdefault(identity(triple), triple)
        return tuple(seen.values())


@dataclass(frozen=True)
class Unusable:
    """A question that could not be used at some stage, and why (`detail` names the fact or value)."""

    source: str
    id: str
    stage: str  # "chain", "program", or the strategy and mode whose pairs failed ("ark/free")
    reason: Reason
    detail: str = ""
    split: str = ""  # the question's split in its source, when it has one

