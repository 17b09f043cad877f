"""One chain in, its training pairs out: the program, then each strategy led along the chain.

For every chain:
- the program (its own, or synthesized) is replayed; a chain without one still gives ARK and
  KAPING pairs over the gold facts, but no fact-reading variants (only a program can say what
  other facts would settle);
- `gold`: ARK (each mode) led along the gold route, every decision kept; KAPING's answer; the
  KG-Agent planner (each mode) led through the program, one line per call;
- `contradicting`: one gold fact's tail replaced so that the program's answer changes (the
  answer flips for yes/no questions); ARK's and KAPING's final answers on that KG;
- `unsettled`: ARK stopped before the last step of the route, and KAPING on the KG without the
  evidence: their final answers, "unknown" when the facts shown settle nothing.
KG-Agent takes part in `gold` only: its answer is computed by the executor, not read by the model,
so other facts would leave its lines the same.

A strategy that cannot be led (an anchor not offered, a fact not shown, a label in doubt) gives no
pairs for that run, and an Unusable record says why.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import partial

from pydantic import BaseModel

from arkg.agents import AnswerKind, Query, Result
from arkg.agents.answers import read_answer
from arkg.agents.ark import ArkSettings
from arkg.agents.ark.trace import ArkTrace, StopReason
from arkg.agents.kaping import KapingSettings
from arkg.agents.kg_agent import KgAgentSettings, KgAgentTrace, ToolError
from arkg.agents.kg_agent import StopReason as ProgramStop
from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.graph.model import Direction, KnowledgeGraph, Triple
from arkg.synth.capture import NotFollowed, Pair, capture
from arkg.synth.chains import Chain, Reason, Unusable
from arkg.synth.edited import EditedGraph
from arkg.synth.programs import NoProgram, Program, ProgramRun, answer_of, program_for, rests_on, run_program, same_answer
from arkg.synth.readings import GoldReader, ProgramReader, Reading
from arkg.synth.routes import RouteStep, route_from_chain, route_from_program
from arkg.synth.teachers import ArkTeacher, KapingTeacher, KgAgentTeacher
from arkg.synth.teachers.ark import MISTAKE, RETRY

ARK, KAPING, KG_AGENT = "ark", "kaping", "kg-agent"
ANY_MODE = "any"  # a pair whose prompt and reply are the same in every mode
_REPLACEMENT_TRIES = 12


class Variant(str, Enum):
    GOLD = "gold"
    CONTRADICTING = "contradicting"
    UNSETTLED = "unsettled"


@dataclass(frozen=True)
class SynthOptions:
    strategies: tuple[str, ...] = (ARK, KAPING, KG_AGENT)
    modes: tuple[SelectionMode, ...] = (SelectionMode.CONSTRAINED, SelectionMode.FREE)
    variants: tuple[Variant, ...] = tuple(Variant)
    seed: int = 0
    # ARK implications end with the route's next step ("Next: Serbia, continent.") or "Enough to answer."
    plan: bool = False
    # Free-mode ARK also led through a deliberate wrong anchor or relation per step, keeping the gold
    # replies that follow the rejection ("anchor-retry", "relation-retry"), on gold routes.
    retries: bool = False
    ark: ArkSettings = field(default_factory=ArkSettings)
    kaping: KapingSettings = field(default_factory=KapingSettings)
    kg_agent: KgAgentSettings = field(default_factory=KgAgentSettings)


@dataclass(frozen=True)
class Record:
    """One training pair with where it came from."""

    pair: Pair
    source: str
    question_id: str
    strategy: str
    mode: str
    variant: Variant

    def to_json(self) -> dict[str, object]:
        messages = [{"role": m.role, "content": m.content} for m in self.pair.messages]
        return {
            "messages": [*messages, {"role": "assistant", "content": self.pair.reply}],
            "source": self.source,
            "question_id": self.question_id,
            "strategy": self.strategy,
            "decision": self.pair.decision,
            "mode": self.mode,
            "variant": self.variant.value,
        }


@dataclass
class ChainResult:
    records: list[Record] = field(default_factory=list)
    unusable: list[Unusable] = field(default_factory=list)
    program: Program | None = None


# Tails of each relation in a KG: where a contradicting fact's wrong tail is drawn from.
TailIndex = Callable[[str], Sequence[str]]


def synthesize_chain(chain: Chain, kg: KnowledgeGraph, options: SynthOptions, tails: TailIndex) -> ChainResult:
    return _ChainRun(chain, kg, options, tails).run()


@dataclass
class _Case:
    """One KG for the strategies to read, the route to lead ARK along, and how to read the answer."""

    variant: Variant
    kg: KnowledgeGraph
    route: list[RouteStep]
    reader: Callable[[Sequence[Triple]], Reading]
    decisions: frozenset[str] | None = None  # the decisions kept (None: all)
    strategies: frozenset[str] = frozenset({ARK, KAPING})  # the strategies led on this case
    lines: tuple[str, ...] = ()  # the program the KG-Agent planner is led through


class _ChainRun:
    def __init__(self, chain: Chain, kg: KnowledgeGraph, options: SynthOptions, tails: TailIndex) -> None:
        self.chain = chain
        self.kg = kg
        self.options = options
        self.tails = tails
        self.result = ChainResult()
        self.query = Query(text=chain.question, kind=AnswerKind.YES_NO if chain.yes_no else AnswerKind.OPEN)

    def run(self) -> ChainResult:
        chain = self.chain
        try:
            program: ProgramRun | None = program_for(chain, self.kg)
        except NoProgram as failure:
            self.fail("program", failure.reason, failure.detail)
            program = None
        self.result.program = program.program if program else None
        gold = self.gold(program)
        wanted = self.options.variants
        cases = [gold] if Variant.GOLD in wanted else []
        if program is not None:
            if Variant.CONTRADICTING in wanted:
                cases += self.contradicting(program)
            if Variant.UNSETTLED in wanted:
                cases += self.unsettled(program, gold.route)
        for case in cases:
            for strategy in self.options.strategies:
                self.lead(strategy, case)
        return self.result

    # -- cases -------------------------------------------------------------------------------

    def gold(self, run: ProgramRun | None) -> _Case:
        chain = self.chain
        if run is None:
            reader = GoldReader(chain.answer, chain.triples, chain.conclusion)
            return _Case(Variant.GOLD, self.kg, route_from_chain(chain), reader)
        reader = ProgramReader(chain.question, run.program, run.evidence, chain.conclusion)
        route = route_from_program(self.kg, run.memory, run.evidence) if chain.program else route_from_chain(chain)
        return _Case(Variant.GOLD, self.kg, route, reader, strategies=frozenset({ARK, KAPING, KG_AGENT}), lines=run.program.lines)

    def contradicting(self, run: ProgramRun) -> list[_Case]:
        """The KG with one evidence triple's tail replaced by another value of its relation, such
        that the program's answer changes to another definite one."""
        chain = self.chain
        rng = random.Random(f"{self.options.seed}:{chain.source}:{chain.id}")
        program = run.program
        evidence = list(run.evidence)
        rng.shuffle(evidence)
        replacements = (
            (triple, Triple(triple.head, triple.relation, tail, dict(triple.props)))
            for triple in evidence
            for tail in _draw(rng, [t for t in self.tails(triple.relation) if t != triple.tail], 3)
        )
        tries = 0
        for triple, replaced in itertools.islice(replacements, _REPLACEMENT_TRIES):
            tries += 1
            if replaced in self.kg.triples(triple.head, triple.relation, Direction.OUT):
                continue
            edited = EditedGraph(self.kg, removed=[triple], added=[replaced])
            try:
                memory = run_program(edited, chain.question, program)
            except ToolError:
                continue
            answer = answer_of(memory.answer)
            if answer is None or same_answer(answer, chain.answer):
                continue
            support = rests_on(edited, memory)
            reader = ProgramReader(chain.question, program, support)
            route = route_from_program(edited, memory, support)
            return [_Case(Variant.CONTRADICTING, edited, route, reader, frozenset({"answer"}))]
        self.fail(Variant.CONTRADICTING.value, Reason.NO_CONTRADICTION, f"none of {tries} replaced tails changes the program's answer")
        return []

    def unsettled(self, run: ProgramRun, route: list[RouteStep]) -> list[_Case]:
        """ARK stopped one step short of the route; KAPING on the KG without the evidence."""
        evidence = run.evidence
        reader = ProgramReader(self.chain.question, run.program, evidence)
        only_answer = frozenset({"answer"})
        cases = []
        if len(route) > 1:
            cases.append(_Case(Variant.UNSETTLED, self.kg, route[:-1], reader, only_answer, frozenset({ARK})))
        without = EditedGraph(self.kg, removed=evidence)
        cases.append(_Case(Variant.UNSETTLED, without, [], reader, only_answer, frozenset({KAPING})))
        return cases

    # -- leading a strategy -------------------------------------------------------------------

    def lead(self, strategy: str, case: _Case) -> None:
        if strategy not in case.strategies:
            return
        if strategy == ARK:
            teacher = partial(ArkTeacher, case.route, case.reader, self.chain.yes_no, plan=self.options.plan)
            for mode in self.options.modes:
                settings = self.options.ark.model_copy(update={"mode": mode})
                self.attempt(strategy, mode.value, case, settings, teacher)
                if self.options.retries and mode is SelectionMode.FREE and case.variant is Variant.GOLD:
                    self.attempt(strategy, mode.value, case, settings, partial(teacher, retries=True), retries=True)
        elif strategy == KAPING:
            self.attempt(strategy, ANY_MODE, case, self.options.kaping, lambda: KapingTeacher(case.reader, self.chain.yes_no))
        elif strategy == KG_AGENT:
            for mode in self.options.modes:
                settings = self.options.kg_agent.model_copy(update={"mode": mode})
                self.attempt(strategy, mode.value, case, settings, lambda: KgAgentTeacher(case.lines))

    def attempt(
        self, strategy: str, mode: str, case: _Case, settings: BaseModel, teacher: Callable[[], object], retries: bool = False
    ) -> None:
        stage = f"{strategy}/{mode}/{case.variant.value}" + (" retries" if retries else "")
        try:
            if strategy == ARK:
                _check_route(case.route, settings)  # type: ignore[arg-type]
            pairs, result = capture(strategy, case.kg, settings, self.query, teacher())  # type: ignore[arg-type]
            _check_result(result, pairs, self.query.yes_no)
        except NotFollowed as failure:
            self.fail(stage, failure.reason, failure.detail)
            return
        if retries:
            kept = [pair for pair in pairs if pair.decision.endswith(RETRY)]
        else:
            kept = [pair for pair in pairs if case.decisions is None or pair.decision in case.decisions]
        self.add([Record(pair, self.chain.source, self.chain.id, strategy, mode, case.variant) for pair in kept])

    def add(self, records: list[Record]) -> None:
        """Add records; one whose prompt and reply another mode gave already becomes that one's `any`."""
        for record in records:
            for index, seen in enumerate(self.result.records):
                if seen.pair == record.pair and seen.strategy == record.strategy and seen.variant == record.variant:
                    if seen.mode != record.mode:
                        self.result.records[index] = Record(
                            seen.pair, seen.source, seen.question_id, seen.strategy, ANY_MODE, seen.variant
                        )
                    break
            else:
                self.result.records.append(record)

    def fail(self, stage: str, reason: Reason, detail: str) -> None:
        self.result.unusable.append(Unusable(self.chain.source, self.chain.id, stage, reason, detail))


def _draw(rng: random.Random, items: list[str], count: int) -> list[str]:
    return rng.sample(items, min(count, len(items)))


def _check_route(route: Sequence[RouteStep], settings: ArkSettings) -> None:
    """Routes ARK cannot take: no step at all, more steps than k_max, an incoming edge with edges=out."""
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


def _check_result(result: Result, pairs: list[Pair], yes_no: bool) -> None:
    """The run ended as led: no rejected reply, stopped by the gold route, answered as taught."""
    trace = result.trace
    if isinstance(trace, KgAgentTrace):
        # The executor ran every gold line (a rejected one stops the teacher), so the answer is the program's.
        if result.stop_reason != ProgramStop.DONE.value:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"the planner stopped before the program's end: {result.stop_reason}")
        return
    if isinstance(trace, ArkTrace):
        rejected = trace.invalid_attempts - sum(pair.decision == MISTAKE for pair in pairs)
        if rejected:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK rejected {rejected} gold replies")
        if result.stop_reason != StopReason.DONE.value:
            raise NotFollowed(Reason.NOT_FOLLOWED, f"ARK stopped before the route's end: {result.stop_reason}")
    taught = next((pair for pair in reversed(pairs) if pair.decision == "answer"), None)
    if taught is None:
        raise NotFollowed(Reason.NOT_FOLLOWED, f"the strategy stopped before the answer: {result.stop_reason}")
    expected = read_answer(json.loads(taught.reply)["answer"], yes_no)
    if result.answer != expected:
        raise NotFollowed(Reason.NOT_FOLLOWED, f"the strategy read the taught answer as {result.answer!r}, not {expected!r}")
