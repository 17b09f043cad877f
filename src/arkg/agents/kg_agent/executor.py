"""The executor: runs one program line at a time against any KnowledgeGraph and keeps the memory.

    executor = Executor(open_graph(None))
    memory = executor.start("Was Marie Curie born in Poland?", ["Marie Curie"])
    executor.execute(memory, 'v1 = get_tail_entity(["Marie Curie"], "place of birth")')

A line is parsed, bound to its tool's parameters, its arguments resolved (variables looked up,
entity names checked against the graph), the tool run, and only then is the memory changed: the
step appended and the current KG information refreshed. Any problem is a ToolError whose message
is fit to show the model that wrote the line; the memory is then unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arkg.agents.kg_agent.context import CachedGraph, ToolContext, ToolSettings
from arkg.agents.kg_agent.memory import FocusInfo, KnowledgeMemory, ProgramStep
from arkg.agents.kg_agent.ranking import rank_labels
from arkg.agents.kg_agent.record import StepRecord, step_record
from arkg.agents.kg_agent.toolbox import Param, ParamType, Tool, Toolbox
from arkg.agents.kg_agent.tools import COMPUTING, default_toolbox
from arkg.agents.kg_agent.values import Entities, Value, ValueKind
from arkg.graph.model import Direction, KnowledgeGraph
from arkg.programs import Arg, Call, Names, ToolError, VarRef, parse_call
from arkg.text import clip, one_line

_EXPECTED = {
    ParamType.ENTITIES: "an entities variable or a list of quoted entity names",
    ParamType.RELATIONS: "a relations variable",
    ParamType.RELATION: "a quoted relation name",
    ParamType.TEXT: "a quoted string",
    ParamType.INTEGER: "a whole number",
    ParamType.OPERATOR: "a quoted operator",
    ParamType.OPERAND: "a variable, a quoted string or a number",
    ParamType.VARIABLE: "a variable",
}


@dataclass(frozen=True)
class ExecutorSettings:
    tools: ToolSettings = field(default_factory=ToolSettings)
    focus_variables: int = 3  # the latest entity variables whose relations the memory shows
    focus_entities: int = 20  # of each, the entities whose relations are looked up
    relations_shown: int = 15  # per entity set and direction, most relevant to the question first
    sample: int = 5  # values shown per step
    record_triples: int = 50  # triples kept in a step record


class Executor:
    def __init__(self, kg: KnowledgeGraph, toolbox: Toolbox | None = None, settings: ExecutorSettings | None = None) -> None:
        self.kg = CachedGraph(kg)
        self.toolbox = toolbox if toolbox is not None else default_toolbox()
        self.settings = settings or ExecutorSettings()

    def start(self, question: str, topic_entities: list[str] | tuple[str, ...] = ()) -> KnowledgeMemory:
        """A new memory for the question; each topic entity must be in the graph."""
        for name in topic_entities:
            self._require_entity(name)
        memory = KnowledgeMemory(question, tuple(dict.fromkeys(topic_entities)))
        memory.kg_info = self.current_kg_info(memory, memory.steps)
        return memory

    def evaluate(self, memory: KnowledgeMemory, line: str | Call) -> ProgramStep:
        """Run a line without changing the memory: the step it would append."""
        if memory.finished:
            raise ToolError("the program has ended (end was called): no line can follow")
        call = parse_call(line) if isinstance(line, str) else line
        if call.variable != memory.next_variable:
            raise ToolError(f"this line must bind {memory.next_variable} (line k binds vk), not {call.variable}")
        tool = self.toolbox.get(call.tool)
        bound = tool.bind(call)
        inputs: list[Value] = []
        resolved = {
            param.name: self._resolve(memory, tool, param, bound[param.name], inputs)
            for param in tool.params
            if param.name in bound
        }
        value = tool.run(ToolContext(self.kg, self.settings.tools, memory.question), **resolved)
        canonical = tool.call(call.variable, bound)
        settings = self.settings
        record = step_record(
            len(memory.steps) + 1,
            call.variable,
            canonical.text(),
            tool.name,
            value,
            inputs,
            settings.sample,
            settings.record_triples,
            resolved if tool.name in COMPUTING else None,
        )
        return ProgramStep(canonical, value, record, tool.ends)

    def execute(self, memory: KnowledgeMemory, line: str | Call) -> StepRecord:
        """Run a line and append it to the memory; on a ToolError the memory is unchanged."""
        step = self.evaluate(memory, line)
        info = self.current_kg_info(memory, [*memory.steps, step])
        memory.steps.append(step)
        memory.kg_info = info
        return step.record

    # -- arguments ---------------------------------------------------------------------------

    def _resolve(self, memory: KnowledgeMemory, tool: Tool, param: Param, arg: Arg, inputs: list[Value]) -> object:
        kind = param.type
        if isinstance(arg, VarRef):
            if kind not in (ParamType.ENTITIES, ParamType.RELATIONS, ParamType.OPERAND, ParamType.VARIABLE):
                raise self._mismatch(tool, param, f"the variable {arg.name}")
            value = memory.value(arg.name)
            wanted = {
                ParamType.ENTITIES: (ValueKind.ENTITIES,),
                ParamType.RELATIONS: (ValueKind.RELATIONS,),
                ParamType.OPERAND: (ValueKind.ENTITIES, ValueKind.NUMBER, ValueKind.BOOLEAN),
            }.get(kind, param.kinds)
            if wanted and value.kind not in wanted:
                raise self._mismatch(tool, param, f"{arg.name}, which holds {value.kind.value}")
            inputs.append(value)
            return value
        if kind in (ParamType.ENTITIES, ParamType.OPERAND) and isinstance(arg, (Names, str)):
            if isinstance(arg, str) and kind == ParamType.OPERAND:
                return arg
            names = arg.items if isinstance(arg, Names) else (arg,)
            for name in names:
                self._require_entity(name)
            return Entities.collect((name, ()) for name in names)
        if kind == ParamType.OPERAND and isinstance(arg, (int, float)):
            return arg
        if kind in (ParamType.RELATION, ParamType.TEXT) and isinstance(arg, str):
            return arg
        if kind == ParamType.INTEGER and isinstance(arg, int):
            return arg
        if kind == ParamType.OPERATOR and isinstance(arg, str):
            if arg not in param.choices:
                choices = ", ".join(f'"{choice}"' for choice in param.choices)
                raise ToolError(f"{tool.name}: {param.name} must be one of {choices}, not {clip(one_line(arg), 40)!r}")
            return arg
        shown = "a list of names" if isinstance(arg, Names) else f"{clip(one_line(repr(arg)), 60)}"
        raise self._mismatch(tool, param, shown)

    def _mismatch(self, tool: Tool, param: Param, given: str) -> ToolError:
        kinds = f" holding {' or '.join(kind.value for kind in param.kinds)}" if param.kinds else ""
        return ToolError(f"{tool.name}: {param.name} must be {_EXPECTED[param.type]}{kinds}, not {given} ({tool.signature()})")

    def _require_entity(self, name: str) -> None:
        if self.kg.has_entity(name):
            return
        close = [match.name for match in self.kg.search_entities(name, 3)]
        hint = f"; did you mean {', '.join(repr(one_line(n)) for n in close)}?" if close else ""
        raise ToolError(f"the entity {clip(one_line(name), 80)!r} is not in the knowledge graph{hint}")

    # -- current KG information --------------------------------------------------------------

    def current_kg_info(self, memory: KnowledgeMemory, steps: list[ProgramStep]) -> tuple[FocusInfo, ...]:
        """The relations of the latest entity variables (newest first), then of each topic entity."""
        sources: list[tuple[VarRef | Names, tuple[str, ...]]] = []
        for step in reversed(steps):
            if len(sources) == self.settings.focus_variables:
                break
            if isinstance(step.value, Entities) and step.value.size and not step.ends:
                sources.append((VarRef(step.call.variable), step.value.items))
        sources.extend((Names((name,)), (name,)) for name in memory.topic_entities)
        return tuple(self._focus(source, items, memory.question) for source, items in sources)

    def _focus(self, source: VarRef | Names, items: tuple[str, ...], question: str) -> FocusInfo:
        looked_at = items[: self.settings.focus_entities]
        shown = self.settings.relations_shown

        def ranked(direction: Direction) -> tuple[str, ...]:
            found = (relation for entity in looked_at for relation in self.kg.relations(entity, direction))
            return tuple(rank_labels(found, question)[:shown])

        return FocusInfo(source, len(items), items[: self.settings.sample], ranked(Direction.OUT), ranked(Direction.IN))

