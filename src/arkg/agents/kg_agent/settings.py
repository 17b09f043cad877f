"""Settings of the `kg-agent` strategy: how lines are chosen, how long a program may run, what the
memory shows. The executor's settings are derived from them (`executor_settings`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from arkg.agents.kg_agent.context import ToolSettings
from arkg.agents.kg_agent.executor import ExecutorSettings
from arkg.agents.kg_agent.options import DEFAULT_LIMIT
from arkg.agents.modes import SelectionMode

# The paper runs its planner for up to 30 steps. 12 covers the gold programs (2 to 6 lines on the
# geography set; paper-style programs, with get_relation before each hop, of up to 5 hops) and costs
# far fewer calls with a small untuned model: SmolLM2-135M, given 30 steps on 10 held-out geography
# questions, ended 4 programs (after 3, 3, 9 and 25 lines) and wandered until the limit on 6, and the
# one program ended after line 12 answered None, as a stop at 12 does.
DEFAULT_MAX_STEPS = 12


class KgAgentSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: SelectionMode = SelectionMode.CONSTRAINED
    c_max: int = Field(3, ge=1, description="attempts per line: a line that cannot run gets feedback and another try")
    max_steps: int = Field(DEFAULT_MAX_STEPS, ge=1, description="program lines at most (end included)")
    max_options: int = Field(DEFAULT_LIMIT, ge=1, description="valid next lines offered per step (constrained mode)")
    max_topic_entities: int = Field(5, ge=0, description="entities linked from the question into the memory")
    relations_shown: int = Field(15, ge=1, description="relations shown per entity set and direction")
    focus_variables: int = Field(3, ge=1, description="latest entity variables whose relations the memory shows")
    type_cap: int = Field(500, ge=1, description="entities get_entity_by_type keeps at most")

    def executor_settings(self) -> ExecutorSettings:
        return ExecutorSettings(
            tools=ToolSettings(type_cap=self.type_cap),
            focus_variables=self.focus_variables,
            relations_shown=self.relations_shown,
        )
