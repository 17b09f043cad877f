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

from pydantic import BaseModel

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
from arkg.agents.kg_agent.values import merge_triples
from arkg.agents.modes import SelectionMode
from arkg.agents.retrieval import link_entities
from arkg.agents.run import RunKit, RunOptions, RunStopped
from arkg.agents.strategy import Query, Result, as_query
from arkg.graph.model import KnowledgeGraph
from arkg.llm.base import ChatModel

NAME = "kg-agent"


class KgAgent:
    """The KG-Agent strategy over any KnowledgeGraph and ChatModel (satisfies the Strategy protocol)."""

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

    def ask(self, query: str | Query, options: RunOptions | None = None) -> Result:
        run = _Run(self, as_query(query), RunKit(self.model, options or RunOptions()))
        return RunKit.finish(run.execute, run.stopped)


class _Run:
    """One query: the executor and its memory (one per query: its lookup cache is not shared between
    threads), and the trace."""

    def __init__(self, agent: KgAgent, query: Query, kit: RunKit) -> None:
        self.kg = agent.kg
        self.settings = agent.settings
        self.query = query
        self.kit = kit
        self.executor = Executor(agent.kg, agent.toolbox, self.settings.executor_settings())
        self.memory: KnowledgeMemory | None = None
        self.constrained = self.settings.mode is SelectionMode.CONSTRAINED
        self.trace = KgAgentTrace(
            question=query.text,
            yes_no=query.yes_no,
            claim=query.is_claim,
            model=agent.model.name,
            settings=self.settings,
        )

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
        feedback: tuple[str, str] | None = None
        for number in range(1, self.settings.c_max + 1):
            messages = planner_messages(
                memory, self.executor.toolbox, self.query, constrained=self.constrained, feedback=feedback
            )
            reply, call = self.kit.complete(messages, line_output(options), PURPOSE, step=step, attempt=number)
            outcome = attempt(self.executor, memory, reply if self.constrained else reply.line)
            self.record(
                LineAttempt(
                    step=step,
                    attempt=number,
                    options=len(options or ()),
                    line=outcome.line,
                    record=outcome.record,
                    error=outcome.error,
                    call=call,
                )
            )
            if outcome.ok:
                return None
            feedback = (outcome.line, outcome.error or "")
        return StopReason.C_MAX

    def stopped(self, stop: RunStopped) -> Result:
        return self.end(stop.reason)

    def end(self, reason: StopReason | str) -> Result:
        memory = self.memory
        value = memory.answer if memory is not None else None
        read = program_answer(value, self.query.yes_no)
        stop_reason = reason.value if isinstance(reason, StopReason) else reason
        self.record(
            ProgramEnd(
                stop_reason=stop_reason,
                answer=read.answer,
                value_kind=value.kind if value is not None else None,
                value=value.texts() if value is not None else [],
                note=read.note,
            )
        )
        self.trace.cited_triples = list(read.cited)
        steps = memory.steps if memory is not None else []
        retrieved = merge_triples(*(step.value.triples() for step in steps))
        return Result(
            strategy=NAME,
            question=self.query.text,
            claim=self.query.is_claim,
            answer=read.answer,
            explanation="\n".join(self.trace.program),
            cited_triples=[triple.as_dict() for triple in read.cited],
            retrieved_triples=[triple.as_dict() for triple in retrieved],
            stop_reason=stop_reason,
            trace=self.trace,
            usage=self.kit.usage,
        )

    def record(self, event: BaseModel) -> None:
        self.trace.events.append(event)  # type: ignore[arg-type]
        self.kit.emit(event)
