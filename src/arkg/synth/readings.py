"""What a set of shown facts settles: the gold label of a reply that answers from them.

A strategy shows the model some facts and asks for the answer. With a program, the answer the
facts settle is the program's result on a KG made of those facts alone:

- when they hold all the evidence the answer rests on, that result (True / False, the entities);
- when some evidence is missing and the program comes up empty, "unknown" (the facts do not
  settle it), explained by the hop that found nothing;
- when some evidence is missing but the program still gives a result (a count over part of a
  set, a "no" from part of a list), the facts leave it in doubt: NoLabel, and no pair is made.

Without a program (a chain that needs commonsense) only the gold answer is known, so facts are
read only when they hold every gold fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arkg.agents.answers import MAX_TEXT_CHARS
from arkg.agents.kg_agent import Executor, KnowledgeMemory, ToolError
from arkg.agents.kg_agent.tools import ORDERINGS
from arkg.agents.kg_agent.values import Entities
from arkg.agents.teaching import GoldAnswer, NoLabel, Reading, fit
from arkg.agents.triple_keys import identity
from arkg.graph.literals import as_date, as_number
from arkg.graph.model import Triple
from arkg.programs import Call, Names, VarRef, parse_call
from arkg.synth.facts_graph import FactsGraph
from arkg.synth.programs import REPLAY, Program, answer_of
from arkg.synth.routes import HOP_TOOLS
from arkg.synth.wording import facts_explanation, listing, missing_explanation, verdict_sentence
from arkg.text import one_line


@dataclass(frozen=True)
class ProgramReader:
    question: str
    program: Program
    evidence: tuple[Triple, ...]  # what the answer rests on in the KG the strategy reads
    conclusion: str = ""  # the source's explanation, for readings of the gold facts

    def __call__(self, shown: Sequence[Triple]) -> Reading:
        wanted = {identity(triple) for triple in self.evidence}
        if not wanted:
            raise NoLabel("the answer rests on no fact (an empty set): no shown fact can settle it")
        cited = _distinct(triple for triple in shown if identity(triple) in wanted)
        facts = FactsGraph(shown)
        memory, failed = self._run(facts)
        answer = answer_of(memory.answer) if failed is None else None
        if len(cited) == len(wanted):
            if answer is None:
                raise NoLabel("the program settles nothing from facts that hold all its evidence")
            verdict = _judged(memory)
            picked = "" if verdict else _picked(memory)
            explanation = fit(self.conclusion) if self.conclusion else facts_explanation(cited, then=verdict or picked)
            return Reading(answer, explanation, cited, picked=bool(picked))
        if answer is not None:
            raise NoLabel(f"{len(wanted) - len(cited)} of {len(wanted)} facts of the evidence are not shown, yet the rest gives {answer!r}")
        return Reading(None, _missing(memory, failed, facts), cited)

    def _run(self, facts: FactsGraph) -> tuple[KnowledgeMemory, Call | None]:
        """The program on a KG of the shown facts alone, up to the first line that cannot run."""
        executor = Executor(facts, settings=REPLAY)
        memory = executor.start(self.question)
        for line in self.program.lines:
            try:
                executor.execute(memory, line)
            except ToolError:
                return memory, parse_call(line)
        return memory, None


@dataclass(frozen=True)
class GoldReader:
    """For chains without a program: the gold answer, read only from facts that hold every gold fact."""

    answer: GoldAnswer
    evidence: tuple[Triple, ...]
    conclusion: str = ""

    def __call__(self, shown: Sequence[Triple]) -> Reading:
        wanted = {identity(triple) for triple in self.evidence}
        cited = _distinct(triple for triple in shown if identity(triple) in wanted)
        if len(cited) != len(wanted):
            raise NoLabel(f"{len(wanted) - len(cited)} of the {len(wanted)} gold facts are not shown, and no program reads the rest")
        return Reading(self.answer, fit(self.conclusion) if self.conclusion else facts_explanation(cited), cited)


def _judged(memory: KnowledgeMemory) -> str:
    """The comparison a yes/no answer came from, in words; "" when the program judged nothing."""
    for step in reversed(memory.steps):
        if step.call.tool == "judge" and isinstance(step.value.value, bool):
            a, op, b = step.call.args[:3]
            left = memory.value(a.name).texts()  # type: ignore[union-attr]
            right = memory.value(b.name).texts() if isinstance(b, VarRef) else [str(b)]
            return verdict_sentence(left, str(op), right, step.value.value)
    return ""


def _picked(memory: KnowledgeMemory) -> str:
    """The entity an argmax / argmin kept, in the words ARK's computed lines use ("Largest population:
    Chile."), so that a reply names the extreme before it answers instead of echoing the question's
    first name; "" when the program ranked nothing."""
    for step in reversed(memory.steps):
        ordering = str(step.call.args[2]) if step.call.tool == "get_entity_by_constraint" and len(step.call.args) > 2 else ""
        if ordering in ORDERINGS and isinstance(step.value, Entities) and step.value.items:
            relation = str(step.call.args[1])
            values = [t.tail for name in step.value.items for t in step.value.support_of(name) if t.relation == relation]
            dated = bool(values) and all(as_number(value) is None and as_date(value) is not None for value in values)
            extreme = ("Latest" if dated else "Largest") if ordering == "argmax" else ("Earliest" if dated else "Smallest")
            return fit(f"{extreme} {one_line(relation)}: {listing(step.value.items)}.", MAX_TEXT_CHARS // 2)
    return ""


def _missing(memory: KnowledgeMemory, failed: Call | None, facts: FactsGraph) -> str:
    """Why the facts settle nothing: an entity no fact is about, or the first hop that found nothing."""
    hops = [(step.call, step.value.size) for step in memory.steps]
    if failed is not None:
        absent = [name for arg in failed.args if isinstance(arg, Names) for name in arg.items if not facts.has_entity(name)]
        if absent:
            return fit(f"No fact shown is about {listing(absent)}.")
        hops.append((failed, 0))
    for call, size in hops:
        if call.tool in HOP_TOOLS and size == 0:
            source, relation = call.args[:2]
            names = source.items if isinstance(source, Names) else memory.value(source.name).texts()  # type: ignore[union-attr]
            return missing_explanation(str(relation), list(names), HOP_TOOLS[call.tool])
    return "The facts shown do not settle it."


def _distinct(triples: Iterable[Triple]) -> tuple[Triple, ...]:
    seen: dict[tuple, Triple] = {}
    for triple in triples:
        seen.setdefault(identity(triple), triple)
    return tuple(seen.values())
