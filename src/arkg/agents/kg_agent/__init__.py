"""KG-Agent below the planner: the toolbox, typed values with provenance, the program language,
the executor with its knowledge memory, the planner prompt, and the valid next calls.

    from arkg.agents.kg_agent import Executor, next_calls, render_memory
    executor = Executor(kg)
    memory = executor.start(question, topic_entities)
    options = next_calls(executor, memory)          # for a Choice (constrained decoding)
    record = executor.execute(memory, options[0])   # a StepRecord; memory updated
    prompt = render_memory(memory, executor.toolbox)
"""

from arkg.agents.kg_agent.errors import ParseError, ToolError
from arkg.agents.kg_agent.executor import Executor, ExecutorSettings
from arkg.agents.kg_agent.free import Attempt, attempt, extract_line
from arkg.agents.kg_agent.memory import FocusInfo, KnowledgeMemory, ProgramStep
from arkg.agents.kg_agent.options import OptionContext, next_calls
from arkg.agents.kg_agent.program import Call, Names, VarRef, parse_call
from arkg.agents.kg_agent.record import StepRecord
from arkg.agents.kg_agent.render import render_memory
from arkg.agents.kg_agent.context import ToolContext, ToolSettings
from arkg.agents.kg_agent.toolbox import Param, ParamType, Tool, Toolbox
from arkg.agents.kg_agent.tools import default_toolbox
from arkg.agents.kg_agent.values import Boolean, Entities, Number, RelationItem, Relations, Value, ValueKind

__all__ = [
    "Attempt",
    "Boolean",
    "Call",
    "Entities",
    "Executor",
    "ExecutorSettings",
    "FocusInfo",
    "KnowledgeMemory",
    "Names",
    "Number",
    "OptionContext",
    "Param",
    "ParamType",
    "ParseError",
    "ProgramStep",
    "RelationItem",
    "Relations",
    "StepRecord",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolSettings",
    "Toolbox",
    "Value",
    "ValueKind",
    "VarRef",
    "attempt",
    "default_toolbox",
    "extract_line",
    "next_calls",
    "parse_call",
    "render_memory",
]
