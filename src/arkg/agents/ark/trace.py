"""The typed record of one ARK run: every node visited, every attempt, what was shown and spent.

Events are appended in the order they happen and handed to a live callback as they are; the trace
exports to JSON with `trace.model_dump_json()` and reads as `ark.view` says.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Annotated, Literal

from pydantic import Field, computed_field

from arkg.agents.ark.computed import Computed
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.run import BUDGET_SPENT, StopReason as BaseStopReason
from arkg.agents.strategy import Answer
from arkg.agents.support import Computation
from arkg.agents.trace import Event, ModelCall, ModelEvent, Trace, TripleRecord
from arkg.agents.triple_keys import fact_line


class Node(IntEnum):
    """The nodes of the ARK-V1 loop, numbered as in the paper's Fig. 1."""

    INIT = 1
    NEW_STEP = 2
    PROMPT_ANCHOR = 3
    SELECT_ANCHOR = 4
    RETRIEVE_RELATIONS = 5
    PROMPT_RELATION = 6
    SELECT_RELATION = 7
    RETRIEVE_TRIPLES = 8
    REASON = 9
    CLEANUP = 10
    FINAL_ANSWER = 11


class Purpose(str, Enum):
    ANCHOR = "anchor"
    RELATION = "relation"
    REASONING = "reasoning"
    ANSWER = "answer"


class StopReason(BaseStopReason):
    """Why the loop went to the final answer (node 11)."""

    DONE = "the model stopped exploring"
    K_MAX = "k_max reasoning steps reached"
    C_MAX_ANCHOR = "c_max anchor attempts failed"
    C_MAX_RELATION = "c_max relation attempts failed"
    C_MAX_REASONING = "c_max reasoning attempts failed"
    REPEATED_ANCHOR = "the model repeated a rejected anchor"
    REPEATED_RELATION = "the model repeated a rejected relation"
    NO_ANCHOR = "no entity of the question is in the knowledge graph"
    BUDGET = BUDGET_SPENT


# Of a relation attempt: "empty" is the paper's r = ∅ (the model asks for another anchor).
RelationOutcome = Literal["valid", "empty", "invalid"]


class AnchorAttempt(ModelEvent):
    kind: Literal["anchor"] = "anchor"
    step: int
    attempt: int
    candidates: list[str]  # the options offered (constrained mode); empty in free mode
    proposed: str
    valid: bool
    feedback: str | None = None  # what the next attempt is told, when this one was invalid
    # None: no model call, the agent named the anchor (an entity of the question that no step reached,
    # ArkSettings.visit_named_entities).
    call: ModelCall | None


class RelationsRetrieved(Event):
    kind: Literal["relations"] = "relations"
    step: int
    anchor: str
    offered: list[str]  # labels as shown; incoming ones marked
    not_shown: int = 0
    # Relations of this anchor followed in an earlier step: not offered again (their facts are in the summary).
    explored: list[str] = []


class RelationAttempt(ModelEvent):
    kind: Literal["relation"] = "relation"
    step: int
    attempt: int
    anchor: str
    proposed: str
    outcome: RelationOutcome
    feedback: str | None = None
    call: ModelCall


class TriplesRetrieved(Event):
    kind: Literal["triples"] = "triples"
    step: int
    anchor: str
    relation: str
    triples: list[TripleRecord]
    not_shown: int = 0


class ReasoningAttempt(ModelEvent):
    kind: Literal["reasoning"] = "reasoning"
    step: int
    attempt: int
    cited_keys: list[str]
    implication: str
    continue_exploring: bool
    invalid_keys: list[str]  # cited keys not among this step's triples
    call: ModelCall

    @computed_field
    @property
    def valid(self) -> bool:
        return not self.invalid_keys


class Cleanup(Event):
    kind: Literal["cleanup"] = "cleanup"
    step: int
    summary: str
    # Entities the question names that no step reached when the model stopped: exploring went on for
    # them (ArkSettings.visit_named_entities).
    continued_for: list[str] = []


class FinalAnswer(ModelEvent):
    kind: Literal["answer"] = "answer"
    stop_reason: StopReason
    answer: Answer
    explanation: str
    cited_keys: list[str]
    # Why the reply was not taken as it stands (e.g. it only repeated the instructions), or why
    # there was no reply (the budget was spent).
    note: str | None = None
    # What the answer prompt was shown as computed from the cited facts (ArkSettings.compare_values).
    computed: list[Computed] = []
    call: ModelCall | None = None


ArkEvent = Annotated[
    AnchorAttempt | RelationsRetrieved | RelationAttempt | TriplesRetrieved | ReasoningAttempt | Cleanup | FinalAnswer,
    Field(discriminator="kind"),
]


class ArkTrace(Trace[ArkSettings, ArkEvent]):
    nodes: list[Node] = []
    # The KG entities the question names, linked as KAPING and R³ link theirs: where the answer's chain
    # of cited facts must start (the anchors the model chose may be any entity met on the way).
    question_entities: list[str] = []

    def linked_entities(self) -> list[str]:
        return list(self.question_entities)

    def computations(self) -> list[Computation]:
        """What the final answer step was shown as computed from the cited facts (compare_values)."""
        return [line.as_computation() for event in self.events if isinstance(event, FinalAnswer) for line in event.computed]

    @computed_field
    @property
    def invalid_attempts(self) -> int:
        """Anchor, relation and reasoning attempts that failed their validity check."""
        return sum(
            1
            for event in self.events
            if (isinstance(event, AnchorAttempt) and not event.valid)
            or (isinstance(event, RelationAttempt) and event.outcome == "invalid")
            or (isinstance(event, ReasoningAttempt) and not event.valid)
        )

    def unverified_citations(self) -> list[str]:
        """Citations that cannot be verified from the trace alone; empty for every run of the agent.

        A valid reasoning step may cite only keys whose fact line, exactly as recorded, stands on a
        line of the prompt that asked for that step; the answer may cite only facts of valid steps.
        """
        problems: list[str] = []
        shown: dict[str, TripleRecord] = {}
        grounded: set[str] = set()
        for event in self.events:
            if isinstance(event, TriplesRetrieved):
                shown = {record.key: record for record in event.triples}
            elif isinstance(event, ReasoningAttempt) and event.valid:
                lines = set(event.call.shown.splitlines())
                for key in event.cited_keys:
                    record = shown.get(key)
                    if record is None or fact_line(key, record.as_triple()) not in lines:
                        problems.append(f"step {event.step}, attempt {event.attempt}: {key} was not shown")
                    else:
                        grounded.add(key)
        problems += [
            f"answer: {record.key} was not cited by a valid step" for record in self.cited_triples if record.key not in grounded
        ]
        return problems
