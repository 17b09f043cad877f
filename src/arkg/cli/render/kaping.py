"""How `arkg ask` shows a KAPING run: the entities linked, the facts shown to the model, and each answer
attempt with the keys it cites (and those it was never shown).

KG and model text is shown through `one_line`, so no name or reply can move the cursor or recolour
the terminal.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from arkg.agents.kaping import AnswerAttempt, EntitiesLinked, FactsRetrieved, Stopped
from arkg.agents.triple_keys import fact_line
from arkg.cli.render.common import end_lines, event_renderer
from arkg.text import one_line


@event_renderer(EntitiesLinked)
def linked(event: EntitiesLinked) -> RenderableType:
    names = ", ".join(map(one_line, event.entities)) or "none found in the question"
    return Text.assemble(("  linked: ", "dim"), names)


@event_renderer(FactsRetrieved)
def facts(event: FactsRetrieved) -> RenderableType:
    heading = Text(f"  {len(event.shown)} of {event.retrieved} facts shown ({event.ranker.value} ranker)", "dim")
    return Group(heading, *(Text(f"      {fact_line(record.key, record.as_triple())}") for record in event.shown))


@event_renderer(AnswerAttempt)
def attempt(event: AnswerAttempt) -> RenderableType:
    heading = Text.assemble((f"  #{event.attempt} cites ", "dim"), ", ".join(map(one_line, event.cited_keys)) or "nothing")
    if event.valid:
        heading.append(" ✓", "green")
    else:
        heading.append(" ✗ not shown: " + ", ".join(map(one_line, event.invalid_keys)), "red")
    if not event.explanation:
        return heading
    return Group(heading, Text(f"      {one_line(event.explanation)}", "italic"))


@event_renderer(Stopped)
def stopped(event: Stopped) -> RenderableType:
    return end_lines(event.reason)
