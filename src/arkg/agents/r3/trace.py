"""The typed record of one R³ run: anchors, axioms, pruned facts, premise judgements, verdicts,
missing-evidence decisions and the final answer, each tagged with its branch and depth.

The axiom is the commonsense part of the reasoning and is recorded apart from the KG facts that
ground its premises. Events are appended in order and handed to a live callback as they happen; the
trace exports to JSON with `trace.model_dump_json()` and reads as `r3.view` says.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, Field, computed_field

from arkg.agents.r3.replies import Operator, Status
from arkg.agents.r3.settings import R3Settings
from arkg.agents.retrieval import RankerName
from arkg.agents.run import BUDGET_SPENT, StopReason as BaseStopReason
from arkg.agents.strategy import Answer
from arkg.agents.trace import Event, ModelCall, ModelEvent, Trace, TripleRecord
from arkg.agents.triple_keys import fact_line
from arkg.graph.model import Triple
from arkg.text import one_line


class Purpose(str, Enum):
    ENTITIES = "entities"
    AXIOM = "axiom"
    PICK = "pick"
    JUDGEMENT = "judgement"
    MISSING = "missing"


class StopReason(BaseStopReason):
    DECIDED = "the premises settled the answer"
    EXHAUSTED = "no branch settled the answer within max_depth and max_breadth"
    NO_ENTITY = "no entity of the query is in the knowledge graph"
    NO_FACTS = "the entities of the query have no facts in the knowledge graph"
    BUDGET = BUDGET_SPENT


class BranchEnd(str, Enum):
    """Why a branch ended without a verdict (the search then opens the next one, if any is left)."""

    MAX_DEPTH = "max_depth reached"
    NO_ENTITY_LEFT = "no entity left whose facts were not shown"
    C_MAX_AXIOM = "c_max axiom attempts failed"
    C_MAX_JUDGEMENT = "c_max judgement attempts failed"
    C_MAX_MISSING = "c_max missing-evidence attempts failed"


class Premise(BaseModel):
    """One atomic clause of an axiom (paper eq. 3): P(entity), or F(entity) <op> value."""

    id: str  # P1, P2, ...
    entity: str
    property: str
    operator: Operator
    value: str = ""

    @property
    def text(self) -> str:
        if self.operator == "holds":
            return f"{one_line(self.entity)}: {one_line(self.property)}"
        return f"{one_line(self.property)} of {one_line(self.entity)} {self.operator} {one_line(self.value)}"


class Axiom(BaseModel):
    """The commonsense rule of a branch: if every premise holds, the answer is yes (the claim holds).
    A disjunctive rule has alternatives: further premise sets, each of which implies yes as well."""

    branch: int
    rule: str
    premises: list[Premise]
    alternatives: list[list[Premise]] = Field(default_factory=list)

    @property
    def premise_sets(self) -> list[list[Premise]]:
        return [self.premises, *self.alternatives]

    @property
    def all_premises(self) -> list[Premise]:
        return [premise for premises in self.premise_sets for premise in premises]

    @property
    def text(self) -> str:
        """The rule and its premises on one line: what the sub-graph is ranked against."""
        return " ".join([one_line(self.rule), *(premise.text for premise in self.all_premises)])


class PremiseJudgement(BaseModel):
    premise: str
    status: Status
    cited_keys: list[str]

    @computed_field
    @property
    def grounded(self) -> bool:
        """Satisfied or unsatisfied, and resting on at least one fact; anything else counts as unknown."""
        return self.status != "unknown" and bool(self.cited_keys)


class EntitiesAttempt(ModelEvent):
    """The model names the entities of the query (paper eq. 1, LLM_E); names resolve through the KG."""

    kind: Literal["entities"] = "entities"
    attempt: int
    candidates: list[str]  # offered in constrained mode; empty in free mode
    proposed: list[str]
    resolved: dict[str, str]  # name as proposed -> entity of the KG
    unresolved: list[str]
    feedback: str | None = None
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.unresolved


class AnchorsFound(Event):
    """E^q = EL(q) ∪ LLM_E(q) and the size of its 1-hop sub-graph K^q (paper eqs. 1-2)."""

    kind: Literal["anchors"] = "anchors"
    linked: list[str]
    named: list[str]
    anchors: list[str]
    facts: int


class AxiomAttempt(ModelEvent):
    kind: Literal["axiom"] = "axiom"
    branch: int
    attempt: int
    temperature: float
    rule: str
    premises: list[Premise]
    alternatives: list[list[Premise]] = Field(default_factory=list)
    problems: list[str]
    feedback: str | None = None
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.problems


class FactsRanked(Event):
    """Sub-graph pruning, by similarity (paper eq. 4, top-k): the facts kept, and those offered to the model."""

    kind: Literal["ranked"] = "ranked"
    branch: int
    depth: int
    entity: str | None  # the entity expanded for this depth; None: the whole sub-graph
    against: str  # the text the facts were ranked against (the axiom, or the missing evidence)
    ranker: RankerName
    considered: int
    top: list[TripleRecord]
    offered: list[TripleRecord]


class PickAttempt(ModelEvent):
    """Sub-graph pruning by the model (paper eq. 4, LLM_T): facts it picks among those offered."""

    kind: Literal["pick"] = "pick"
    branch: int
    depth: int
    attempt: int
    picked: list[str]
    invalid_keys: list[str]
    feedback: str | None = None
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.invalid_keys


class JudgementAttempt(ModelEvent):
    """Fact-grounded answer selection (paper eq. 5): each premise judged on the facts shown, citing them."""

    kind: Literal["judgement"] = "judgement"
    branch: int
    depth: int
    attempt: int
    shown: list[str]  # keys of the facts shown with this request
    judgements: list[PremiseJudgement]
    invalid_keys: list[str]
    problems: list[str]
    feedback: str | None = None
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.problems


class VerdictReached(Event):
    """The answer computed from a valid judgement: True, False, or None (undetermined)."""

    kind: Literal["verdict"] = "verdict"
    branch: int
    depth: int
    answer: Answer
    rests_on: list[str]  # premises the answer rests on
    unknown: list[str]  # premises not grounded (an undetermined verdict)


class MissingAttempt(ModelEvent):
    """Missing evidence identification (paper eq. 6): what is missing, and whose facts could supply it."""

    kind: Literal["missing"] = "missing"
    branch: int
    depth: int
    attempt: int
    candidates: list[str]
    premise: str
    missing: str
    entity: str
    new_entity: bool  # not yet in E^q: its neighbourhood joins the sub-graph
    problems: list[str]
    feedback: str | None = None
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.problems


class BranchEnded(Event):
    kind: Literal["branch_end"] = "branch_end"
    branch: int
    depth: int
    reason: BranchEnd


class FinalAnswer(Event):
    kind: Literal["answer"] = "answer"
    stop_reason: StopReason
    answer: Answer
    explanation: str
    cited_keys: list[str]
    note: str | None = None


R3Event = Annotated[
    EntitiesAttempt
    | AnchorsFound
    | AxiomAttempt
    | FactsRanked
    | PickAttempt
    | JudgementAttempt
    | VerdictReached
    | MissingAttempt
    | BranchEnded
    | FinalAnswer,
    Field(discriminator="kind"),
]

_ATTEMPTS = (EntitiesAttempt, AxiomAttempt, PickAttempt, JudgementAttempt, MissingAttempt)


class R3Trace(Trace[R3Settings, R3Event]):
    def linked_entities(self) -> list[str]:
        """E^q: the entities linked from the query and those the model named in it that the KG has."""
        return [entity for event in self.events if isinstance(event, AnchorsFound) for entity in event.anchors]

    @computed_field
    @property
    def axioms(self) -> list[Axiom]:
        """The valid axiom of each branch: the commonsense assumptions of the run."""
        return [
            Axiom(branch=event.branch, rule=event.rule, premises=event.premises, alternatives=event.alternatives)
            for event in self.events
            if isinstance(event, AxiomAttempt) and event.valid
        ]

    @computed_field
    @property
    def invalid_attempts(self) -> int:
        return sum(1 for event in self.events if isinstance(event, _ATTEMPTS) and not event.valid)

    def shown_records(self) -> list[TripleRecord]:
        """Every fact shown to the model (kept for judging, or offered for picking), once each."""
        shown = {
            record.key: record
            for event in self.events
            if isinstance(event, FactsRanked)
            for record in (*event.top, *event.offered)
        }
        return list(shown.values())

    def shown_triples(self) -> list[Triple]:
        return [record.as_triple() for record in self.shown_records()]

    def unverified_citations(self) -> list[str]:
        """Citations the trace cannot verify; empty for every run of the strategy.

        A valid judgement may cite only keys whose fact line, exactly as recorded, stands on a line of
        the request that asked for it; the answer may cite only facts that a valid judgement cited.
        """
        records: dict[str, TripleRecord] = {}
        problems: list[str] = []
        grounded: set[str] = set()
        for event in self.events:
            if isinstance(event, FactsRanked):
                records.update((record.key, record) for record in [*event.top, *event.offered])
            elif isinstance(event, JudgementAttempt) and event.valid:
                lines = set(event.call.shown.splitlines())
                for judgement in event.judgements:
                    for key in judgement.cited_keys:
                        record = records.get(key)
                        if record is None or fact_line(key, record.as_triple()) not in lines:
                            where = f"branch {event.branch}, depth {event.depth}, attempt {event.attempt}"
                            problems.append(f"{where}: {judgement.premise} cites {key}, which was not shown")
                        else:
                            grounded.add(key)
        problems += [
            f"answer: {record.key} was not cited by a valid judgement"
            for record in self.cited_triples
            if record.key not in grounded
        ]
        return problems
