"""How `arkg ask` shows an R³ run: the axiom apart from the facts, each premise's judgement and its
citations, the verdict, and every expansion or new branch, labelled `b<branch>.d<depth>`.

KG and model text is shown through `one_line`, so no name or reply can move the cursor or recolour
the terminal.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

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
    R3Trace,
    VerdictReached,
)
from arkg.agents.triple_keys import fact_line
from arkg.agents.strategy import Result
from arkg.cli.render.common import end_lines, event_renderer, trace_footer
from arkg.text import one_line

_VALID = (" ✓", "green")
_INDENT = "      "


def _where(branch: int, depth: int | None = None, attempt: int | None = None) -> Text:
    label = f"  b{branch}" + (f".d{depth}" if depth else "") + (f" #{attempt}" if attempt is not None else "")
    return Text(label + " ", "dim")


def _mark(valid: bool, feedback: str | None) -> Text:
    text = Text(*_VALID) if valid else Text(" ✗", "red")
    if feedback:
        text.append(f"  {one_line(feedback)}", "yellow")
    return text


def _names(names: list[str]) -> str:
    return ", ".join(map(one_line, names)) or "none"


@event_renderer(EntitiesAttempt)
def entities(event: EntitiesAttempt) -> RenderableType:
    return Text.assemble(
        (f"  entities #{event.attempt}: ", "dim"), _names(event.proposed), _mark(event.valid, event.feedback)
    )


@event_renderer(AnchorsFound)
def anchors(event: AnchorsFound) -> RenderableType:
    return Text.assemble(
        ("  anchors: ", "dim"),
        (_names(event.anchors), "bold"),
        (f"  (linked: {_names(event.linked)}; named: {_names(event.named)}); {event.facts} facts in the sub-graph", "dim"),
    )


@event_renderer(AxiomAttempt)
def axiom(event: AxiomAttempt) -> RenderableType:
    heading = Text.assemble(
        _where(event.branch, attempt=event.attempt),
        (f"axiom (commonsense, temperature {event.temperature:g}): ", "dim"),
        (one_line(event.rule) or '""', "italic"),
        _mark(event.valid, event.feedback),
    )
    return Group(heading, *(Text(f"{_INDENT}{premise.id}: {premise.text}") for premise in event.premises))


@event_renderer(FactsRanked)
def ranked(event: FactsRanked) -> RenderableType:
    source = f"facts of {one_line(event.entity)}" if event.entity else "sub-graph facts"
    lines = [
        Text.assemble(
            _where(event.branch, event.depth),
            (f"{len(event.top)} of {event.considered} {source} kept ({event.ranker.value} ranker)", "dim"),
        )
    ]
    lines += [Text(_INDENT + fact_line(record.key, record.as_triple())) for record in event.top]
    if event.offered:
        lines.append(Text(f"{_INDENT}({len(event.offered)} more offered to pick from)", "dim"))
    return Group(*lines)


@event_renderer(PickAttempt)
def pick(event: PickAttempt) -> RenderableType:
    return Text.assemble(
        _where(event.branch, event.depth, event.attempt),
        ("picked: ", "dim"),
        ", ".join(map(one_line, event.picked)) or "nothing",
        _mark(event.valid, event.feedback),
    )


@event_renderer(JudgementAttempt)
def judgement(event: JudgementAttempt) -> RenderableType:
    heading = Text.assemble(
        _where(event.branch, event.depth, event.attempt), ("premises judged", "dim"), _mark(event.valid, event.feedback)
    )
    lines = [
        Text(
            f"{_INDENT}{one_line(j.premise)} {j.status}"
            + (f" by {', '.join(map(one_line, j.cited_keys))}" if j.cited_keys else ", citing nothing")
        )
        for j in event.judgements
    ]
    return Group(heading, *lines)


@event_renderer(VerdictReached)
def verdict(event: VerdictReached) -> RenderableType:
    if event.answer is None:
        shown = f"undetermined (not grounded: {', '.join(event.unknown)})"
    else:
        shown = f"{event.answer} (rests on {', '.join(event.rests_on)})"
    return Text.assemble(_where(event.branch, event.depth), ("verdict: ", "dim"), (shown, "bold"))


@event_renderer(MissingAttempt)
def missing(event: MissingAttempt) -> RenderableType:
    kind = "new entity" if event.new_entity else "more of its facts"
    return Text.assemble(
        _where(event.branch, event.depth, event.attempt),
        (f"missing for {one_line(event.premise)}: ", "dim"),
        (one_line(event.missing) or '""', "italic"),
        (" → ", "dim"),
        (one_line(event.entity), "bold"),
        (f" ({kind})", "dim"),
        _mark(event.valid, event.feedback),
    )


@event_renderer(BranchEnded)
def branch_ended(event: BranchEnded) -> RenderableType:
    return Text.assemble(_where(event.branch, event.depth), (f"branch ended: {event.reason.value}", "yellow"))


@event_renderer(FinalAnswer)
def final(event: FinalAnswer) -> RenderableType:
    return end_lines(event.stop_reason.value, event.explanation, note=event.note)


@trace_footer(R3Trace)
def summary(result: Result) -> RenderableType:
    trace: R3Trace = result.trace
    return Text(f"axioms: {len(trace.axioms)}; {trace.invalid_attempts} invalid attempts", "dim")
