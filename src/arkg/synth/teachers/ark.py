"""The ARK teacher: leads the agent along a route, one (anchor, relation, facts) step at a time.

At each call it answers what the prompt asks, from the route and what the agent shows: the step's
anchor among the candidates (or by name in free mode), its relation among those listed, the keys
under which the step's gold facts are shown with their implication (ending, with `plan`, in the
route's next step or "Enough to answer."), and at the end the answer that the cited facts settle
(the reader). Anything the route needs that the agent does not offer (an anchor not among
the candidates, a gold fact not shown, a retry after a rejected reply) raises NotFollowed: the
run is abandoned and reported, never padded with a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arkg.agents.ark.agent import ANOTHER_ANCHOR
from arkg.agents.ark.replies import AnchorReply, OpenAnswer, ReasoningReply, RelationReply, YesNoAnswer
from arkg.agents.ark.trace import TriplesRetrieved
from arkg.agents.triple_keys import identity
from arkg.graph.model import Triple
from arkg.llm.base import Choice, Message, OutputSpec, Sampling
from arkg.llm.scripted import Reply
from arkg.synth.capture import NotFollowed
from arkg.synth.chains import Reason
from arkg.synth.readings import NoLabel, Reading
from arkg.synth.routes import RouteStep
from arkg.synth.teachers.common import reply_answer
from arkg.synth.wording import with_plan
from arkg.text import one_line

Reader = Callable[[Sequence[Triple]], Reading]


@dataclass
class ArkTeacher:
    route: Sequence[RouteStep]
    reader: Reader  # the answer the cited facts settle
    yes_no: bool
    plan: bool = False  # end each implication with the next step, or "Enough to answer."
    decisions: list[str] = field(default_factory=list)
    position: int = 0
    shown: dict[str, Triple] = field(default_factory=dict)  # key -> fact, of the current step
    cited: list[Triple] = field(default_factory=list)

    def observe(self, event: Any) -> None:
        if isinstance(event, TriplesRetrieved):
            self.shown = {record.key: record.as_triple() for record in event.triples}

    def __call__(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Reply:
        if isinstance(output, Choice):
            if ANOTHER_ANCHOR in output.options:
                return self._decide("relation", self._offered(self.step.label, output, "relation"))
            return self._decide("anchor", self._offered(one_line(self.step.anchor), output, "anchor"))
        if issubclass(output, AnchorReply):
            self._seen(self.step.anchor, messages)
            return self._decide("anchor", {"anchor_entity": one_line(self.step.anchor)})
        if issubclass(output, RelationReply):
            return self._decide("relation", {"relation": self.step.label})
        if issubclass(output, ReasoningReply):
            return self._decide("reasoning", self._reasoning())
        if issubclass(output, (YesNoAnswer, OpenAnswer)):
            return self._decide("answer", self._answer())
        raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK asked for {output.__name__}, which no route step answers")

    @property
    def step(self) -> RouteStep:
        if self.position >= len(self.route):
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK went on after the last of the {len(self.route)} route steps")
        return self.route[self.position]

    def _decide(self, decision: str, reply: Reply) -> Reply:
        # Every gold reply is valid, so a second request for the same decision of a step means the
        # agent rejected the first one: following on would teach a retry, not the route.
        if self.decisions and self.decisions[-1] == decision and decision != "answer":
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK rejected the gold {decision} of step {self.position + 1}")
        self.decisions.append(decision)
        return reply

    def _offered(self, wanted: str, output: Choice, what: str) -> str:
        if wanted not in output.options:
            raise NotFollowed(
                Reason.NOT_FOLLOWED,
                f"step {self.position + 1}: the {what} {wanted!r} is not among the {len(output.options)} offered",
            )
        return wanted

    def _seen(self, name: str, messages: Sequence[Message]) -> None:
        """In free mode the model names the anchor: only a name it has read can be taught."""
        if not any(one_line(name) in message.content for message in messages):
            raise NotFollowed(Reason.NOT_FOLLOWED, f"step {self.position + 1}: the anchor {name!r} was never shown")

    def _reasoning(self) -> dict[str, Any]:
        step = self.step
        gold = {identity(triple) for triple in step.triples}
        keys = [key for key, triple in self.shown.items() if identity(triple) in gold]
        if not keys:
            raise NotFollowed(
                Reason.NOT_FOLLOWED,
                f"step {self.position + 1}: no gold fact of {step.anchor!r} / {step.label!r} among the {len(self.shown)} shown",
            )
        self.cited += [self.shown[key] for key in keys]
        self.position += 1
        following = self.route[self.position] if self.position < len(self.route) else None
        implication = step.implication
        if self.plan:
            implication = with_plan(implication, None if following is None else (following.anchor, following.label))
        return {"cited_keys": keys, "implication": implication, "continue_exploring": following is not None}

    def _answer(self) -> dict[str, str]:
        try:
            reading = self.reader(self.cited)
        except NoLabel as error:
            raise NotFollowed(Reason.NO_LABEL, str(error)) from None
        return {"explanation": reading.explanation, "answer": reply_answer(reading, self.yes_no)}
