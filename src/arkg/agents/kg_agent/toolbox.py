"""Tools defined once, as data: name, typed parameters, result type, one-line doc, implementation.

The executor checks and resolves arguments from the parameter types, the planner prompt shows
`Toolbox.docs()`, and the constrained-decoding options come from each tool's `suggest` (or, for a
tool without one, from its parameter types). A user adds a tool with `toolbox.register(Tool(...))`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Literal

from arkg.agents.kg_agent.values import Value, ValueKind
from arkg.graph.model import Direction
from arkg.programs import Arg, Call, ToolError

if TYPE_CHECKING:
    from arkg.agents.kg_agent.options import OptionContext


class ParamType(str, Enum):
    """What an argument may be, and what the implementation receives for it."""

    ENTITIES = "entities"  # an entities variable or a list of names -> Entities
    RELATIONS = "relations"  # a relations variable -> Relations
    RELATION = "relation"  # a quoted relation name -> str
    TEXT = "text"  # a quoted string -> str
    INTEGER = "integer"  # a whole number -> int
    OPERATOR = "operator"  # one of the parameter's choices, quoted -> str
    OPERAND = "operand"  # a variable (entities, number, boolean), a quoted string or a number -> Value | str | int | float
    VARIABLE = "variable"  # any variable -> Value


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    required: bool = True
    keyword_only: bool = False  # written as name=value (optional parameters such as prop=)
    choices: tuple[str, ...] = ()  # the allowed strings of an OPERATOR
    kinds: tuple[ValueKind, ...] = ()  # for VARIABLE: the value kinds accepted (empty: any)
    relation_of: str | None = None  # for RELATION: the ENTITIES parameter whose edges it names
    direction: Direction = Direction.OUT  # for RELATION: on which edges of those entities

    def signature(self) -> str:
        return self.name if self.required else f"{self.name}=None"


# A tool's result kind, or ANSWER: the kind of its argument (the `end` tool).
ResultType = ValueKind | Literal["answer"]
# Candidate arguments for the next call, by parameter name, most likely first.
Suggest = Callable[["Tool", "OptionContext"], Iterable[dict[str, Arg]]]


@dataclass(frozen=True)
class Tool:
    name: str
    params: tuple[Param, ...]
    result: ResultType
    doc: str
    run: Callable[..., Value]  # run(context, **arguments) with arguments resolved per parameter type
    group: str = "extraction"
    suggest: Suggest | None = None  # candidate argument lists, best first (default: from the parameter types)
    ends: bool = False  # its result is the program's answer

    def signature(self) -> str:
        positional = [param.signature() for param in self.params if not param.keyword_only]
        keywords = [param.signature() for param in self.params if param.keyword_only]
        result = self.result.value if isinstance(self.result, ValueKind) else self.result
        return f"{self.name}({', '.join(positional + keywords)}) -> {result}"

    def doc_line(self) -> str:
        return f"{self.signature()}: {self.doc}"

    def bind(self, call: Call) -> dict[str, Arg]:
        """The call's arguments by parameter name; a ToolError names what does not fit."""
        positional = [param for param in self.params if not param.keyword_only]
        if len(call.args) > len(positional):
            raise ToolError(f"{self.name} takes at most {len(positional)} positional arguments: {self.signature()}")
        bound = {param.name: arg for param, arg in zip(positional, call.args)}
        names = {param.name for param in self.params}
        for name, arg in call.kwargs:
            if name not in names:
                raise ToolError(f"{self.name} has no parameter {name!r}: {self.signature()}")
            if name in bound:
                raise ToolError(f"{self.name}: {name} is given twice")
            bound[name] = arg
        missing = [param.name for param in self.params if param.required and param.name not in bound]
        if missing:
            raise ToolError(f"{self.name} needs {', '.join(missing)}: {self.signature()}")
        return bound

    def call(self, variable: str, arguments: dict[str, Arg]) -> Call:
        """The canonical Call binding `variable` to this tool with these arguments (keyword-only ones as name=)."""
        args, kwargs = [], []
        for param in self.params:
            if param.name not in arguments:
                continue
            if param.keyword_only:
                kwargs.append((param.name, arguments[param.name]))
            else:
                args.append(arguments[param.name])
        return Call(variable, self.name, tuple(args), tuple(kwargs))


class Toolbox:
    """The tools a program may call, in registration order (the order the docs list them)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        relation_params = [param for param in tool.params if param.type == ParamType.RELATION and param.relation_of]
        for param in relation_params:
            if param.relation_of not in {p.name for p in tool.params if p.type == ParamType.ENTITIES}:
                raise ValueError(f"{tool.name}: parameter {param.name} names relations of {param.relation_of!r}, which is no entities parameter")
        self._tools[tool.name] = tool
        return tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Tool:
        if name not in self._tools:
            raise ToolError(f"there is no tool {name!r}; tools: {', '.join(self._tools)}")
        return self._tools[name]

    def docs(self) -> str:
        """The tools by group (in order of registration), one `- signature: doc` line each."""
        groups: dict[str, list[Tool]] = {}
        for tool in self:
            groups.setdefault(tool.group, []).append(tool)
        return "\n".join(
            f"{group}:\n" + "\n".join(f"- {tool.doc_line()}" for tool in tools) for group, tools in groups.items()
        )

