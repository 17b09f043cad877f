"""Questions over a domain's KG, each with its gold program, answer and evidence, written while the
answer is computed from the triples (the provenance rules of the geography questions, whose index
and program writer this reuses).

Templates, all driven by the wordings of the domain's relations:

    lookup          the tails of a relation, or a value ("Who directed X?", "When was X released?")
    lookup-in       the heads of a relation ("Which films did P direct?", "Who founded C?")
    chain-2/-3      hops through single entities, worded as nested noun phrases
                    ("Where was the founder of the studio that made X born?")
    compare         yes/no: one value against another, both ways round ("before" / "after", ...)
    compare-2hop    the same, each value one hop away ("Was the director of X born before the director of Y?")
    compare-open    which of two or three entities has the lowest / highest value
    count, count-in how many tails / heads
    member          yes/no: is Y among the tails of X
    member-2hop     the same, one hop away ("Was the director of X born in Y?")
    member-kind(-2hop)  yes/no: is some tail of X of the kind Y, the kind read off a kind link
                    ("Does X play a string instrument?" over (X, plays, I), (I, instance of, string instrument))

Yes/no templates look for either answer at random, and a draft is kept only while its answer is not
ahead of the other: True and False come in equal numbers (one apart at most).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from arkg.datasets.geo.questions import GeoQuestion, gold_question
from arkg.datasets.geo.reasoning import GraphIndex, Program, evidence, follow, given, walk
from arkg.datasets.geo.templates import Draft, reveals, unbalancing
from arkg.graph.literals import compare, order_keys
from arkg.graph.model import merge_triples
from arkg.synth.domains.build import DomainGraph
from arkg.synth.domains.schema import Domain, Link, Value

DEFAULT_PER_TEMPLATE = 12
MAX_ANSWERS = 6
_TRIES_PER_QUESTION = 40

# The geography questions' kinds: a chain is a lookup of 2-3 hops, a membership a verification.
Kind = Literal["lookup", "verification", "comparison", "count", "superlative"]


@dataclass(frozen=True)
class _Step:
    """One hop of a question: a relation followed out of (or, `incoming`, into) entities of `start`."""

    relation: str
    incoming: bool
    start: str
    end: str | None  # the type reached; None for a value
    wordings: tuple[str, ...]


@dataclass
class _Context:
    domain: Domain
    graph: DomainGraph
    index: GraphIndex
    rng: random.Random

    def pick(self, type_name: str) -> str | None:
        names = self.graph.entities.get(type_name, [])
        return self.rng.choice(names) if names else None


Maker = Callable[[_Context], Iterator[Draft | None]]


def generate_questions(graph: DomainGraph, seed: int = 0, per_template: int = DEFAULT_PER_TEMPLATE) -> list[GeoQuestion]:
    """Up to `per_template` questions of each template over the domain's KG; the same graph and seed
    give the same questions."""
    index = GraphIndex(graph.triples)
    questions: list[GeoQuestion] = []
    seen: set[str] = set()
    polarity = {True: 0, False: 0}
    for name, kind, maker in TEMPLATES:
        context = _Context(graph.domain, graph, index, random.Random(f"questions:{seed}:{graph.domain.name}:{name}"))
        made = 0
        # Each draw may fail (no single entity on the way, a tie); a bounded number of draws stops a
        # template that the domain's KG cannot fill.
        for draft in itertools.islice(maker(context), per_template * _TRIES_PER_QUESTION):
            if made == per_template:
                break
            if draft is None or draft.question in seen or reveals(draft) or unbalancing(draft, polarity):
                continue
            if isinstance(draft.answer, bool):
                polarity[draft.answer] += 1
            seen.add(draft.question)
            questions.append(_question(graph.domain.name, name, kind, draft))
            made += 1
    return questions


def _question(domain: str, template: str, kind: Kind, draft: Draft) -> GeoQuestion:
    """The question in the geography questions' format (arkg.datasets.geo), which the synth chains,
    `arkg eval` and the tuning scripts already read; every domain question is a training one."""
    digest = hashlib.sha256(draft.question.encode()).hexdigest()[:10]
    return gold_question(draft, template, kind, f"{domain.replace(' ', '-')}-{template}-{digest}", "train")


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:]


# -- steps and walks ---------------------------------------------------------------------------


def _noun_steps(domain: Domain) -> list[_Step]:
    """Hops that reach one entity and can be named by a noun phrase ("the director of {x}")."""
    steps = [_Step(link.name, False, link.head, link.tail, link.of) for link in domain.links if link.of]
    return steps + [_Step(link.name, True, link.tail, link.head, link.of_in) for link in domain.links if link.of_in]


def _last_steps(domain: Domain) -> list[_Step]:
    """Hops a question can end on, asking for what they reach."""
    steps = [_Step(link.name, False, link.head, link.tail, link.ask) for link in domain.links if link.ask]
    steps += [_Step(link.name, True, link.tail, link.head, link.ask_in) for link in domain.links if link.ask_in]
    return steps + [_Step(value.name, False, value.head, None, value.ask) for value in domain.values if value.ask]


def _prefixes(domain: Domain, length: int) -> list[tuple[_Step, ...]]:
    """Every sequence of `length` noun hops whose types join up."""
    found: list[tuple[_Step, ...]] = [()]
    for _ in range(length):
        found = [(*path, step) for path in found for step in _noun_steps(domain) if not path or _joins(path[-1], step)]
    return found


def _joins(before: _Step, after: _Step) -> bool:
    """Whether `after` can follow `before`: it starts where `before` ends, and does not walk straight
    back along the same edge ("the club that plays at the home ground of X" is X)."""
    return before.end == after.start and not (before.relation == after.relation and before.incoming != after.incoming)


def _phrase(subject: str, steps: tuple[_Step, ...], rng: random.Random) -> str:
    phrase = subject
    for step in steps:
        wordings = step.wordings
        if phrase != subject:
            # A phrase nested in another reads best at its end: "the club of the manager of X", not
            # "the club the manager of X coaches".
            wordings = tuple(w for w in wordings if w.endswith(("{x}", "{y}"))) or wordings
        phrase = rng.choice(wordings).format(x=phrase, y=phrase)
    return phrase


def _forever(draw: Callable[[], Draft | None]) -> Iterator[Draft | None]:
    while True:
        yield draw()


# -- templates ---------------------------------------------------------------------------------


def _lookup(incoming: bool) -> Maker:
    def drafts(context: _Context) -> Iterator[Draft | None]:
        steps = [step for step in _last_steps(context.domain) if step.incoming == incoming]
        return _forever(lambda: _chain_draft(context, (), context.rng.choice(steps))) if steps else iter(())

    return drafts


def _chain(length: int) -> Maker:
    def drafts(context: _Context) -> Iterator[Draft | None]:
        paths = [
            (prefix, last)
            for prefix in _prefixes(context.domain, length - 1)
            for last in _last_steps(context.domain)
            if _joins(prefix[-1], last)
        ]
        return _forever(lambda: _chain_draft(context, *context.rng.choice(paths))) if paths else iter(())

    return drafts


def _chain_draft(context: _Context, prefix: tuple[_Step, ...], last: _Step) -> Draft | None:
    start_type = prefix[0].start if prefix else last.start
    subject = context.pick(start_type)
    if subject is None:
        return None
    reached = walk(context.index, subject, prefix)
    if reached is None:
        return None
    found = follow(context.index, reached, last.relation, last.incoming)
    if not found or len(found) > MAX_ANSWERS or subject in found:
        return None
    program = Program()
    program("end", program.follow((subject,), (*prefix, last)))
    phrase = _phrase(subject, prefix, context.rng)
    question = _sentence(context.rng.choice(last.wordings).format(x=phrase, y=phrase))
    return Draft(question, list(found), program, evidence(found), (subject,))


def _compare(length: int) -> Maker:
    """Yes/no: is one value below (or above) another; `length` - 1 noun hops before each value."""

    def drafts(context: _Context) -> Iterator[Draft | None]:
        values = [value for value in context.domain.values if value.less or value.more]
        paths = [
            (prefix, value)
            for prefix in _prefixes(context.domain, length - 1)
            for value in values
            if (prefix[-1].end if prefix else value.head) == value.head
        ]
        while paths:
            yield _compare_draft(context, *context.rng.choice(paths), context.rng.random() < 0.5)

    return drafts


def _compare_draft(context: _Context, prefix: tuple[_Step, ...], value: Value, want: bool) -> Draft | None:
    start_type = prefix[0].start if prefix else value.head
    a, b = context.pick(start_type), context.pick(start_type)
    if a is None or b is None or a == b:
        return None
    sides = []
    for subject in (a, b):
        reached = walk(context.index, subject, prefix)
        found = follow(context.index, reached, value.name) if reached else {}
        if len(found) != 1:
            return None
        sides.append((reached, found))
    if prefix and list(sides[0][0]) == list(sides[1][0]):
        return None  # one entity reached from both: nothing to compare
    left, right = next(iter(sides[0][1])), next(iter(sides[1][1]))
    if compare(left, "<", right) is None or compare(left, "=", right):
        return None
    wordings, op = (value.less, "<") if value.less and (not value.more or context.rng.random() < 0.5) else (value.more, ">")
    if compare(left, op, right) is not want:
        a, b, sides = b, a, sides[::-1]
    program = Program()
    first = program.follow((a,), (*prefix, _Step(value.name, False, value.head, None, ())))
    second = program.follow((b,), (*prefix, _Step(value.name, False, value.head, None, ())))
    program("end", program("judge", first, op, second))
    question = _sentence(
        context.rng.choice(wordings).format(a=_phrase(a, prefix, context.rng), b=_phrase(b, prefix, context.rng))
    )
    return Draft(question, want, program, evidence(sides[0][1], sides[1][1]), (a, b))


def _compare_open(context: _Context) -> Iterator[Draft | None]:
    values = [value for value in context.domain.values if value.least or value.most]
    while values:
        yield _compare_open_draft(context, context.rng.choice(values))


def _compare_open_draft(context: _Context, value: Value) -> Draft | None:
    names = context.graph.entities[value.head]
    chosen = context.rng.sample(names, min(len(names), context.rng.choice((2, 2, 3))))
    largest = bool(value.most) and (not value.least or context.rng.random() < 0.5)
    edges = [context.index.out[(name, value.name)][0] for name in chosen if context.index.out.get((name, value.name))]
    keys = order_keys([edge.tail for edge in edges])
    if len(chosen) < 2 or len(edges) != len(chosen) or None in keys or len(set(keys)) != len(keys):
        return None
    winner = (max if largest else min)(zip(keys, edges))[1].head
    program = Program()
    joined = program("union", (chosen[0],), (chosen[1],))
    if len(chosen) == 3:
        joined = program("union", joined, (chosen[2],))
    program("end", program("get_entity_by_constraint", joined, value.name, "argmax" if largest else "argmin"))
    options = f"{', '.join(chosen[:-1])} or {chosen[-1]}"
    question = _sentence(context.rng.choice(value.most if largest else value.least).format(options=options))
    return Draft(question, [winner], program, list(merge_triples(edges)), tuple(chosen))


def _count(incoming: bool) -> Maker:
    def drafts(context: _Context) -> Iterator[Draft | None]:
        links = [link for link in context.domain.links if (link.count_in if incoming else link.count)]
        while links:
            yield _count_draft(context, context.rng.choice(links), incoming)

    return drafts


def _count_draft(context: _Context, link: Link, incoming: bool) -> Draft | None:
    subject = context.pick(link.tail if incoming else link.head)
    if subject is None:
        return None
    found = follow(context.index, given(subject), link.name, incoming)
    if not found:
        return None
    program = Program()
    program("end", program("count", program("get_head_entity" if incoming else "get_tail_entity", (subject,), link.name)))
    question = context.rng.choice(link.count_in if incoming else link.count).format(x=subject, y=subject)
    return Draft(_sentence(question), len(found), program, evidence(found), (subject,))


def _member(length: int) -> Maker:
    """Yes/no: is an entity among the tails of a relation, `length` - 1 noun hops from the subject."""

    def drafts(context: _Context) -> Iterator[Draft | None]:
        paths = [
            (prefix, link)
            for prefix in _prefixes(context.domain, length - 1)
            for link in context.domain.links
            if link.check and (prefix[-1].end if prefix else link.head) == link.head
        ]
        while paths:
            yield _member_draft(context, *context.rng.choice(paths), context.rng.random() < 0.5)

    return drafts


def _member_draft(context: _Context, prefix: tuple[_Step, ...], link: Link, want: bool) -> Draft | None:
    subject = context.pick(prefix[0].start if prefix else link.head)
    reached = walk(context.index, subject, prefix) if subject is not None else None
    if subject is None or reached is None:
        return None
    found = follow(context.index, reached, link.name)
    if not found:
        return None
    # A "no" names another tail of the same relation, so that the relation is what settles it.
    others = sorted({triple.tail for (_, relation), triples in context.index.out.items() if relation == link.name for triple in triples} - set(found))
    pool = sorted(found) if want else others
    if not pool or subject in pool:
        return None
    other = context.rng.choice(pool)
    program = Program()
    program("end", program("judge", program.follow((subject,), (*prefix, _Step(link.name, False, link.head, link.tail, ()))), "contains", other))
    phrase = _phrase(subject, prefix, context.rng)
    question = _sentence(context.rng.choice(link.check).format(x=phrase, y=other))
    return Draft(question, want, program, evidence(found), (subject, other))


def _member_kind(length: int) -> Maker:
    """Yes/no: is some tail of a relation of the kind named, `length` - 1 noun hops from the subject."""

    def drafts(context: _Context) -> Iterator[Draft | None]:
        domain = context.domain
        paths = [
            (prefix, link, kind)
            for prefix in _prefixes(domain, length - 1)
            for link in domain.all_links
            if link.check_kind and (kind := domain.kind_link(link)) is not None
            and (prefix[-1].end if prefix else link.head) == link.head
        ]
        while paths:
            yield _member_kind_draft(context, *context.rng.choice(paths), context.rng.random() < 0.5)

    return drafts


def _member_kind_draft(context: _Context, prefix: tuple[_Step, ...], link: Link, kind: Link, want: bool) -> Draft | None:
    subject = context.pick(prefix[0].start if prefix else link.head)
    reached = walk(context.index, subject, prefix) if subject is not None else None
    if subject is None or reached is None:
        return None
    # Every kind of every tail is in the evidence: a "no" is settled by all of them.
    kinds = follow(context.index, follow(context.index, reached, link.name), kind.name)
    if not kinds:
        return None
    pool = sorted(kinds) if want else sorted(set(context.graph.entities[kind.tail]) - set(kinds))
    if not pool:
        return None
    named = context.rng.choice(pool)
    steps = (*prefix, _Step(link.name, False, link.head, link.tail, ()), _Step(kind.name, False, kind.head, kind.tail, ()))
    program = Program()
    program("end", program("judge", program.follow((subject,), steps), "contains", named))
    phrase = _phrase(subject, prefix, context.rng)
    question = _sentence(context.rng.choice(link.check_kind).format(x=phrase, y=named))
    return Draft(question, want, program, evidence(kinds), (subject, named))


TEMPLATES: tuple[tuple[str, Kind, Maker], ...] = (
    ("lookup", "lookup", _lookup(incoming=False)),
    ("lookup-in", "lookup", _lookup(incoming=True)),
    ("chain-2", "lookup", _chain(2)),
    ("chain-3", "lookup", _chain(3)),
    ("compare", "comparison", _compare(1)),
    ("compare-2hop", "comparison", _compare(2)),
    ("compare-open", "comparison", _compare_open),
    ("count", "count", _count(incoming=False)),
    ("count-in", "count", _count(incoming=True)),
    ("member", "verification", _member(1)),
    ("member-2hop", "verification", _member(2)),
    ("member-kind", "verification", _member_kind(1)),
    ("member-kind-2hop", "verification", _member_kind(2)),
)
