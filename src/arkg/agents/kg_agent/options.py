"""Constrained decoding: every valid next line for a memory, most likely first, capped.

Each tool proposes argument lists from what the memory holds (its `suggest`, or one derived from
its parameter types): only variables of the right kind, relations the current KG information
offers for that entity set and direction, entity names seen in the memory or the question, and
numbers written in the question. A call the program has made already is left out: tools are
deterministic, so it would only bind the same value again. The tools' lists are merged round-robin (the best option of each
tool, then the second of each, ...), so a cap keeps the likeliest calls of every tool. Every option
is a canonical line that parses and runs without a ToolError.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from arkg.agents.candidates import question_ngrams
from arkg.agents.kg_agent.context import CachedGraph, ToolSettings
from arkg.agents.kg_agent.memory import FocusInfo, KnowledgeMemory
from arkg.agents.kg_agent.ranking import question_numbers
from arkg.agents.kg_agent.toolbox import Param, ParamType, Tool
from arkg.agents.kg_agent.values import Boolean, Entities, Value, ValueKind
from arkg.graph.model import Direction
from arkg.programs import Arg, Names, VarRef

if TYPE_CHECKING:
    from arkg.agents.kg_agent.executor import Executor

DEFAULT_LIMIT = 256
MAX_NAMES = 30  # entity names offered as string arguments
_JOINERS = frozenset("of the and de la le du des von van der den da di del y al el".split())


@dataclass
class OptionContext:
    """What the options for one memory are drawn from (computed once per memory state): the
    memory, the graph the tools read (lookups cached), and the settings of the tools."""

    kg: CachedGraph
    tools: ToolSettings
    memory: KnowledgeMemory
    sample: int  # items of each entity variable whose names are offered as arguments
    _focus_by_source: dict[VarRef | Names, FocusInfo] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._focus_by_source = {info.source: info for info in self.memory.kg_info}

    @property
    def focus(self) -> tuple[FocusInfo, ...]:
        return self.memory.kg_info

    def relations(self, source: Arg, direction: Direction) -> tuple[str, ...]:
        info = self._focus_by_source.get(source)  # type: ignore[arg-type]
        if info is None:
            return ()
        return info.out if direction == Direction.OUT else info.incoming

    @cached_property
    def calls_made(self) -> set[tuple[str, tuple[Arg, ...], tuple[tuple[str, Arg], ...]]]:
        """The program's calls so far, without the variables they bind."""
        return {(step.call.tool, step.call.args, step.call.kwargs) for step in self.memory.steps}

    @cached_property
    def variables(self) -> list[tuple[VarRef, Value]]:
        """The bound variables, newest first."""
        return [(VarRef(step.call.variable), step.value) for step in reversed(self.memory.steps)]

    def variables_of(self, *kinds: ValueKind, nonempty: bool = True) -> list[VarRef]:
        return [
            ref
            for ref, value in self.variables
            if (not kinds or value.kind in kinds) and (not nonempty or _holds_something(value))
        ]

    @cached_property
    def entity_sets(self) -> list[VarRef | Names]:
        """Entity variables (newest first, non-empty) and topic entities, as arguments."""
        return [*self.variables_of(ValueKind.ENTITIES), *(Names((name,)) for name in self.memory.topic_entities)]

    @cached_property
    def mentions(self) -> list[str]:
        """Word sequences of the question that name graph entities, longest first."""
        return [text for text in question_ngrams(self.memory.question) if self.kg.has_entity(text)]

    @cached_property
    def names(self) -> list[str]:
        """Entity names seen: topic entities, entities the question names, items of entity variables."""
        seen = [*self.memory.topic_entities, *self.mentions]
        for _, value in self.variables:
            if isinstance(value, Entities):
                seen.extend(value.items[: self.sample])
        return list(dict.fromkeys(seen))[:MAX_NAMES]

    @cached_property
    def capitalised_phrases(self) -> list[str]:
        """Topic entities, then question phrases (up to 4 words, not the sentence's first word) whose
        words are capitalised, small joining words ("of", "de") aside: likely names."""
        words = self.memory.question.split()[1:]
        phrases = [
            text
            for text in question_ngrams(" ".join(words), max_words=4)
            if text[:1].isupper() and text.split()[-1][:1].isupper()
            and all(word[:1].isupper() or word in _JOINERS for word in text.split())
        ]
        return list(dict.fromkeys([*self.memory.topic_entities, *self.mentions, *phrases]))

    @cached_property
    def numbers(self) -> list[int | float]:
        return question_numbers(self.memory.question)

    @cached_property
    def props(self) -> dict[str, list[str]]:
        """Prop names seen on the edges of each relation in the memory's values."""
        found: dict[str, dict[str, None]] = {}
        for _, value in self.variables:
            for triple in value.triples():
                for key, prop in triple.props.items():
                    if prop is not None:
                        found.setdefault(triple.relation, {}).setdefault(key)
        return {relation: list(keys) for relation, keys in found.items()}


def _holds_something(value: Value) -> bool:
    if isinstance(value, Boolean):
        return value.value is not None
    return value.size > 0


def next_calls(executor: Executor, memory: KnowledgeMemory, limit: int = DEFAULT_LIMIT, *, yes_no: bool = False) -> list[str]:
    """The valid next lines (canonical text), at most `limit`, most likely first; none once ended.

    With `yes_no`, a program may end only on a truth value (a judge's result): ending a yes/no
    question on entities or a number would leave it with no answer."""
    if memory.finished or limit <= 0:
        return []
    context = OptionContext(executor.kg, executor.settings.tools, memory, executor.settings.sample)
    streams = [_lines(tool, context, yes_no) for tool in executor.toolbox]
    found: dict[str, None] = {}
    for line in _round_robin(streams):
        found.setdefault(line)
        if len(found) == limit:
            break
    return list(found)


def _lines(tool: Tool, context: OptionContext, yes_no: bool) -> Iterator[str]:
    suggest = tool.suggest or suggest_from_types
    variable = context.memory.next_variable
    for arguments in suggest(tool, context):
        if tool.ends and yes_no and not _all_truth_values(arguments, context.memory):
            continue
        call = tool.call(variable, arguments)
        if (call.tool, call.args, call.kwargs) not in context.calls_made:
            yield call.text()


def _all_truth_values(arguments: dict[str, Arg], memory: KnowledgeMemory) -> bool:
    return all(
        memory.value(arg.name).kind is ValueKind.BOOLEAN for arg in arguments.values() if isinstance(arg, VarRef)
    )


def _round_robin(streams: list[Iterator[str]]) -> Iterator[str]:
    live = list(streams)
    while live:
        still = []
        for stream in live:
            line = next(stream, None)
            if line is not None:
                yield line
                still.append(stream)
        live = still


def candidates(param: Param, context: OptionContext, chosen: dict[str, Arg]) -> list[Arg]:
    """What the enumerator offers for one parameter, given the arguments chosen before it."""
    kind = param.type
    if kind == ParamType.ENTITIES:
        return [info.source for info in context.focus]
    if kind == ParamType.RELATION:
        if param.relation_of is not None:
            return list(context.relations(chosen[param.relation_of], param.direction))
        return list(dict.fromkeys(name for info in context.focus for name in context.relations(info.source, param.direction)))
    if kind == ParamType.RELATIONS:
        return list(context.variables_of(ValueKind.RELATIONS))
    if kind == ParamType.VARIABLE:
        return list(context.variables_of(*param.kinds))
    if kind == ParamType.OPERATOR:
        return list(param.choices)
    if kind == ParamType.OPERAND:
        return [*context.variables_of(ValueKind.ENTITIES, ValueKind.NUMBER, ValueKind.BOOLEAN), *context.names, *context.numbers]
    if kind == ParamType.INTEGER:
        return [int(number) for number in context.numbers if number == int(number) and number >= 1] or [5]
    return list(context.names)  # TEXT


def suggest_from_types(tool: Tool, context: OptionContext) -> Iterator[dict[str, Arg]]:
    """Every combination of candidates for the required parameters, in parameter order."""

    def extend(params: tuple[Param, ...], chosen: dict[str, Arg]) -> Iterator[dict[str, Arg]]:
        if not params:
            yield dict(chosen)
            return
        first, rest = params[0], params[1:]
        for arg in candidates(first, context, chosen):
            yield from extend(rest, {**chosen, first.name: arg})

    yield from extend(tuple(param for param in tool.params if param.required), {})
