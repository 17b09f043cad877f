"""ARK's synthesis teacher and lesson: leads the agent along a route, one (anchor, relation, facts) step at a time.

At each call it answers what the prompt asks, from the route and what the agent shows: the step's
anchor among the candidates (or by name in free mode), its relation among those listed, the keys
under which the step's gold facts are shown with their implication (ending, with `plan`, in the
route's next step or "Enough to answer."), and at the end the answer that the cited facts settle
(the reader). Anything the route needs that the agent does not offer (an anchor not among
the candidates, a gold fact not shown, a retry after a rejected reply) raises NotFollowed: the
run is abandoned and reported, never padded with a guess.

With `retries` (free mode), the teacher first makes the kind of mistake a small model makes: a
misspelt anchor (odd steps), a relation the anchor does not offer or one it followed already
(every step). The agent rejects it with its feedback, and the gold reply that follows is the pair
kept ("anchor-retry", "relation-retry"): what to do after a rejection. The mistaken call itself
is marked MISTAKE and never kept.

On even steps that move to a new anchor, the teacher first goes back to the previous step's anchor
(marked DETOUR: the agent accepts it) and names the relation followed there, as a small model that
explores on after the last fact it needs does. After "explored already" the gold reply is "" (leave
this anchor, "relation-retry"), then the step's own anchor ("anchor-retry").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from arkg.agents.ark.agent import ANOTHER_ANCHOR
from arkg.agents.ark.computed import computed_lines
from arkg.agents.ark.replies import AnchorReply, OpenAnswer, ReasoningReply, RelationReply, YesNoAnswer
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.ark.trace import ArkTrace, RelationsRetrieved, StopReason, TriplesRetrieved
from arkg.agents.answers import MAX_TEXT_CHARS
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.strategy import Result
from arkg.agents.teaching import (
    RETRY,
    Case,
    Led,
    Lesson,
    NoLabel,
    NotFollowed,
    Pair,
    Reader,
    Reading,
    Reason,
    RouteStep,
    SynthOptions,
    Unsettled,
    Variant,
    fit,
    reply_answer,
)
from arkg.agents.trace import TripleRecord
from arkg.agents.triple_keys import identity
from arkg.graph.model import Direction
from arkg.llm.base import Choice, Message, OutputSpec, Sampling
from arkg.llm.scripted import Reply
from arkg.text import one_line

MISTAKE = "mistake"  # the decision of a deliberately wrong reply: run, never kept as a pair
DETOUR = "detour"  # the decision of a return to the previous anchor: valid, never kept as a pair

# The plan that `with_plan` puts at the end of an implication, in plain text or inside its JSON
# string (where a name may hold escaped characters): the first word says whether to go on.
PLAN = re.compile(r'(?<= )(?:Next: (?:[^"\\\n]|\\.)+|Enough to answer)\.$')


def with_plan(implication: str, next_step: tuple[str, str] | None) -> str:
    """A reasoning step's implication followed by what the route does next: "Next: Serbia, continent."
    or "Enough to answer.". The stop flag that follows in the reply then reads off words the model
    wrote itself, and the next anchor and relation are in its history, instead of resting on a bare
    true/false decided from the question alone."""
    plan = "Enough to answer." if next_step is None else f"Next: {one_line(next_step[0])}, {next_step[1]}."
    return f"{fit(implication, MAX_TEXT_CHARS - len(plan) - 1)} {plan}"


@dataclass
class ArkTeacher:
    route: Sequence[RouteStep]
    reader: Reader  # the answer the cited facts settle
    yes_no: bool
    plan: bool = False  # end each implication with the next step, or "Enough to answer."
    decisions: list[str] = field(default_factory=list)
    position: int = 0
    shown: dict[str, TripleRecord] = field(default_factory=dict)  # key -> fact, of the current step
    cited: dict[str, TripleRecord] = field(default_factory=dict)  # key -> fact as first cited, as ARK keeps them
    retries: bool = False  # free mode: a wrong anchor or relation first, then the gold one
    offered: list[str] = field(default_factory=list)  # relations offered for the current anchor
    explored: list[str] = field(default_factory=list)  # ... and those it followed in earlier steps
    retrying: str = ""  # the decision whose mistake the agent is expected to have rejected
    detour: bool = False  # at the previous step's anchor, on purpose: leave it after one mistake

    def observe(self, event: Any) -> None:
        if isinstance(event, TriplesRetrieved):
            self.shown = {record.key: record for record in event.triples}
        elif isinstance(event, RelationsRetrieved):
            self.offered, self.explored = list(event.offered), list(event.explored)

    def __call__(self, messages: Sequence[Message], output: OutputSpec, sampling: Sampling) -> Reply:
        if isinstance(output, Choice):
            if ANOTHER_ANCHOR in output.options:
                return self._decide("relation", self._offered(self.step.label, output, "relation"))
            return self._decide("anchor", self._offered(one_line(self.step.anchor), output, "anchor"))
        if issubclass(output, AnchorReply):
            self._seen(self.step.anchor, messages)
            if self.detour:  # the agent found nothing left to follow there and asks again
                self.detour, self.retrying = False, "anchor"
            elif self._detour_due():
                self.detour = True
                self.decisions.append(DETOUR)
                return {"anchor_entity": one_line(self.route[self.position - 1].anchor)}
            if self._mistake_due("anchor"):
                return self._mistake("anchor", {"anchor_entity": misspelt(one_line(self.step.anchor))})
            return self._decide("anchor", {"anchor_entity": one_line(self.step.anchor)})
        if issubclass(output, RelationReply):
            if self.detour:
                return self._leave_detour()
            if self._mistake_due("relation"):
                return self._mistake("relation", {"relation": self._wrong_relation()})
            return self._decide("relation", {"relation": self.step.label})
        if issubclass(output, ReasoningReply):
            return self._decide("reasoning", self._reasoning())
        if issubclass(output, (YesNoAnswer, OpenAnswer)):
            return self._decide("answer", self._answer(messages[-1].content))
        raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK asked for {output.__name__}, which no route step answers")

    @property
    def step(self) -> RouteStep:
        if self.position >= len(self.route):
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK went on after the last of the {len(self.route)} route steps")
        return self.route[self.position]

    def _decide(self, decision: str, reply: Reply) -> Reply:
        # Every gold reply is valid, so a second request for the same decision of a step means the
        # agent rejected the first one: following on would teach a retry, not the route.
        if self.decisions and self.decisions[-1].removesuffix(RETRY) == decision and decision != "answer":
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK rejected the gold {decision} of step {self.position + 1}")
        if self.retrying:
            self._check_rejected(decision)
            decision += RETRY
        self.decisions.append(decision)
        return reply

    def _mistake_due(self, decision: str) -> bool:
        # Not on the call that follows a mistake: that one is the retry.
        if not self.retries or self.retrying:
            return False
        return decision == "relation" or self.position % 2 == 0

    def _detour_due(self) -> bool:
        if not self.retries or self.retrying or self.position % 2 == 0:
            return False
        return self.route[self.position - 1].anchor != self.step.anchor

    def _leave_detour(self) -> Reply:
        """At the previous anchor: first the relation followed there (rejected), then "" to leave."""
        if not self.retrying:
            return self._mistake("relation", {"relation": self._wrong_relation()})
        reply = self._decide("relation", {"relation": ""})
        self.detour, self.retrying = False, "anchor"
        return reply

    def _mistake(self, decision: str, reply: Reply) -> Reply:
        self.retrying = decision
        self.decisions.append(MISTAKE)
        return reply

    def _check_rejected(self, decision: str) -> None:
        """A mistake the agent took as valid leads off the route: nothing after it can be taught."""
        if self.retrying and self.retrying != decision:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK accepted the wrong {self.retrying} made on purpose at step {self.position + 1}")
        self.retrying = ""

    def _wrong_relation(self) -> str:
        """One followed already from this anchor, else another step's relation the anchor lacks,
        else the anchor's own name: the relation mistakes seen in free-mode runs."""
        if self.explored:
            return self.explored[0]
        others = [step.label for step in self.route if step.label not in self.offered]
        return others[self.position % len(others)] if others else one_line(self.step.anchor)

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
        keys = [key for key, record in self.shown.items() if identity(record.as_triple()) in gold]
        if not keys:
            raise NotFollowed(
                Reason.NOT_FOLLOWED,
                f"step {self.position + 1}: no gold fact of {step.anchor!r} / {step.label!r} among the {len(self.shown)} shown",
            )
        for key in keys:
            self.cited.setdefault(key, self.shown[key])
        self.position += 1
        following = self.route[self.position] if self.position < len(self.route) else None
        implication = step.implication
        if self.plan:
            implication = with_plan(implication, None if following is None else (following.anchor, following.label))
        return {"cited_keys": keys, "implication": implication, "continue_exploring": following is not None}

    def _answer(self, prompt: str) -> dict[str, str]:
        try:
            reading = self.reader([record.as_triple() for record in self.cited.values()])
        except NoLabel as error:
            raise NotFollowed(Reason.NO_LABEL, str(error)) from None
        explanation = self._computed_explanation(reading, prompt) or reading.explanation
        return {"explanation": explanation, "answer": reply_answer(reading, self.yes_no)}

    def _computed_explanation(self, reading: Reading, prompt: str) -> str:
        """For an answer an argmax / argmin decided, the computed line of the prompt that names the
        extreme, word for word; "" when the prompt holds none (computed comparisons off).

        Copying a line it was shown is easier for a small model than writing the pick anew: after
        "Largest population cited: " the prompt itself holds the name that follows, where "Largest
        population: " is followed by whichever name the model thinks of, often the question's first."""
        if not reading.picked:
            return ""
        resting = {identity(triple) for triple in reading.cited}
        keys = {key for key, record in self.cited.items() if identity(record.as_triple()) in resting}
        lines = [
            line.text
            for line in computed_lines(list(self.cited.values()))
            if line.kind == "extremes" and set(line.keys) <= keys and f"- {line.text}\n" in prompt
        ]
        return lines[0] if len(lines) == 1 and len(lines[0]) <= MAX_TEXT_CHARS else ""


def misspelt(name: str) -> str:
    """The name with the two letters nearest its middle swapped, as a model copying it wrongly writes
    it ("Bristol" -> "Brsitol"); a name without two such letters gets its last letter twice."""
    middle = len(name) // 2
    for at in sorted(range(1, len(name)), key=lambda index: abs(index - middle)):
        before, here = name[at - 1], name[at]
        if before.isalpha() and here.isalpha() and before != here:
            return name[: at - 1] + here + before + name[at + 1 :]
    return name + name[-1:]


class ArkLesson(Lesson):
    """ARK is led along the gold route (each mode; with `retries`, free mode also through deliberate
    mistakes), on contradicting KGs, and stopped one step short of the route."""

    def takes(self, case: Case) -> bool:
        return case.variant is not Variant.UNSETTLED or case.unsettled is Unsettled.SHORT_ROUTE

    def teacher(self, case: Case, options: SynthOptions, retries: bool = False) -> ArkTeacher:
        return ArkTeacher(case.route, case.reader, case.yes_no, plan=options.plan, retries=retries)

    def runs(self, case: Case, settings: BaseModel, options: SynthOptions) -> Iterator[Led]:
        for led in super().runs(case, settings, options):
            yield led
            if options.retries and led.mode == SelectionMode.FREE.value and case.variant is Variant.GOLD:
                yield Led(led.mode, led.settings, lambda: self.teacher(case, options, retries=True), retries=True)

    def before(self, case: Case, settings: BaseModel) -> None:
        """Routes ARK cannot take: no step at all, more steps than k_max, an incoming edge with edges=out."""
        assert isinstance(settings, ArkSettings)
        route = case.route
        if not route:
            raise NotFollowed(Reason.NOT_FOLLOWED, "the answer rests on no fact, so there is no step to take")
        if len(route) > settings.k_max:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"the route has {len(route)} steps, more than k_max={settings.k_max}")
        incoming = next((step for step in route if step.direction == Direction.IN), None)
        if incoming is not None and settings.edges is EdgeSet.OUT:
            raise NotFollowed(
                Reason.NOT_FOLLOWED,
                f"the route follows {incoming.label!r} into {incoming.anchor!r}; ARK explores outgoing edges only (edges=out)",
            )

    def after(self, result: Result, pairs: list[Pair]) -> None:
        """Every gold reply was taken (only the deliberate mistakes were rejected), and the route ended the run."""
        assert isinstance(result.trace, ArkTrace)
        rejected = result.trace.invalid_attempts - sum(pair.decision == MISTAKE for pair in pairs)
        if rejected:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK rejected {rejected} gold replies")
        if result.stop_reason != StopReason.DONE.value:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK stopped before the route's end: {result.stop_reason}")


LESSON = ArkLesson()
