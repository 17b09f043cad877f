"""KG-Agent (strategy `kg-agent`): the planner loop (KgAgent) and the machine below it: the
toolbox, typed values with provenance, the program language, the executor with its knowledge
memory, the planner prompt, and the valid next calls.

    result = KgAgent(kg, model).ask("In which country was Marie Curie born?")

    from arkg.agents.kg_agent import Executor, next_calls, render_memory
    executor = Executor(kg)
    memory = executor.start(question, topic_entities)
    options = next_calls(executor, memory)          # for a Choice (constrained decoding)
    record = executor.execute(memory, options[0])   # a StepRecord; memory updated
    prompt = render_memory(memory, executor.toolbox)
"""

from __future__ import annotations


from arkg.agents.kg_agent.agent import NAME, KgAgent
from arkg.agents.kg_agent.answer import ProgramAnswer, program_answer
from arkg.agents.kg_agent.executor import Executor, ExecutorSettings
from arkg.agents.kg_agent.free import Attempt, attempt, extract_line
from arkg.agents.kg_agent.memory import FocusInfo, KnowledgeMemory, ProgramStep
from arkg.agents.kg_agent.options import OptionContext, next_calls
from arkg.agents.kg_agent.planner import MAX_TOKENS, LineReply, line_output, planner_messages
from arkg.agents.kg_agent.record import StepRecord
from arkg.agents.kg_agent.render import render_memory
from arkg.agents.kg_agent.context import ToolContext, ToolSettings
from arkg.agents.kg_agent.settings import KgAgentSettings
from arkg.agents.kg_agent.toolbox import Param, ParamType, Tool, Toolbox
from arkg.agents.kg_agent.tools import default_toolbox
from arkg.agents.kg_agent.trace import KgAgentTrace, LineAttempt, ProgramEnd, StopReason, TopicEntities
from arkg.agents.kg_agent.view import VIEW
from arkg.agents.kg_agent.values import Boolean, Entities, Number, RelationItem, Relations, Value, ValueKind
from arkg.agents.modes import SelectionMode
from arkg.agents.strategy import PaperProtocol, StrategyInfo, register
from arkg.programs import Call, Names, ParseError, ToolError, VarRef, parse_call

register(
    StrategyInfo(
        name=NAME,
        summary="KG-Agent: write a program over a toolbox one call per step; an executor runs each call on the KG",
        settings=KgAgentSettings,
        build=lambda model, kg, settings: KgAgent(kg, model, settings),
        # Fits a free-mode line of planner.LINE_CHARS; a Choice is raised to its longest option anyway.
        max_tokens=MAX_TOKENS,
        trace_type=KgAgentTrace,
        view=VIEW,
        teacher="arkg.agents.kg_agent.teacher:LESSON",
        tuned_adapter="tuned-kg-agent",
        # The planner generates each line (no enumerated options), up to the authors' 30 steps.
        paper=PaperProtocol(table="KG-Agent Tables 2-5", settings={"mode": SelectionMode.FREE, "max_steps": 30}),
    )
)

__all__ = [
    "Attempt",
    "Boolean",
    "Call",
    "Entities",
    "Executor",
    "ExecutorSettings",
    "FocusInfo",
    "KgAgent",
    "KgAgentSettings",
    "KgAgentTrace",
    "KnowledgeMemory",
    "LineAttempt",
    "LineReply",
    "Names",
    "Number",
    "OptionContext",
    "Param",
    "ParamType",
    "ParseError",
    "ProgramAnswer",
    "ProgramEnd",
    "ProgramStep",
    "RelationItem",
    "Relations",
    "StepRecord",
    "StopReason",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolSettings",
    "Toolbox",
    "TopicEntities",
    "Value",
    "ValueKind",
    "VarRef",
    "attempt",
    "default_toolbox",
    "extract_line",
    "line_output",
    "next_calls",
    "parse_call",
    "planner_messages",
    "program_answer",
    "render_memory",
]
