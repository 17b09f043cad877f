"""KG-Agent programs from gold chains, and their replay with the executor.

A chain becomes hops along its facts, in order: `get_tail_entity` from an entity the question
names or an earlier hop reached (`get_head_entity` when only the tail is known), then one `judge`
and `end`. The judge is one the toolbox can compute, chosen by the shape of the chain's ends:

- two single values from different entities that compare as numbers or dates: `judge(a, op, b)`,
  op `<` or `>`. The chain says which values the question weighs; which way it weighs them is the
  question's wording, read off the gold answer (for distinct values exactly one op gives it).
- two entity sets: `judge(a, "overlaps", b)` ("the same cemetery", "the genre of ..."); accepted
  when they share an item, or when both come from the same relation (a "no" from two different
  relations, say a description and a country, is no evidence).
- one entity set and an entity the question names: `judge(a, "contains", name)`; a "no" only
  counts when that name is itself a value of the same relation somewhere in the KG (Poland for
  `country`), not any word of the question.

Anything else needs knowledge the toolbox lacks (a singer uses her voice; 43 minutes times 376
episodes; a date inside a description) and raises NoProgram with the reason. Every program, gold
or synthesized, is replayed from scratch and kept only if it reproduces the gold answer, and
only if every hop after a `retrieve_relation` follows a relation it kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from arkg.agents.candidates import question_ngrams
from arkg.agents.kg_agent import Boolean, Entities, Executor, ExecutorSettings, KnowledgeMemory, Number, ToolError, Value
from arkg.graph.literals import COMPARISONS, compare
from arkg.agents.kg_agent.values import single_value, summary
from arkg.agents.teaching import GoldAnswer, Reason
from arkg.agents.triple_keys import identity
from arkg.graph.model import Direction, KnowledgeGraph, Triple
from arkg.programs import Call, Names, VarRef
from arkg.synth.chains import Chain


class NoProgram(Exception):
    def __init__(self, reason: Reason, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(detail)


# Replays need the values only, not the KG information a planner would be shown after each line.
REPLAY = ExecutorSettings(focus_variables=0)


@dataclass(frozen=True)
class Program:
    lines: tuple[str, ...]
    topic_entities: tuple[str, ...]


@dataclass(frozen=True)
class ProgramRun:
    """A program and its replay on the KG, whose answer is the gold one."""

    program: Program
    memory: KnowledgeMemory
    evidence: tuple[Triple, ...]  # the triples the answer rests on (`rests_on`)


def rests_on(kg: KnowledgeGraph, memory: KnowledgeMemory) -> tuple[Triple, ...]:
    """The triples a program's answer rests on: its own support, and every value a filter compared
    with its threshold, kept or not, with the edges that reached it. A count of the cities above a
    size rests on the sizes of the cities below it too; a route or a reading that showed only the
    cities kept would know the answer in hindsight."""
    answer = memory.answer
    if answer is None:
        return ()
    triples = list(answer.triples())
    for step in memory.steps:
        args = step.call.args
        if step.call.tool == "get_entity_by_constraint" and len(args) > 2 and str(args[2]) in COMPARISONS:
            source = _entities(memory, args[0])
            for entity in source.items:
                triples += source.support_of(entity)
                triples += kg.triples(entity, str(args[1]), Direction.OUT)
    return tuple({identity(triple): triple for triple in triples}.values())


def _entities(memory: KnowledgeMemory, arg: object) -> Entities:
    """A tool's entity argument: a variable's entities with their support, or names the line gives."""
    value = memory.value(arg.name) if isinstance(arg, VarRef) else None
    if isinstance(value, Entities):
        return value
    return Entities.collect((name, ()) for name in (arg.items if isinstance(arg, Names) else ()))


def program_for(chain: Chain, kg: KnowledgeGraph) -> ProgramRun:
    """The chain's program (its own, or one synthesized), checked by replay; NoProgram says why not."""
    try:
        program = Program(chain.program, chain.topic_entities) if chain.program else _Builder(chain, kg).build()
        memory = run_program(kg, chain.question, program)
    except ToolError as error:
        raise NoProgram(Reason.NOT_REPRODUCED, f"the program fails: {error}") from None
    answer = answer_of(memory.answer)
    if not same_answer(answer, chain.answer):
        raise NoProgram(Reason.NOT_REPRODUCED, f"it gives {answer!r}, the gold answer is {chain.answer!r}")
    unretrieved = hop_not_retrieved(memory)
    if unretrieved:
        raise NoProgram(Reason.NOT_REPRODUCED, unretrieved)
    return ProgramRun(program, memory, rests_on(kg, memory))


_HOPS = frozenset({"get_tail_entity", "get_head_entity", "get_entity_by_constraint"})


def hop_not_retrieved(memory: KnowledgeMemory) -> str | None:
    """What is wrong when a hop follows a relation that `retrieve_relation`, run over the relations
    of the same entities, did not keep: the program would teach a choice its own step ruled out (the
    ranker decides, and it differs with and without the `dense` extra). None when nothing is."""
    looked_up: dict[str, object] = {}  # a relations variable -> the entities get_relation read
    kept: dict[object, list[str]] = {}  # those entities -> the relations retrieve_relation kept
    for number, step in enumerate(memory.steps, start=1):
        call = step.call
        if call.tool == "get_relation":
            looked_up[call.variable] = call.args[0]
        elif call.tool == "retrieve_relation" and isinstance(call.args[1], VarRef) and call.args[1].name in looked_up:
            kept[looked_up[call.args[1].name]] = [item.name for item in step.value.items]  # type: ignore[union-attr]
        elif call.tool in _HOPS and call.args[0] in kept and call.args[1] not in kept[call.args[0]]:
            return f"line {number} follows {call.args[1]!r}, which retrieve_relation did not keep ({', '.join(kept[call.args[0]])})"
    return None


def run_program(kg: KnowledgeGraph, question: str, program: Program) -> KnowledgeMemory:
    """Execute every line on the KG; a ToolError names the line that failed."""
    executor = Executor(kg, settings=REPLAY)
    memory = executor.start(question)
    for line in program.lines:
        try:
            executor.execute(memory, line)
        except ToolError as error:
            raise ToolError(f"{line}: {error}") from None
    return memory


def answer_of(value: Value | None) -> GoldAnswer | None:
    """A program's result as a gold answer: True / False, a count, entity names; None when unsettled."""
    if isinstance(value, Boolean):
        return value.value
    if isinstance(value, Number):
        return int(value.value) if float(value.value).is_integer() else None
    if isinstance(value, Entities) and value.size:
        return value.items
    return None


def same_answer(found: GoldAnswer | None, gold: GoldAnswer) -> bool:
    if isinstance(gold, tuple):
        return isinstance(found, tuple) and set(found) == set(gold)
    return type(found) is type(gold) and found == gold


@dataclass
class _Hop:
    variable: VarRef
    root: str  # the question's entity the hop's path starts from
    relation: str
    value: Entities


@dataclass
class _Builder:
    chain: Chain
    kg: KnowledgeGraph
    calls: list[Call] = field(default_factory=list)
    hops: list[_Hop] = field(default_factory=list)
    consumed: set[str] = field(default_factory=set)  # variables a later hop started from
    started_from: set[str] = field(default_factory=set)  # named entities a hop started from

    def __post_init__(self) -> None:
        self.executor = Executor(self.kg, settings=REPLAY)
        self.memory = self.executor.start(self.chain.question)
        named = [text for text in question_ngrams(self.chain.question) if self.kg.has_entity(text)]
        # The entities a hop may start from: the question's topic entities and any KG entity it names.
        self.roots = list(dict.fromkeys([*self.chain.topic_entities, *named]))

    def build(self) -> Program:
        for fact in self.chain.facts:
            triple = fact.triples[0]
            self.hop(triple.head, triple.relation, triple.tail)
        ends = [hop for hop in self.hops if hop.variable.name not in self.consumed]
        verdict = self.judge(ends)
        self.emit("end", verdict)
        return Program(tuple(call.text() for call in self.calls), tuple(self.roots))

    # -- hops --------------------------------------------------------------------------------

    def hop(self, head: str, relation: str, tail: str) -> None:
        for known, tool in ((head, "get_tail_entity"), (tail, "get_head_entity")):
            source = self.source(known)
            if source is None:
                continue
            if any(call.tool == tool and call.args == (source, relation) for call in self.calls):
                return
            root = self.hop_of(source).root if isinstance(source, VarRef) else known
            if isinstance(source, VarRef):
                self.consumed.add(source.name)
            else:
                self.started_from.add(known)
            value = self.emit(tool, source, relation)
            assert isinstance(value, Entities)
            self.hops.append(_Hop(VarRef(self.calls[-1].variable), root, relation, value))
            return
        raise NoProgram(
            Reason.DISCONNECTED,
            f"({head}, {relation}, {tail}): neither end is named in the question or reached by an earlier fact",
        )

    def source(self, entity: str) -> VarRef | Names | None:
        """Where a hop from `entity` starts: the latest hop that reached it, else the entity itself."""
        for hop in reversed(self.hops):
            if entity in hop.value.items:
                return hop.variable
        return Names((entity,)) if entity in self.roots else None

    def hop_of(self, variable: VarRef) -> _Hop:
        return next(hop for hop in self.hops if hop.variable == variable)

    def emit(self, tool: str, *args: object) -> Value:
        call = Call(self.memory.next_variable, tool, args)  # type: ignore[arg-type]
        self.executor.execute(self.memory, call)
        self.calls.append(call)
        return self.memory.steps[-1].value

    # -- the judge ---------------------------------------------------------------------------

    def judge(self, ends: list[_Hop]) -> VarRef:
        gold = self.chain.answer
        if not isinstance(gold, bool):
            raise NoProgram(Reason.ONE_VALUE, f"only yes/no chains are synthesized, the gold answer is {gold!r}")
        if len(ends) > 2:
            raise NoProgram(Reason.ARITHMETIC, f"the chain ends in {len(ends)} values")
        if len(ends) == 2:
            return self.compare_two(*ends, gold)
        return self.membership(ends[0], gold)

    def compare_two(self, a: _Hop, b: _Hop, gold: bool) -> VarRef:
        left, right = single_value(a.value), single_value(b.value)
        if left is not None and right is not None and compare(left, "<", right) is not None:
            if a.root == b.root:
                raise NoProgram(Reason.INCOMPARABLE, f"{left!r} and {right!r} are two values of {a.root!r}, not of two entities")
            for op in ("<", ">"):
                if compare(left, op, right) is gold:
                    return self.add_judge(a.variable, op, b.variable)
            raise NoProgram(Reason.INCOMPARABLE, f"{left!r} and {right!r} are equal")
        if any(as_quantity(text) or _WITH_UNIT.match(text) for text in (*a.value.items, *b.value.items)):
            raise NoProgram(Reason.INCOMPARABLE, f"{_shown(a)} and {_shown(b)} are not two single bare numbers or dates")
        asks = _QUANTITY_WORDS.intersection(_words(self.chain.question))
        if asks:
            raise NoProgram(Reason.ARITHMETIC, f"the question asks about quantities ({', '.join(sorted(asks))}), not an overlap")
        shared = self.would_judge(a.variable, "overlaps", b.variable)
        if not shared and a.relation != b.relation:
            raise NoProgram(Reason.INCOMPARABLE, f"values of {a.relation!r} and of {b.relation!r} compare only with commonsense")
        if shared is not gold:
            raise NoProgram(Reason.JUDGE_DISAGREES, f"{_shown(a)} and {_shown(b)} overlap: {shared}; the gold answer is {gold}")
        if not shared and not _SAMENESS_WORDS.intersection(_words(self.chain.question)):
            raise NoProgram(Reason.INCOMPARABLE, "a no from two sets that share nothing needs a question about sameness")
        return self.add_judge(a.variable, "overlaps", b.variable)

    def membership(self, end: _Hop, gold: bool) -> VarRef:
        for name in (name for name in self.roots if name not in self.started_from):
            if self.would_judge(end.variable, "contains", name) is gold and (
                gold or self.kg.triples(name, end.relation, Direction.IN)
            ):
                return self.add_judge(end.variable, "contains", name)
        raise NoProgram(Reason.ONE_VALUE, f"the chain ends in {_shown(end)}; the answer needs knowledge about it")

    def would_judge(self, a: VarRef, op: str, b: VarRef | str) -> bool | None:
        """What `judge(a, op, b)` gives, without adding it."""
        value = self.executor.evaluate(self.memory, Call(self.memory.next_variable, "judge", (a, op, b))).value
        return value.value if isinstance(value, Boolean) else None

    def add_judge(self, a: VarRef, op: str, b: VarRef | str) -> VarRef:
        self.emit("judge", a, op, b)
        return VarRef(self.calls[-1].variable)


# Questions about amounts want a count or a sum ("more teams", "add up to a prime"), not an overlap;
# a "no" from an overlap needs a question about sameness ("the same sect", "both held").
_QUANTITY_WORDS = frozenset("more fewer less number many much count prime add sum total most least majority dozen".split())
_SAMENESS_WORDS = frozenset("same share shares shared both common similar together".split())
_WITH_UNIT = re.compile(r"[+-]?\d[\d,.]*\s+[^\W\d]")  # "49 metre", "13,012 hectare"
_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def as_quantity(text: str) -> bool:
    """Whether a value reads as a number or a date (such sets are compared, never overlapped)."""
    return compare(text, "<", text) is not None


def _shown(hop: _Hop) -> str:
    return f"{hop.variable.name} ({hop.relation}: {summary(hop.value, 3)})"
