"""KG-Agent (Jiang et al., paper Section 4.3), strategy `kg-agent`: a planner writes a program over
the toolbox one line per step; the executor runs each line against the KG and updates the memory.

    agent = KgAgent(kg, model, KgAgentSettings(mode=SelectionMode.FREE))
    result = agent.ask("In which country was Marie Curie born?")
    result.answer        # "Poland"; True / False / None for a yes/no question or a claim
    result.trace         # KgAgentTrace: topic entities, every attempt with its step record, the end

The loop: link the question's entities into the memory; then, until the program ends, show the
model the memory and take one line from it: in constrained mode a Choice among every valid next
line (`next_calls`), in free mode a line it writes, whose error (if it cannot run) goes back as
feedback for at most c_max attempts. A program still running after max_steps lines answers None.
"""

from __future__ import annotations

from arkg.agents.kg_agent.answer import program_answer
from arkg.agents.kg_agent.executor import Executor
from arkg.agents.kg_agent.free import attempt
from arkg.agents.kg_agent.memory import KnowledgeMemory
from arkg.agents.kg_agent.options import next_calls
from arkg.agents.kg_agent.planner import line_output, planner_messages
from arkg.agents.kg_agent.settings import KgAgentSettings
from arkg.agents.kg_agent.toolbox import Toolbox
from arkg.agents.kg_agent.tools import default_toolbox
from arkg.agents.kg_agent.trace import PURPOSE, KgAgentTrace, LineAttempt, ProgramEnd, StopReason, TopicEntities
from arkg.agents.modes import SelectionMode
from arkg.agents.retrieval import link_entities
from arkg.agents.run import Agent, RunKit, StrategyRun
from arkg.agents.strategy import Query, Result
from arkg.agents.trace import TripleRecord
from arkg.agents.triple_keys import TripleKeys
from arkg.graph.model import KnowledgeGraph, merge_triples
from arkg.llm.base import ChatModel

NAME = "kg-agent"


class KgAgent(Agent):
    """The KG-Agent strategy over any KnowledgeGraph and ChatModel."""

    name = NAME

    def __init__(
        self,
        kg: KnowledgeGraph,
        model: ChatModel,
        settings: KgAgentSettings | None = None,
        toolbox: Toolbox | None = None,
    ) -> None:
        self.kg = kg
        self.model = model
        self.settings = settings or KgAgentSettings()
        self.toolbox = toolbox if toolbox is not None else default_toolbox()

    def start(self, query: Query, kit: RunKit) -> _Run:
        return _Run(self, query, kit)


class _Run(StrategyRun[KgAgentTrace]):
    """One query: the executor and its memory (one per query: its lookup cache is not shared between
    threads), and the trace."""

    def __init__(self, agent: KgAgent, query: Query, kit: RunKit) -> None:
        trace = KgAgentTrace.begin(NAME, query, agent.model.name, agent.settings)
        super().__init__(query, kit, trace)
        self.kg = agent.kg
        self.settings = agent.settings
        self.executor = Executor(agent.kg, agent.toolbox, self.settings.executor_settings())
        self.memory: KnowledgeMemory | None = None
        self.constrained = self.settings.mode is SelectionMode.CONSTRAINED

    def execute(self) -> Result:
        entities = link_entities(self.kg, self.query.text, self.settings.max_topic_entities)
        memory = self.memory = self.executor.start(self.query.text, entities)
        self.record(TopicEntities(entities=list(memory.topic_entities)))
        while not memory.finished:
            if len(memory.steps) >= self.settings.max_steps:
                return self.end(StopReason.MAX_STEPS)
            failed = self.write_line(memory)
            if failed is not None:
                return self.end(failed)
        return self.end(StopReason.DONE)

    def write_line(self, memory: KnowledgeMemory) -> StopReason | None:
        """Ask for the next line until one runs (at most c_max attempts); why not, if none did."""
        options = (
            next_calls(self.executor, memory, self.settings.max_options, yes_no=self.query.yes_no)
            if self.constrained
            else None
        )
        if options == []:
            return StopReason.NO_OPTIONS
        step = len(memory.steps) + 1

        def write(number: int, feedback: tuple[str, str] | None) -> tuple[LineAttempt, tuple[str, str] | None]:
            messages = planner_messages(
                memory, self.executor.toolbox, self.query, constrained=self.constrained, feedback=feedback
            )
            reply, call = self.kit.complete(messages, line_output(options), PURPOSE, step=step, attempt=number)
            outcome = attempt(self.executor, memory, reply if self.constrained else reply.line)
            event = LineAttempt(
                step=step,
                attempt=number,
                options=len(options or ()),
                line=outcome.line,
                record=outcome.record,
                error=outcome.error,
                call=call,
            )
            return event, None if outcome.ok else (outcome.line, outcome.error or "")

        return None if self.attempts(self.settings.c_max, write) else StopReason.C_MAX

    def stopped(self, reason: str) -> Result:
        return self.end(StopReason.BUDGET, note=reason)

    def end(self, reason: StopReason, note: str | None = None) -> Result:
        memory = self.memory
        value = memory.answer if memory is not None else None
        read = program_answer(value, self.query.yes_no)
        self.record(
            ProgramEnd(
                stop_reason=reason.value,
                answer=read.answer,
                value_kind=value.kind if value is not None else None,
                value=value.texts() if value is not None else [],
                note=note or read.note,
            )
        )
        keys = TripleKeys()
        self.trace.cited_triples = [TripleRecord(key=keys.key(triple), **triple.as_dict()) for triple in read.cited]
        steps = memory.steps if memory is not None else []
        retrieved = merge_triples(*(step.value.triples() for step in steps))
        return self.result(read.answer, "\n".join(self.trace.program), stop_reason=reason, retrieved=retrieved)
