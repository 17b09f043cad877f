"""The knowledge memory rendered into the planner prompt (prompts/planner.yaml).

KG names and values pass through one_line (and are clipped), so graph text cannot start a line of
its own in the prompt.
"""

from __future__ import annotations

from arkg.agents.kg_agent.memory import FocusInfo, KnowledgeMemory
from arkg.agents.kg_agent.toolbox import Toolbox
from arkg.agents.kg_agent.values import NAME_LIMIT, summary
from arkg.agents.prompts import Prompt, load_prompt
from arkg.programs import VarRef
from arkg.text import clip, one_line

PROMPT_PACKAGE = "arkg.agents.kg_agent"


def planner_prompt() -> Prompt:
    return load_prompt("planner", PROMPT_PACKAGE)


def _text(name: str) -> str:
    return clip(one_line(name), NAME_LIMIT)


def render_focus(info: FocusInfo) -> str:
    """One entity set of the current KG information: what it holds, its relations out and in."""
    label = info.source.text()
    if isinstance(info.source, VarRef):
        shown = ", ".join(_text(name) for name in info.sample) + (", …" if info.size > len(info.sample) else "")
        label = f"{label} ({info.size} {'entity' if info.size == 1 else 'entities'}: {shown})"
    out = ", ".join(_text(name) for name in info.out) or "none"
    incoming = ", ".join(f"{_text(name)} (incoming)" for name in info.incoming) or "none"
    return f"- {clip(label, 2 * NAME_LIMIT)}\n  relations out: {out}\n  relations in: {incoming}"


def render_program(memory: KnowledgeMemory, sample: int = 5) -> list[str]:
    """Each line of the program so far, annotated with a short summary of its result."""
    return [f"{step.call.text()}  # {summary(step.value, sample)}" for step in memory.steps]


def render_memory(
    memory: KnowledgeMemory,
    toolbox: Toolbox,
    *,
    constrained: bool = False,
    feedback: tuple[str, str] | None = None,
    yes_no: bool = False,
    claim: bool = False,
) -> str:
    """The planner prompt for the memory's next line; `feedback` is (the failed line, the error).

    `yes_no` adds that the program must end on a judge result; `claim` (a claim is answered yes or
    no too) names the input a claim. With neither, the prompt is that of an open question.
    """
    prompt = planner_prompt()
    noun = "claim" if claim else "question"
    verdict = prompt.part(f"verdict_{noun}") if yes_no or claim else ""
    program = render_program(memory)
    kg_info = [render_focus(info) for info in memory.kg_info]
    failed = prompt.part("feedback", line=clip(one_line(feedback[0]), 200), error=one_line(feedback[1])) if feedback else ""
    return prompt.render(
        task=prompt.part(f"task_{noun}"),
        tools=toolbox.docs(),
        noun_title=noun.capitalize(),
        question=one_line(memory.question),
        topic_entities=", ".join(_text(name) for name in memory.topic_entities) or "none",
        kg_info="\n".join(kg_info) or prompt.part("no_kg_info"),
        program="\n".join(program) or prompt.part("no_program"),
        feedback=failed,
        verdict=verdict,
        instruction=prompt.part("constrained" if constrained else "free", variable=memory.next_variable),
    )
