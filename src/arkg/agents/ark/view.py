"""How an ARK run reads: one block per event, as it happens, and the node path at the end. On the
page, an anchor attempt marks the anchor chosen and a relation attempt the relation followed."""

from __future__ import annotations

from typing import Any

from arkg.agents.ark.trace import (
    AnchorAttempt,
    ArkTrace,
    Cleanup,
    FinalAnswer,
    ReasoningAttempt,
    RelationAttempt,
    RelationsRetrieved,
    TriplesRetrieved,
)
from arkg.agents.trace import Trace
from arkg.agents.triple_keys import fact_line
from arkg.agents.view import Block, Focus, View, attempt_line, end_block, generic_focus, line, prefix
from arkg.text import one_line


def anchor(event: AnchorAttempt) -> Block:
    what = "anchor" if event.call is not None else "anchor named by the agent"
    return Block.of(attempt_line(event.step, event.attempt, what, event.proposed, event.valid, event.feedback))


def relations(event: RelationsRetrieved) -> Block:
    more = f" (+{event.not_shown} not shown)" if event.not_shown else ""
    if event.explored:
        more += f" (explored already: {', '.join(event.explored)})"
    return Block.of(
        line(prefix(event.step), ("relations of ", "dim"), (one_line(event.anchor), "bold"), ": ", ", ".join(event.offered), more)
    )


def relation(event: RelationAttempt) -> Block:
    if event.outcome == "empty":
        return Block.of(line(prefix(event.step, event.attempt), ("relation: none, pick another anchor", "warn")))
    return Block.of(
        attempt_line(event.step, event.attempt, "relation", event.proposed, event.outcome == "valid", event.feedback)
    )


def triples(event: TriplesRetrieved) -> Block:
    heading = f"{one_line(event.anchor)} / {event.relation}"
    lines = [line(prefix(event.step), ("facts for ", "dim"), (heading, "bold"))]
    lines += [line(f"      {fact_line(record.key, record.as_triple())}") for record in event.triples]
    if event.not_shown:
        lines.append(line((f"      ({event.not_shown} more not shown)", "dim")))
    return Block(tuple(lines))


def reasoning(event: ReasoningAttempt) -> Block:
    status = (" ✓", "good") if event.valid else (" ✗ invalid keys " + ", ".join(event.invalid_keys), "bad")
    flag = "continue" if event.continue_exploring else "stop"
    return Block.of(
        line(
            prefix(event.step, event.attempt),
            ("cites ", "dim"),
            ", ".join(event.cited_keys) or "nothing",
            status,
            f" [{flag}] ",
            (one_line(event.implication), "italic"),
        )
    )


def cleanup(event: Cleanup) -> Block:
    kept = line(prefix(event.step), (f"summary of {event.step} step(s) kept; context reset", "dim"))
    if not event.continued_for:
        return Block.of(kept)
    named = ", ".join(one_line(name) for name in event.continued_for)
    return Block((kept, line(prefix(event.step), (f"the question names {named}, not reached yet: one more step", "warn"))))


def final(event: FinalAnswer) -> Block:
    computed = [f"computed: {item.text}" for item in event.computed]
    return end_block(event.stop_reason.value, event.explanation, *computed, note=event.note)


def nodes(trace: Trace) -> Block | None:
    if not isinstance(trace, ArkTrace):
        return None
    path = " → ".join(str(int(node)) for node in trace.nodes)
    return Block.of(line((f"nodes: {path}; {trace.invalid_attempts} invalid attempts", "dim")))


def focus(event: Any) -> Focus:
    """The anchor an attempt chose (when valid) and the relation followed (when valid)."""
    if isinstance(event, AnchorAttempt):
        return Focus(anchor=event.proposed if event.valid else None)
    if isinstance(event, RelationAttempt):
        return Focus(event.anchor, (event.anchor, event.proposed) if event.outcome == "valid" else None)
    return generic_focus(event)


def computed(trace: Trace) -> list[str]:
    """The lines computed from the cited facts that the final answer step was shown (compare_values)."""
    return [item.text for event in trace.events if isinstance(event, FinalAnswer) for item in event.computed]


VIEW = View(
    blocks={
        AnchorAttempt: anchor,
        RelationsRetrieved: relations,
        RelationAttempt: relation,
        TriplesRetrieved: triples,
        ReasoningAttempt: reasoning,
        Cleanup: cleanup,
        FinalAnswer: final,
    },
    footer=nodes,
    footer_is_detail=True,
    focus=focus,
    answer_notes=computed,
)
