"""How an R³ run reads: the axiom apart from the facts, each premise's judgement and its citations,
the verdict, and every expansion or new branch, labelled `b<branch>.d<depth>`."""

from __future__ import annotations

from arkg.agents.r3.trace import (
    AnchorsFound,
    AxiomAttempt,
    BranchEnded,
    EntitiesAttempt,
    FactsRanked,
    FinalAnswer,
    JudgementAttempt,
    MissingAttempt,
    PickAttempt,
    Premise,
    R3Trace,
    VerdictReached,
)
from arkg.agents.trace import Trace
from arkg.agents.triple_keys import fact_line
from arkg.agents.view import Block, Line, Span, View, end_block, line, mark
from arkg.text import one_line

_INDENT = "      "


def _where(branch: int, depth: int | None = None, attempt: int | None = None) -> Span:
    label = f"  b{branch}" + (f".d{depth}" if depth else "") + (f" #{attempt}" if attempt is not None else "")
    return Span(label + " ", "dim")


def _names(names: list[str]) -> str:
    return ", ".join(map(one_line, names)) or "none"


def entities(event: EntitiesAttempt) -> Block:
    return Block.of(line((f"  entities #{event.attempt}: ", "dim"), _names(event.proposed), *mark(event.valid, event.feedback)))


def anchors(event: AnchorsFound) -> Block:
    return Block.of(
        line(
            ("  anchors: ", "dim"),
            (_names(event.anchors), "bold"),
            (f"  (linked: {_names(event.linked)}; named: {_names(event.named)}); {event.facts} facts in the sub-graph", "dim"),
        )
    )


def axiom(event: AxiomAttempt) -> Block:
    heading = line(
        _where(event.branch, attempt=event.attempt),
        (f"axiom (commonsense, temperature {event.temperature:g}): ", "dim"),
        (one_line(event.rule) or '""', "italic"),
        *mark(event.valid, event.feedback),
    )
    lines = [heading, *_premise_lines(event.premises)]
    # A disjunctive axiom: each further premise set under "or", any one set sufficing.
    for premises in event.alternatives:
        lines += [line((f"{_INDENT}or", "dim")), *_premise_lines(premises)]
    return Block(tuple(lines))


def _premise_lines(premises: list[Premise]) -> list[Line]:
    return [line(f"{_INDENT}{premise.id}: {premise.text}") for premise in premises]


def ranked(event: FactsRanked) -> Block:
    source = f"facts of {one_line(event.entity)}" if event.entity else "sub-graph facts"
    lines = [
        line(
            _where(event.branch, event.depth),
            (f"{len(event.top)} of {event.considered} {source} kept ({event.ranker.value} ranker)", "dim"),
        )
    ]
    lines += [line(_INDENT + fact_line(record.key, record.as_triple())) for record in event.top]
    if event.offered:
        lines.append(line((f"{_INDENT}({len(event.offered)} more offered to pick from)", "dim")))
    return Block(tuple(lines))


def pick(event: PickAttempt) -> Block:
    return Block.of(
        line(
            _where(event.branch, event.depth, event.attempt),
            ("picked: ", "dim"),
            ", ".join(map(one_line, event.picked)) or "nothing",
            *mark(event.valid, event.feedback),
        )
    )


def judgement(event: JudgementAttempt) -> Block:
    heading = line(_where(event.branch, event.depth, event.attempt), ("premises judged", "dim"), *mark(event.valid, event.feedback))
    lines = [
        line(
            f"{_INDENT}{one_line(j.premise)} {j.status}"
            + (f" by {', '.join(map(one_line, j.cited_keys))}" if j.cited_keys else ", citing nothing")
        )
        for j in event.judgements
    ]
    return Block.of(heading, *lines)


def verdict(event: VerdictReached) -> Block:
    if event.answer is None:
        shown = f"undetermined (not grounded: {', '.join(event.unknown)})"
    else:
        shown = f"{event.answer} (rests on {', '.join(event.rests_on)})"
    return Block.of(line(_where(event.branch, event.depth), ("verdict: ", "dim"), (shown, "bold")))


def missing(event: MissingAttempt) -> Block:
    kind = "new entity" if event.new_entity else "more of its facts"
    return Block.of(
        line(
            _where(event.branch, event.depth, event.attempt),
            (f"missing for {one_line(event.premise)}: ", "dim"),
            (one_line(event.missing) or '""', "italic"),
            (" → ", "dim"),
            (one_line(event.entity), "bold"),
            (f" ({kind})", "dim"),
            *mark(event.valid, event.feedback),
        )
    )


def branch_ended(event: BranchEnded) -> Block:
    return Block.of(line(_where(event.branch, event.depth), (f"branch ended: {event.reason.value}", "warn")))


def final(event: FinalAnswer) -> Block:
    return end_block(event.stop_reason.value, event.explanation, note=event.note)


def summary(trace: Trace) -> Block | None:
    if not isinstance(trace, R3Trace):
        return None
    return Block.of(line((f"axioms: {len(trace.axioms)}; {trace.invalid_attempts} invalid attempts", "dim")))


VIEW = View(
    blocks={
        EntitiesAttempt: entities,
        AnchorsFound: anchors,
        AxiomAttempt: axiom,
        FactsRanked: ranked,
        PickAttempt: pick,
        JudgementAttempt: judgement,
        VerdictReached: verdict,
        MissingAttempt: missing,
        BranchEnded: branch_ended,
        FinalAnswer: final,
    },
    footer=summary,
)
