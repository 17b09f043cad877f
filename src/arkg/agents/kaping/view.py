"""How a KAPING run reads: the entities linked, the facts shown to the model, and each answer attempt
with the keys it cites (and those it was never shown)."""

from __future__ import annotations

from arkg.agents.kaping.agent import AnswerAttempt, EntitiesLinked, FactsRetrieved, Stopped
from arkg.agents.triple_keys import fact_line
from arkg.agents.view import Block, View, end_block, line
from arkg.text import one_line


def linked(event: EntitiesLinked) -> Block:
    names = ", ".join(map(one_line, event.entities)) or "none found in the question"
    return Block.of(line(("  linked: ", "dim"), names))


def facts(event: FactsRetrieved) -> Block:
    heading = line((f"  {len(event.shown)} of {event.retrieved} facts shown ({event.ranker.value} ranker)", "dim"))
    return Block.of(heading, *(line(f"      {fact_line(record.key, record.as_triple())}") for record in event.shown))


def attempt(event: AnswerAttempt) -> Block:
    cited = ", ".join(map(one_line, event.cited_keys)) or "nothing"
    if event.valid:
        heading = line((f"  #{event.attempt} cites ", "dim"), cited, (" ✓", "good"), *_kept(event))
    else:
        heading = line((f"  #{event.attempt} cites ", "dim"), cited, (" ✗ not shown: " + ", ".join(map(one_line, event.invalid_keys)), "bad"))
    if not event.explanation:
        return Block.of(heading)
    return Block.of(heading, line((f"      {one_line(event.explanation)}", "italic")))


def _kept(event: AnswerAttempt) -> tuple[tuple[str, str], ...]:
    """The keys the answer keeps, where the reply cited more than its chain from the question needs."""
    if event.kept_keys is None or event.kept_keys == event.cited_keys:
        return ()
    return ((f"  on a chain from the question to the answer: {', '.join(map(one_line, event.kept_keys))}", "dim"),)


def stopped(event: Stopped) -> Block:
    return end_block(event.reason, note=event.note)


VIEW = View(blocks={EntitiesLinked: linked, FactsRetrieved: facts, AnswerAttempt: attempt, Stopped: stopped})
