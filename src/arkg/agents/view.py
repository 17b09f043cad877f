"""How a strategy's run reads, as neutral data that the terminal and the page both draw.

Each strategy's view turns its events into Blocks (lines of styled spans) and may add lines under a
finished run; `arkg ask` draws them with rich, the page shows their text. A view may also say which
anchor an event chose and which relation it followed (`Focus`), for the page's graph. An event type
without a renderer still reads, generically: its kind and fields on one line.

    VIEW = View(blocks={Hop: lambda event: Block.of(line(("hop to ", "dim"), (event.to, "bold")))})

KG and model text goes through `one_line`, so no name or reply can break a line or recolour a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from arkg.agents.trace import Trace
from arkg.text import clip, one_line

if TYPE_CHECKING:  # a Result holds a View's strategy registration: imported for the types only
    from arkg.agents.strategy import Answer, Result

# "good" / "bad" mark a valid or rejected attempt, "warn" feedback and notes, "answer" the answer.
Style = Literal["", "dim", "bold", "italic", "good", "bad", "warn", "answer"]


@dataclass(frozen=True)
class Span:
    text: str
    style: Style = ""


Line = tuple[Span, ...]
Part = str | tuple[str, Style] | Span


def line(*parts: Part) -> Line:
    """One line from plain text, (text, style) pairs and spans, as rich's Text.assemble takes them."""
    return tuple(
        part if isinstance(part, Span) else Span(part) if isinstance(part, str) else Span(*part) for part in parts
    )


@dataclass(frozen=True)
class Block:
    """How one event (or the lines under a finished run) reads: its first line heads it."""

    lines: tuple[Line, ...]

    @staticmethod
    def of(*lines: Line) -> Block:
        return Block(tuple(lines))

    @property
    def text(self) -> str:
        return "\n".join("".join(span.text for span in spans) for spans in self.lines)


@dataclass(frozen=True)
class Focus:
    """What an event chose on the graph: an anchor entity, and a relation followed from an entity."""

    anchor: str | None = None
    relation: tuple[str, str] | None = None  # (entity, relation)


@dataclass(frozen=True)
class View:
    blocks: Mapping[type, Callable[[Any], Block]] = field(default_factory=dict)
    # Lines under a finished run, between its answer and its cost (e.g. ARK's node path); None for a
    # trace it does not know (a wrapper's, such as an abstention policy's).
    footer: Callable[[Trace], Block | None] | None = None
    # The footer is detail a user reads only when asking for it (`arkg ask --verbose`), e.g. ARK's node path.
    footer_is_detail: bool = False
    # What an event chose; by default an event's `anchor` field, and its `relation` from that anchor.
    focus: Callable[[Any], Focus] | None = None
    # What the final answer step was shown beside the facts (e.g. values computed from them).
    answer_notes: Callable[[Trace], list[str]] | None = None

    def block(self, event: Any) -> Block:
        for kind in type(event).__mro__:
            if kind in self.blocks:
                return self.blocks[kind](event)
        return generic_block(event)

    def footer_block(self, trace: Trace | None) -> Block | None:
        return self.footer(trace) if self.footer is not None and trace is not None else None

    def focus_of(self, event: Any) -> Focus:
        return self.focus(event) if self.focus is not None else generic_focus(event)

    def notes(self, trace: Trace | None) -> list[str]:
        return self.answer_notes(trace) if self.answer_notes is not None and trace is not None else []


@dataclass
class Progress:
    """How far a run has come, counted from its events as they arrive: model calls, and reasoning steps,
    which are the steps a strategy numbers (ARK's k, KG-Agent's program lines) or else its model calls."""

    calls: int = 0
    _numbered: int = 0

    def add(self, event: Any) -> None:
        """Count one event: a strategy's event object, or its JSON (a saved trace's)."""
        if isinstance(event, Mapping):
            step, calls = event.get("step"), len(event.get("calls") or []) + isinstance(event.get("call"), Mapping)
        else:
            step, calls = getattr(event, "step", None), len(getattr(event, "calls", []))
        if isinstance(step, int) and not isinstance(step, bool):
            self._numbered = max(self._numbered, step)
        self.calls += calls

    @property
    def steps(self) -> int:
        return self._numbered or self.calls


def generic_block(event: Any) -> Block:
    fields = event.model_dump(mode="json", exclude={"kind"}) if isinstance(event, BaseModel) else event
    label = getattr(event, "kind", None) or (event.get("kind") if isinstance(event, Mapping) else None)
    return Block.of(line(("  " + str(label or type(event).__name__) + " ", "dim"), one_line(clip(str(fields), 300))))


def generic_focus(event: Any) -> Focus:
    data = event.model_dump(mode="json") if isinstance(event, BaseModel) else event
    anchor, relation = data.get("anchor"), data.get("relation")
    anchor = anchor if isinstance(anchor, str) and anchor else None
    followed = (anchor, relation) if anchor is not None and isinstance(relation, str) else None
    return Focus(anchor, followed)


# The answer every run ends with ------------------------------------------------------------------------


def answer_block(result: Result) -> Block:
    """The answer and what it rests on, then, when its cited facts do not support it, why not: the
    same for every strategy, under its events, in the terminal and on the page."""
    support = result.support
    verdict: tuple[Span, ...] = ()
    if result.answer is not None and support is not None:
        verdict = (Span("  supported", "good"),) if support.supported else (Span("  unsupported", "bad"),)
    lines = [line(("answer: ", "bold"), (answer_text(result.answer, result.claim), "answer"), *basis_spans(result), *verdict)]
    withheld = _withheld(result)
    if withheld is not None:
        sample_support = withheld.support
        why = "; ".join(map(one_line, sample_support.reasons)) if sample_support is not None else ""
        lines.append(line(("  withheld: ", "warn"), (answer_text(withheld.answer, result.claim), "warn"), (f" (unsupported: {why})", "warn")))
    elif support is not None and (support.missing or (result.answer is not None and not support.supported)):
        lines.append(line(("  unsupported: " if result.answer is not None else "  ", "warn"), ("; ".join(map(one_line, support.reasons)), "warn")))
    if result.answer is not None and support is not None and support.note:
        lines.append(line(("  " + one_line(support.note), "dim")))
    return Block(tuple(lines))


def _withheld(result: Result) -> Result | None:
    """The answer an abstention policy held back because its cited facts did not support it, if any."""
    samples = getattr(result.trace, "samples", None)
    if result.answer is not None or not samples or len(samples) != 1 or samples[0].answer is None:
        return None
    return samples[0] if samples[0].support is not None and not samples[0].support.supported else None


def answer_text(answer: Answer, claim: bool = False) -> str:
    if answer is None:
        return "None (not settled by the knowledge graph)"
    if isinstance(answer, bool) and claim:
        return "True (the claim holds)" if answer else "False (the claim does not hold)"
    return one_line(str(answer))


def basis_spans(result: Result) -> tuple[Span, ...]:
    """What the answer rests on, as `--json` names it, with how many facts and rules that is."""
    spans = (Span("  basis: ", "dim"), Span(result.basis, "bold"))
    if result.answer is None:
        return spans
    facts = count(len(result.cited_triples), "cited fact", "cited facts")
    return (*spans, Span(f" ({facts}, {count(len(result.commonsense), 'rule', 'rules')})", "dim"))


# Pieces several strategies' views share -------------------------------------------------------------


def prefix(step: int, attempt: int | None = None) -> Span:
    return Span(f"  {step}.{attempt} " if attempt is not None else f"  {step}   ", "dim")


def mark(valid: bool, feedback: str | None = None) -> tuple[Span, ...]:
    """✓ or ✗, then the feedback the next attempt is given."""
    spans = (Span(" ✓", "good") if valid else Span(" ✗", "bad"),)
    return spans + ((Span(f"  {one_line(feedback)}", "warn"),) if feedback else ())


def attempt_line(step: int, attempt: int, what: str, proposed: str, valid: bool, feedback: str | None) -> Line:
    return line(prefix(step, attempt), (f"{what}: ", "dim"), (one_line(proposed) or '""', "bold"), *mark(valid, feedback))


def end_block(stop_reason: str, *said: str, note: str | None = None) -> Block:
    """A strategy's last event: why it ended, what it said on the way out, and its note (the footer shows the answer)."""
    lines = [line(("  end: ", "dim"), one_line(stop_reason))]
    lines += [line((f"      {one_line(text)}", "italic")) for text in said if text]
    if note:
        lines.append(line((f"      note: {one_line(note)}", "warn")))
    return Block(tuple(lines))


def count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"
