"""The program language that KG-Agent plans in and gold programs are written in: one line
`vK = tool(arguments)` per step, read with Python's `ast`.

Arguments: a variable (`v2`), a string literal (JSON/Python escapes), a number (`3`, `-1.5`), a
list of string literals naming entities (`["Marie Curie", "Pierre Curie"]`), and keyword arguments
for a tool's optional parameters (`prop="start time"`). Nothing is ever evaluated: the syntax tree
is only read. `Call.text()` writes the canonical line, which parses back to the same Call.

The language sits below the agents and the data sets, which both write it; the tools a line may
call, and the executor that runs it, belong to the KG-Agent strategy.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass

from arkg.errors import ArkgError
from arkg.text import clip, one_line

VARIABLE = re.compile(r"v[1-9][0-9]*")


class ToolError(ArkgError):
    """A line that cannot run: it does not parse, names an unknown tool, variable, relation or
    entity, or passes an argument of the wrong type. Its message is written to be shown to the model
    that wrote the line; the memory is left as it was."""


class ParseError(ToolError):
    """A line that is not a tool call of the program language."""


@dataclass(frozen=True)
class VarRef:
    name: str

    def text(self) -> str:
        return self.name


@dataclass(frozen=True)
class Names:
    """A list of entity names written in the program."""

    items: tuple[str, ...]

    def text(self) -> str:
        return "[" + ", ".join(quote(name) for name in self.items) + "]"


Arg = VarRef | Names | str | int | float


def quote(text: str) -> str:
    """`text` as a one-line string literal that parses back to `text`: JSON escapes, plus escapes for
    the line separators and bidi controls that one_line writes visibly."""
    return one_line(json.dumps(text, ensure_ascii=False))


def arg_text(arg: Arg) -> str:
    if isinstance(arg, (VarRef, Names)):
        return arg.text()
    if isinstance(arg, str):
        return quote(arg)
    return repr(arg)


@dataclass(frozen=True)
class Call:
    variable: str
    tool: str
    args: tuple[Arg, ...] = ()
    kwargs: tuple[tuple[str, Arg], ...] = ()

    def text(self) -> str:
        parts = [arg_text(arg) for arg in self.args] + [f"{name}={arg_text(arg)}" for name, arg in self.kwargs]
        return f"{self.variable} = {self.tool}({', '.join(parts)})"

    def variables(self) -> list[str]:
        """The variables the call reads."""
        args = [*self.args, *(arg for _, arg in self.kwargs)]
        return [arg.name for arg in args if isinstance(arg, VarRef)]


def parse_call(line: str) -> Call:
    """The Call a line writes; a ParseError says what is wrong with it, fit to show a model."""
    shown = clip(one_line(line.strip()), 160)
    try:
        tree = ast.parse(line.strip(), mode="exec")
    except SyntaxError as error:
        raise ParseError(f"`{shown}` is not valid syntax ({error.msg}); write `vK = tool(arguments)`") from None
    if len(tree.body) != 1:
        raise ParseError(f"`{shown}`: write exactly one tool call per line, as `vK = tool(arguments)`")
    statement = tree.body[0]
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        raise ParseError(f"`{shown}` does not bind a variable; write `vK = tool(arguments)`")
    target, call = statement.targets[0], statement.value
    if not (isinstance(target, ast.Name) and VARIABLE.fullmatch(target.id)):
        raise ParseError(f"`{shown}`: the left side must be a variable v1, v2, ...")
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        raise ParseError(f"`{shown}`: the right side must be one tool call, as `tool(arguments)`")
    if any(keyword.arg is None for keyword in call.keywords) or any(isinstance(arg, ast.Starred) for arg in call.args):
        raise ParseError(f"`{shown}`: * and ** arguments are not part of the program language")
    tool = call.func.id
    args = tuple(_argument(node, f"argument {index} of {tool}") for index, node in enumerate(call.args, start=1))
    kwargs = tuple((keyword.arg or "", _argument(keyword.value, f"argument {keyword.arg} of {tool}")) for keyword in call.keywords)
    return Call(target.id, tool, args, kwargs)


def _argument(node: ast.expr, where: str) -> Arg:
    if isinstance(node, ast.Name):
        if not VARIABLE.fullmatch(node.id):
            raise ParseError(f"{where}: `{node.id}` is neither a variable (v1, v2, ...) nor a quoted string")
        return VarRef(node.id)
    if isinstance(node, ast.List):
        names = []
        for item in node.elts:
            if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                raise ParseError(f"{where}: a list may only hold quoted entity names")
            names.append(item.value)
        if not names:
            raise ParseError(f"{where}: an empty list names no entity")
        return Names(tuple(names))
    number = _number(node)
    if number is not None:
        if not math.isfinite(number):
            raise ParseError(f"{where}: {number} is not a finite number")
        return number
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    kind = type(node.value).__name__ if isinstance(node, ast.Constant) else "expression"
    raise ParseError(f"{where}: a {kind} is not an argument; use a variable, a quoted string, a number or a list of names")


def _number(node: ast.expr) -> int | float | None:
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return sign * node.value
    return None
