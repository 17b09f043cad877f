"""One chain in, its training pairs out: the program, then each taught strategy led along the chain.

For every chain the program (its own, or synthesized) is replayed; a chain without one still gives a
`gold` case over the gold facts, but no other variant (only a program can say what other facts
would settle). The cases:
- `gold`: the KG as it is, the gold route, the gold program;
- `contradicting`: one gold fact's tail replaced so that the program's answer changes (the answer
  flips for yes/no questions); only the final answers are kept;
- `unsettled`: the route stopped one step short (SHORT_ROUTE), or the KG without the evidence
  (NO_EVIDENCE): final answers, "unknown" when the facts shown settle nothing.

Which strategy takes which case, with which teacher, is its Lesson's to say (StrategyInfo.teacher,
arkg.agents.teaching; ARK's, KAPING's and KG-Agent's live in their folders): the pipeline names no
strategy. A strategy that cannot be led (an anchor not offered, a fact not shown, a label in doubt)
gives no pairs for that run, and an Unusable record says why.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arkg.agents import AnswerKind, Query, Result
from arkg.agents.answers import read_answer
from arkg.agents.teaching import (
    ANY_MODE,
    RETRY,
    Case,
    Led,
    NotFollowed,
    Pair,
    Reason,
    RouteStep,
    SynthOptions,
    Unsettled,
    Variant,
    lesson_of,
)
from arkg.graph.model import Direction, KnowledgeGraph, Triple
from arkg.programs import ToolError
from arkg.synth.capture import capture
from arkg.synth.chains import Chain, Unusable
from arkg.synth.edited import EditedGraph
from arkg.synth.programs import NoProgram, Program, ProgramRun, answer_of, program_for, rests_on, run_program, same_answer
from arkg.synth.readings import GoldReader, ProgramReader
from arkg.synth.routes import route_from_chain, route_from_program

_REPLACEMENT_TRIES = 12


def shared_settings(strategies: Sequence[str], **values: Any) -> dict[str, dict[str, Any]]:
    """Overrides giving each strategy those of `values` that it has a setting for (e.g. edges=both)."""
    from arkg.agents import strategy_info

    return {
        name: {key: value for key, value in values.items() if key in strategy_info(name).settings.model_fields}
        for name in strategies
    }


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

    def gold(self, run: ProgramRun | None) -> Case:
        chain = self.chain
        if run is None:
            reader = GoldReader(chain.answer, chain.triples, chain.conclusion)
            return Case(Variant.GOLD, self.kg, route_from_chain(chain), reader, chain.yes_no)
        reader = ProgramReader(chain.question, run.program, run.evidence, chain.conclusion)
        route = route_from_program(self.kg, run.memory, run.evidence) if chain.program else route_from_chain(chain)
        return Case(Variant.GOLD, self.kg, route, reader, chain.yes_no, lines=run.program.lines)

    def contradicting(self, run: ProgramRun) -> list[Case]:
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
            return [Case(Variant.CONTRADICTING, edited, route, reader, chain.yes_no, frozenset({"answer"}))]
        self.fail(Variant.CONTRADICTING.value, Reason.NO_CONTRADICTION, f"none of {tries} replaced tails changes the program's answer")
        return []

    def unsettled(self, run: ProgramRun, route: list[RouteStep]) -> list[Case]:
        """The route stopped one step short, and the KG without the evidence."""
        evidence = run.evidence
        yes_no = self.chain.yes_no
        reader = ProgramReader(self.chain.question, run.program, evidence)
        only_answer = frozenset({"answer"})
        cases = []
        if len(route) > 1:
            cases.append(Case(Variant.UNSETTLED, self.kg, route[:-1], reader, yes_no, only_answer, unsettled=Unsettled.SHORT_ROUTE))
        without = EditedGraph(self.kg, removed=evidence)
        cases.append(Case(Variant.UNSETTLED, without, [], reader, yes_no, only_answer, unsettled=Unsettled.NO_EVIDENCE))
        return cases

    # -- leading a strategy -------------------------------------------------------------------

    def lead(self, strategy: str, case: Case) -> None:
        lesson = lesson_of(strategy)
        if lesson.takes(case):
            for led in lesson.runs(case, self.options.settings_of(strategy), self.options):
                self.attempt(strategy, case, led)

    def attempt(self, strategy: str, case: Case, led: Led) -> None:
        stage = f"{strategy}/{led.mode}/{case.variant.value}" + (" retries" if led.retries else "")
        lesson = lesson_of(strategy)
        try:
            lesson.before(case, led.settings)
            teacher = led.teacher()
            pairs, result = capture(strategy, case.kg, led.settings, self.query, teacher)
            lesson.after(result, pairs)
            if lesson.answer_taught:
                _check_answer(result, pairs, self.query.yes_no)
        except NotFollowed as failure:
            self.fail(stage, failure.reason, failure.detail)
            return
        if led.retries:
            kept = [pair for pair in pairs if pair.decision.endswith(RETRY)]
        else:
            kept = [pair for pair in pairs if case.decisions is None or pair.decision in case.decisions]
        self.add([Record(pair, self.chain.source, self.chain.id, strategy, led.mode, case.variant) for pair in kept])

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


def _check_answer(result: Result, pairs: list[Pair], yes_no: bool) -> None:
    """The run ended on the answer it was taught."""
    taught = next((pair for pair in reversed(pairs) if pair.decision == "answer"), None)
    if taught is None:
        raise NotFollowed(Reason.NOT_FOLLOWED, f"the strategy stopped before the answer: {result.stop_reason}")
    expected = read_answer(json.loads(taught.reply)["answer"], yes_no)
    if result.answer != expected:
        raise NotFollowed(Reason.NOT_FOLLOWED, f"the strategy read the taught answer as {result.answer!r}, not {expected!r}")
