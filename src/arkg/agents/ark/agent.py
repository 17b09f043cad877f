"""ARK-V1 (paper Section III, Fig. 1): explore the KG one anchor and relation at a time, then answer.

The loop is a state machine over the paper's nodes 1-11. Each node is one method of `_Run` that
returns the next node; the five branching points are the route functions of `ark.routes`, one per
equation of the paper.

    agent = ArkAgent(kg, model, ArkSettings(mode=SelectionMode.FREE))
    result = agent.ask("Is Yui Yuigahama's pet a corgi?")
    result.answer          # True / False / None (None: the KG did not settle it)
    result.trace           # ArkTrace: every node, attempt, retrieval and model call
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arkg.agents.ark import replies
from arkg.agents.ark.computed import Computed, computed_lines
from arkg.agents.ark.routes import route_anchor, route_continue, route_reasoning, route_relation, route_relations
from arkg.agents.ark.settings import ArkSettings
from arkg.agents.ark.trace import (
    AnchorAttempt,
    ArkTrace,
    Cleanup,
    FinalAnswer,
    Node,
    Purpose,
    ReasoningAttempt,
    RelationAttempt,
    RelationOutcome,
    RelationsRetrieved,
    StopReason,
    TriplesRetrieved,
)
from arkg.agents.answers import only_words_of, read_answer
from arkg.agents.candidates import entities_in_question, named_in_question, rank_by_question
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.prompts import Prompt, load_prompt
from arkg.agents.retrieval import link_entities
from arkg.agents.run import Agent, RunKit, StrategyRun
from arkg.agents.strategy import Answer, Query, Result
from arkg.agents.trace import ModelCall, TripleRecord
from arkg.agents.triple_keys import TripleKeys, fact_line, triple_text
from arkg.graph.matching import snap_names
from arkg.graph.model import Direction, KnowledgeGraph, Triple
from arkg.llm.base import ChatModel, Choice, Message, OutputSpec
from arkg.text import one_line

# The constrained-mode option that stands for the paper's empty relation choice r = ∅.
ANOTHER_ANCHOR = "none of these: choose another entity"
CLOSEST_SHOWN = 5


NAME = "ark"


def _prompt(name: str) -> Prompt:
    """One of ARK's prompts (arkg/agents/ark/prompts/<name>.yaml)."""
    return load_prompt(name, __package__)


class ArkAgent(Agent):
    """The ARK-V1 strategy over any KnowledgeGraph and ChatModel."""

    name = NAME

    def __init__(self, kg: KnowledgeGraph, model: ChatModel, settings: ArkSettings | None = None) -> None:
        self.kg = kg
        self.model = model
        self.settings = settings or ArkSettings()

    def start(self, query: Query, kit: RunKit) -> _Run:
        return _Run(self, query, kit)


@dataclass(frozen=True)
class _RelationOption:
    """A relation as offered to the model: outgoing, or incoming (shown as "<relation> (incoming)")."""

    relation: str
    direction: Direction

    @property
    def label(self) -> str:
        shown = one_line(self.relation)
        return shown if self.direction is Direction.OUT else f"{shown} (incoming)"


@dataclass
class _Step:
    """The reasoning step k in progress; attempt counters are the paper's c, one per decision."""

    k: int
    anchor_candidates: list[str] = field(default_factory=list)
    anchor: str = ""
    anchor_attempts: int = 0
    rejected_anchors: set[str] = field(default_factory=set)
    relations: dict[str, _RelationOption] = field(default_factory=dict)  # R(k): label -> option, best first
    explored: list[str] = field(default_factory=list)  # labels of the anchor followed in earlier steps
    relation: _RelationOption | None = None
    relation_attempts: int = 0
    rejected_relations: set[str] = field(default_factory=set)  # of the current anchor
    triples: dict[str, TripleRecord] = field(default_factory=dict)  # key -> triple shown
    triples_not_shown: int = 0
    context_before_reasoning: int = 0
    reasoning_attempts: int = 0
    reasoning: ReasoningAttempt | None = None
    feedback: str = ""  # told to the next attempt of the current decision


@dataclass(frozen=True)
class _FinishedStep:
    anchor: str
    relation: _RelationOption
    cited: tuple[TripleRecord, ...]
    implication: str


class _Run(StrategyRun[ArkTrace]):
    """One question: the message context, the step in progress, and the trace."""

    def __init__(self, agent: ArkAgent, query: Query, kit: RunKit) -> None:
        trace = ArkTrace.begin(NAME, query, agent.model.name, agent.settings)
        super().__init__(query, kit, trace)
        self.kg = agent.kg
        self.settings = agent.settings
        self.question = query.text
        self.constrained = self.settings.mode is SelectionMode.CONSTRAINED
        self.directions = [Direction.OUT] if self.settings.edges is EdgeSet.OUT else [Direction.OUT, Direction.IN]
        # E_head of eq. (2); with incoming edges too, every entity with an edge can be explored.
        self.explorable: Callable[[str], bool] = (
            self.kg.is_head if self.settings.edges is EdgeSet.OUT else self.kg.has_entity
        )
        self.keys = TripleKeys()
        # Every name shown to the model, as shown -> as stored: a reply naming an entity by its shown
        # (escaped) form still finds it.
        self.shown_names: dict[str, str] = {}
        self.messages: list[Message] = []
        self.finished: list[_FinishedStep] = []
        self.explored: set[tuple[str, _RelationOption]] = set()  # (anchor, relation) of finished steps
        self.named: list[str] = []  # entities the question names as written (ArkSettings.visit_named_entities)
        self.continued_for: list[str] = []  # those that exploring went on for, each once
        self.visited_named: set[str] = set()  # those the agent made the anchor of a step, each once
        self.step = _Step(k=0)
        self.stop_reason = StopReason.DONE

    # The loop ---------------------------------------------------------------------------------------

    def execute(self) -> Result:
        nodes: dict[Node, Callable[[], Node]] = {
            Node.INIT: self.init,
            Node.NEW_STEP: self.new_step,
            Node.PROMPT_ANCHOR: self.prompt_anchor,
            Node.SELECT_ANCHOR: self.select_anchor,
            Node.RETRIEVE_RELATIONS: self.retrieve_relations,
            Node.PROMPT_RELATION: self.prompt_relation,
            Node.SELECT_RELATION: self.select_relation,
            Node.RETRIEVE_TRIPLES: self.retrieve_triples,
            Node.REASON: self.reason,
            Node.CLEANUP: self.cleanup,
        }
        node = Node.INIT
        while node is not Node.FINAL_ANSWER:
            self.trace.nodes.append(node)
            node = nodes[node]()
        self.trace.nodes.append(Node.FINAL_ANSWER)
        return self.final_answer()

    # Node 1
    def init(self) -> Node:
        self.messages = self.base_context()
        self.trace.question_entities = link_entities(self.kg, self.question, self.settings.max_anchor_candidates)
        self.named = named_in_question(self.question, self.explorable) if self.settings.visit_named_entities else []
        return Node.NEW_STEP

    # Node 2
    def new_step(self) -> Node:
        self.step = _Step(k=self.step.k + 1)
        return Node.PROMPT_ANCHOR

    # Node 3
    def prompt_anchor(self) -> Node:
        prompt = _prompt("anchor")
        if self.constrained:
            self.step.anchor_candidates = self.anchor_candidates()
            instruction = prompt.part("constrained", candidates=_bullets(self.show(self.step.anchor_candidates)))
        else:
            instruction = prompt.part("free")
        self.say(prompt.render(step=self.step.k, feedback=self.step.feedback, instruction=instruction))
        return Node.SELECT_ANCHOR

    # Node 4
    def select_anchor(self) -> Node:
        step = self.step
        step.anchor_attempts += 1
        if self.constrained and not step.anchor_candidates:
            self.stop_reason = StopReason.NO_ANCHOR
            return Node.FINAL_ANSWER
        named = self.named_to_visit() if step.anchor_attempts == 1 else None
        if named is not None:
            # The step exists for this entity: the agent names it; the context reads as if the model had.
            self.visited_named.add(named)
            reply = one_line(named) if self.constrained else replies.AnchorReply(anchor_entity=one_line(named)).model_dump_json()
            self.messages.append(Message(role="assistant", content=reply))
            proposed, call = named, None
        else:
            if self.constrained:
                shown, call = self.decide(Choice(self.show(step.anchor_candidates)), Purpose.ANCHOR, step.anchor_attempts)
            else:
                answer, call = self.decide(replies.AnchorReply, Purpose.ANCHOR, step.anchor_attempts)
                shown = answer.anchor_entity.strip()
            proposed = self.shown_names.get(shown, shown)
        valid = bool(proposed) and self.explorable(proposed)
        step.feedback = "" if valid else self.anchor_feedback(proposed)
        repeated = not valid and self.repeats(proposed, step.rejected_anchors)
        if valid:
            step.anchor = proposed
        self.record(
            AnchorAttempt(
                step=step.k,
                attempt=step.anchor_attempts,
                candidates=list(step.anchor_candidates),
                proposed=proposed,
                valid=valid,
                feedback=step.feedback or None,
                call=call,
            )
        )
        node = route_anchor(valid, step.anchor_attempts, self.settings.c_max, repeated)
        if node is Node.FINAL_ANSWER:
            self.stop_reason = StopReason.REPEATED_ANCHOR if repeated else StopReason.C_MAX_ANCHOR
        return node

    # Node 5
    def retrieve_relations(self) -> Node:
        step = self.step
        # R(k): the anchor's relations, less those followed from it in an earlier step (their facts
        # are in the summary already; offering them again only invites the same step twice).
        options = self.relation_options(step.anchor)
        step.explored = [option.label for option in options if (step.anchor, option) in self.explored]
        by_label = {option.label: option for option in options if option.label not in step.explored}
        step.relations = {label: by_label[label] for label in rank_by_question(by_label, self.question)}
        step.relation_attempts = 0
        step.rejected_relations = set()
        shown = self.relations_shown()
        self.record(
            RelationsRetrieved(
                step=step.k,
                anchor=step.anchor,
                offered=shown,
                not_shown=len(step.relations) - len(shown),
                explored=step.explored,
            )
        )
        node = route_relations(list(step.relations), step.anchor_attempts, self.settings.c_max)
        if node is Node.PROMPT_ANCHOR:
            part = "anchor_explored" if step.explored else "anchor_without_relations"
            step.feedback = _prompt("feedback").part(part, anchor=one_line(step.anchor))
        elif node is Node.FINAL_ANSWER:
            self.stop_reason = StopReason.C_MAX_ANCHOR
        return node

    # Node 6
    def prompt_relation(self) -> Node:
        step = self.step
        prompt = _prompt("relation")
        shown = self.relations_shown()
        hidden = len(step.relations) - len(shown)
        lines = _bullets([*shown, f"({hidden} more not shown)"] if hidden else shown)
        if self.constrained:
            lines += "\n" + _bullets([ANOTHER_ANCHOR])
        instruction = prompt.part("constrained" if self.constrained else "free")
        self.say(
            prompt.render(
                step=step.k, anchor=one_line(step.anchor), relations=lines, feedback=step.feedback, instruction=instruction
            )
        )
        return Node.SELECT_RELATION

    # Node 7
    def select_relation(self) -> Node:
        step = self.step
        step.relation_attempts += 1
        if self.constrained:
            options = Choice([*self.relations_shown(), ANOTHER_ANCHOR])
            proposed, call = self.decide(options, Purpose.RELATION, step.relation_attempts)
            proposed = "" if proposed == ANOTHER_ANCHOR else proposed
        else:
            reply, call = self.decide(replies.RelationReply, Purpose.RELATION, step.relation_attempts)
            proposed = reply.relation.strip()
        label = self.relation_label(proposed)
        outcome: RelationOutcome = "empty" if not proposed else "valid" if label in step.relations else "invalid"
        if outcome != "invalid":
            step.feedback = ""
        elif label in step.explored:
            step.feedback = _prompt("feedback").part(
                "relation_explored", relation=label, anchor=one_line(step.anchor)
            )
        else:
            step.feedback = self.relation_feedback(proposed)
        repeated = outcome == "invalid" and self.repeats(label, step.rejected_relations)
        if outcome == "valid":
            step.relation = step.relations[label]
        elif outcome == "empty" and len(step.anchor_candidates) > 1:
            # The model declined every relation of this anchor: do not offer the anchor again this step.
            step.anchor_candidates.remove(step.anchor)
        self.record(
            RelationAttempt(
                step=step.k,
                attempt=step.relation_attempts,
                anchor=step.anchor,
                proposed=proposed,
                outcome=outcome,
                feedback=step.feedback or None,
                call=call,
            )
        )
        node = route_relation(outcome, step.relation_attempts, self.settings.c_max, step.anchor_attempts, repeated)
        if node is Node.FINAL_ANSWER:
            if outcome == "empty":
                self.stop_reason = StopReason.C_MAX_ANCHOR
            else:
                self.stop_reason = StopReason.REPEATED_RELATION if repeated else StopReason.C_MAX_RELATION
        return node

    # Node 8
    def retrieve_triples(self) -> Node:
        step = self.step
        if step.reasoning_attempts:
            # A retry starts clean: the failed reasoning reply and its prompt leave the context.
            del self.messages[step.context_before_reasoning :]
            return Node.REASON
        assert step.relation is not None
        triples = self.kg.triples(step.anchor, step.relation.relation, step.relation.direction)
        shown = triples
        if len(triples) > self.settings.max_triples_shown:
            # Too many to show: keep those closest to the question's words (e.g. a tail it names).
            by_text = {triple_text(triple): triple for triple in triples}
            ranked = rank_by_question(by_text, self.question)
            shown = [by_text[text] for text in ranked[: self.settings.max_triples_shown]]
        incoming = step.relation.direction is Direction.IN
        step.triples = {record.key: record for record in (self.triple_record(t, incoming) for t in shown)}
        for record in step.triples.values():
            self.show([record.head, record.tail])
        step.triples_not_shown = len(triples) - len(shown)
        step.context_before_reasoning = len(self.messages)
        self.record(
            TriplesRetrieved(
                step=step.k,
                anchor=step.anchor,
                relation=step.relation.label,
                triples=list(step.triples.values()),
                not_shown=step.triples_not_shown,
            )
        )
        return Node.REASON

    # Node 9
    def reason(self) -> Node:
        step = self.step
        assert step.relation is not None
        step.reasoning_attempts += 1
        prompt = _prompt("reasoning")
        facts = [fact_line(key, record.as_triple()) for key, record in step.triples.items()]
        if step.triples_not_shown:
            facts.append(f"({step.triples_not_shown} more not shown)")
        keys = tuple(step.triples)
        self.say(
            prompt.render(
                step=step.k,
                anchor=one_line(step.anchor),
                relation=step.relation.label,
                facts="\n".join(facts) or "(none)",
                feedback=step.feedback,
                keys=", ".join(keys) or "none",
            )
        )
        output = replies.reasoning_reply_for(keys) if self.constrained and keys else replies.ReasoningReply
        reply, call = self.decide(output, Purpose.REASONING, step.reasoning_attempts)
        invalid = [key for key in reply.cited_keys if key not in step.triples]
        step.feedback = _prompt("feedback").part("invalid_keys", keys=", ".join(keys) or "none") if invalid else ""
        step.reasoning = ReasoningAttempt(
            step=step.k,
            attempt=step.reasoning_attempts,
            cited_keys=list(reply.cited_keys),
            implication=reply.implication.strip(),
            continue_exploring=reply.continue_exploring,
            invalid_keys=invalid,
            call=call,
        )
        self.record(step.reasoning)
        node = route_reasoning(not invalid, step.reasoning_attempts, self.settings.c_max)
        if node is Node.FINAL_ANSWER:
            self.stop_reason = StopReason.C_MAX_REASONING
        return node

    # Node 10
    def cleanup(self) -> Node:
        step = self.step
        assert step.relation is not None and step.reasoning is not None
        self.explored.add((step.anchor, step.relation))
        self.finished.append(
            _FinishedStep(
                anchor=step.anchor,
                relation=step.relation,
                cited=tuple(step.triples[key] for key in dict.fromkeys(step.reasoning.cited_keys)),
                implication=step.reasoning.implication,
            )
        )
        summary = self.summary()
        self.messages = [*self.base_context(), Message(role="user", content=summary)]
        continue_exploring = step.reasoning.continue_exploring
        # At k_max no step follows: the named entities left are not claimed as gone on for.
        unreached = [] if continue_exploring or step.k >= self.settings.k_max else self.named_unreached()
        self.continued_for += unreached
        self.record(Cleanup(step=step.k, summary=summary, continued_for=unreached))
        node = route_continue(step.k, self.settings.k_max, continue_exploring, bool(unreached))
        if node is Node.FINAL_ANSWER:
            self.stop_reason = StopReason.K_MAX if continue_exploring else StopReason.DONE
        return node

    # Node 11
    def final_answer(self) -> Result:
        prompt = _prompt("answer")
        findings = self.summary() if self.finished else prompt.part("no_findings")
        computed = computed_lines(self.cited()) if self.settings.compare_values else []
        if computed:
            findings += "\n" + prompt.part("computed", lines=_bullets([line.text for line in computed]))
        kind = ("claim" if self.query.is_claim else "yes_no") if self.trace.yes_no else "open"
        instruction = prompt.part(kind)
        self.messages = [
            *self.base_context(),
            Message(
                role="user",
                content=prompt.render(findings=findings, noun=self.query.noun, instruction=instruction),
            ),
        ]
        output = replies.YesNoAnswer if self.trace.yes_no else replies.OpenAnswer
        reply, call = self.decide(output, Purpose.ANSWER, attempt=1)
        answer = read_answer(reply.answer, self.trace.yes_no)
        note = None
        if isinstance(answer, str) and only_words_of(answer, self.messages[0].content, prompt.template, instruction):
            answer, note = None, f"the reply {one_line(reply.answer)!r} only repeats the instructions: read as no answer"
        elif isinstance(answer, str) and self.settings.snap_names:
            answer, replaced = snap_names(answer, (name for record in self.cited() for name in (record.head, record.tail)))
            if replaced:
                note = "names written as in the cited facts: " + ", ".join(f"{a!r} -> {b!r}" for a, b in replaced)
        return self.conclude(answer, reply.explanation.strip(), note, call, computed)

    def stopped(self, reason: str) -> Result:
        """The run budget ended the run before the final answer: no answer, and why."""
        self.trace.nodes.append(Node.FINAL_ANSWER)
        self.stop_reason = StopReason.BUDGET
        return self.conclude(None, "", reason, None)

    def conclude(
        self, answer: Answer, explanation: str, note: str | None, call: ModelCall | None, computed: Sequence[Computed] = ()
    ) -> Result:
        cited = self.cited()
        self.trace.cited_triples = cited
        self.record(
            FinalAnswer(
                stop_reason=self.stop_reason,
                answer=answer,
                explanation=explanation,
                cited_keys=[record.key for record in cited],
                note=note,
                computed=list(computed),
                call=call,
            )
        )
        return self.result(answer, explanation, stop_reason=self.stop_reason, retrieved=self.retrieved())

    # Helpers ----------------------------------------------------------------------------------------

    def base_context(self) -> list[Message]:
        """System prompt and question: the context of node 1, and what cleanup resets to."""
        prompt = _prompt("system")
        return [
            Message(role="system", content=prompt.render(noun=self.query.noun)),
            Message(role="user", content=prompt.part(self.query.noun, question=self.question)),
        ]

    def say(self, text: str) -> None:
        self.messages.append(Message(role="user", content=text))

    def decide(self, output: OutputSpec, purpose: Purpose, attempt: int) -> tuple[Any, ModelCall]:
        """One model call on the current context; its reply joins the context as the model's turn."""
        value, call = self.kit.complete(self.messages, output, purpose, step=self.step.k, attempt=attempt)
        self.messages.append(Message(role="assistant", content=call.raw))
        return value, call

    def anchor_candidates(self) -> list[str]:
        """Entities of the question, then entities met in cited facts, then others met: explorable only."""
        limit = self.settings.max_anchor_candidates
        in_question = entities_in_question(self.kg, self.question, self.explorable, limit)
        cited = [name for step in self.finished for record in step.cited for name in (record.head, record.tail)]
        met = [
            name
            for event in self.trace.events
            if isinstance(event, TriplesRetrieved)
            for record in event.triples
            for name in (record.head, record.tail)
        ]
        new = [name for name in dict.fromkeys([*cited, *met]) if name not in in_question and self.explorable(name)]
        # From step 2 on, the entities just reached are the likely next hop: offer them first; a step taken
        # for an entity of the question that no step reached offers that one first.
        named = [name] if (name := self.named_to_visit()) is not None else []
        candidates = [name for name in dict.fromkeys([*named, *new, *in_question]) if not self.exhausted(name)]
        return candidates[:limit]

    def reached(self) -> set[str]:
        """The anchors of finished steps and the entities of the facts they cited."""
        cited = {name for record in self.cited() for name in (record.head, record.tail)}
        return cited | {step.anchor for step in self.finished}

    def named_to_visit(self) -> str | None:
        """The first entity that exploring went on for, not reached yet and not yet made an anchor by the agent."""
        reached = self.reached()
        return next((name for name in self.continued_for if name not in reached and name not in self.visited_named), None)

    def named_unreached(self) -> list[str]:
        """Entities the question names that no step reached and exploring has not gone on for yet."""
        reached = self.reached()
        return [name for name in self.named if name not in reached and name not in self.continued_for and not self.exhausted(name)]

    def relation_options(self, anchor: str) -> list[_RelationOption]:
        return [
            _RelationOption(relation, direction)
            for direction in self.directions
            for relation in self.kg.relations(anchor, direction)
        ]

    def exhausted(self, anchor: str) -> bool:
        """Whether every relation of the anchor was followed in an earlier step."""
        if not any(explored_anchor == anchor for explored_anchor, _ in self.explored):
            return False
        return all((anchor, option) in self.explored for option in self.relation_options(anchor))

    def show(self, names: list[str]) -> list[str]:
        """The names as the model is shown them (one line each), remembering what each stands for."""
        shown = [one_line(name) for name in names]
        self.shown_names.update(zip(shown, names))
        return shown

    def cited(self) -> list[TripleRecord]:
        """The facts cited in finished steps, each once, as first cited: a fact read along an incoming
        edge and later along its outgoing one stays with the first reading, which the counts group it by."""
        first: dict[str, TripleRecord] = {}
        for step in self.finished:
            for record in step.cited:
                first.setdefault(record.key, record)
        return list(first.values())

    def retrieved(self) -> list[TripleRecord]:
        """Every triple shown in a reasoning step of this run, once each (by key)."""
        shown = {
            record.key: record
            for event in self.trace.events
            if isinstance(event, TriplesRetrieved)
            for record in event.triples
        }
        return list(shown.values())

    def repeats(self, reply: str, rejected: set[str]) -> bool:
        """Whether an invalid reply was rejected before in this decision (then remembered as such)."""
        repeated = reply in rejected and not self.settings.retry_repeats
        rejected.add(reply)
        return repeated

    def relations_shown(self) -> list[str]:
        return list(self.step.relations)[: self.settings.max_relations_shown]

    def anchor_feedback(self, proposed: str) -> str:
        matches = self.kg.search_entities(proposed, k=4 * CLOSEST_SHOWN) if proposed else []
        closest = [match.name for match in matches if self.explorable(match.name)][:CLOSEST_SHOWN]
        return _prompt("feedback").part(
            "invalid_anchor", proposed=one_line(proposed), closest=_names(self.show(closest))
        )

    def relation_label(self, proposed: str) -> str:
        """The relation of the anchor a reply names. A bare name stands for the incoming edge when the
        anchor has that relation only incoming ("capital" at Kigali), offered or explored already:
        "(incoming)" is how arkg shows the direction, not part of the relation's name."""
        incoming = _RelationOption(proposed, Direction.IN).label
        known = {*self.step.relations, *self.step.explored}
        return proposed if proposed in known or incoming not in known else incoming

    def relation_feedback(self, proposed: str) -> str:
        matches = [
            (match.score, _RelationOption(match.name, direction).label)
            for direction in self.directions
            for match in self.kg.search_relations(self.step.anchor, proposed, k=2 * CLOSEST_SHOWN, direction=direction)
        ]
        ranked = [label for _, label in sorted(matches, key=lambda pair: -pair[0]) if label in self.step.relations]
        return _prompt("feedback").part(
            "invalid_relation",
            proposed=one_line(proposed),
            anchor=one_line(self.step.anchor),
            closest=_names(ranked[:CLOSEST_SHOWN]),
        )

    def triple_record(self, triple: Triple, incoming: bool) -> TripleRecord:
        return TripleRecord(
            key=self.keys.key(triple),
            head=triple.head,
            relation=triple.relation,
            tail=triple.tail,
            props=dict(triple.props),
            incoming=incoming,
        )

    def summary(self) -> str:
        """All finished steps: anchor, relation, the facts cited and what they imply (paper's cleanup 1).

        Written from the step records rather than by the model: it cannot drop or distort a cited
        fact, and costs no call (the reference implementation does the same).
        """
        lines = []
        for number, step in enumerate(self.finished, start=1):
            facts = "; ".join(triple_text(record.as_triple()) for record in step.cited) or "none cited"
            lines.append(
                f"Step {number}: {one_line(step.anchor)} / {step.relation.label}. Facts: {facts}."
                f" So: {one_line(step.implication)}"
            )
        return _prompt("system").part("summary", steps="\n".join(lines))


def _bullets(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def _names(names: list[str]) -> str:
    return ", ".join(f'"{name}"' for name in names) if names else "none found"
