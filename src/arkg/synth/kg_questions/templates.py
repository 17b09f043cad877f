"""Question templates over any KG, each reading the KG's own relations. A template draws one draft
at a time (None when the draw finds nothing to ask: a hop that reaches several entities, a tie),
computing its gold answer, program and evidence from the same lookups (arkg.datasets.geo.reasoning).

    lookup        the tails of a relation, as one answer or a set ("What is the author of X?")
    lookup-in     the heads of a relation ("Which entity has X as its author?")
    chain-2/-3    hops through single entities, worded as nested noun phrases
    compare       yes/no: a number or a date of one entity against another's, below or above
    pick          which of two or three entities has the lowest / highest number or date
    count/-in     how many tails / heads a relation gives an entity
    member        yes/no: is Y among the tails of X; a "no" names a tail of the same relation
                  elsewhere, checked absent among X's (the lookup returns every edge)
    kind          the kinds of X, over a type-like relation
    is-kind       yes/no: is X of the kind K
    has-kind      yes/no: is some tail of X's relation of the kind K (2 hops)

The first entity of a draft is its anchor: what the question is about, which the split keeps on
one side.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from arkg.datasets.geo.reasoning import Program, Support, evidence, follow, given, walk
from arkg.datasets.geo.templates import Draft
from arkg.graph.literals import compare, order_keys
from arkg.graph.model import Direction, merge_triples
from arkg.synth.kg_questions import wording as say
from arkg.synth.kg_questions.profiles import Holds, Profile, Profiles
from arkg.synth.kg_questions.sample import Sample, is_value
from arkg.synth.kg_questions.view import KGView

MAX_ANSWERS = 6
MAX_COUNT = 12
_IN_HOP = 0.3  # share of chain hops taken into an entity ("the entity whose director is X")


@dataclass
class Context:
    view: KGView
    sample: Sample
    profiles: Profiles
    rng: random.Random

    def relation(self, *holds: Holds, incoming: bool = False) -> Profile | None:
        """A sampled relation holding one of `holds`, with the sampled entities it leaves (or reaches)."""
        named = self.sample.tails if incoming else self.sample.heads
        relations = [relation for relation in named if self.profiles[relation].holds in holds]
        return self.profiles[self.rng.choice(sorted(relations))] if relations else None

    def entity(self, relation: str, incoming: bool = False) -> str:
        return self.rng.choice((self.sample.tails if incoming else self.sample.heads)[relation])


@dataclass(frozen=True)
class Hop:
    relation: str
    incoming: bool = False


Draw = Callable[[Context], Draft | None]
_FOLLOWED = (Holds.ENTITIES,)
_ASKED = (Holds.ENTITIES, Holds.NUMBERS, Holds.DATES)
_VALUES = (Holds.NUMBERS, Holds.DATES)


def _answers(found: Support, *excluded: str) -> bool:
    """Whether `found` can be a gold answer: a few items, none of them named in the question."""
    return 0 < len(found) <= MAX_ANSWERS and not set(found) & set(excluded)


def _lookup(incoming: bool) -> Draw:
    def draw(c: Context) -> Draft | None:
        profile = c.relation(*(_FOLLOWED if incoming else _ASKED), incoming=incoming)
        if profile is None:
            return None
        x = c.entity(profile.relation, incoming)
        found = follow(c.view.index, given(x), profile.relation, incoming)
        if not _answers(found, x):
            return None
        program = Program()
        program("end", program.follow((x,), [Hop(profile.relation, incoming)]))
        ask = say.ask_heads if incoming else say.ask_tails
        return Draft(ask(c.rng, profile.relation, x, len(found) > 1), list(found), program, evidence(found), (x,))

    return draw


def _chain(length: int) -> Draw:
    def draw(c: Context) -> Draft | None:
        x = c.rng.choice(c.sample.entities)
        hops: list[Hop] = []
        reached, phrase, passed = given(x), x, {x}
        for _ in range(length - 1):
            hop = _next_hop(c, next(iter(reached)), hops[-1] if hops else None)
            further = walk(c.view.index, x, [*hops, hop]) if hop else None
            # Each hop reaches one new entity, which a noun phrase can name; a value names nothing further.
            if hop is None or further is None or set(further) & passed or is_value(next(iter(further))):
                return None
            hops.append(hop)
            reached, phrase, passed = further, say.noun_phrase(hop.relation, phrase, hop.incoming), passed | set(further)
        last = _next_hop(c, next(iter(reached)), hops[-1], outgoing_only=True)
        found = follow(c.view.index, reached, last.relation) if last else {}
        if last is None or not _answers(found, *passed):
            return None
        program = Program()
        program("end", program.follow((x,), [*hops, last]))
        question = say.ask_tails(c.rng, last.relation, phrase, len(found) > 1, nested=bool(hops))
        return Draft(question, list(found), program, evidence(found), (x,))

    return draw


def _next_hop(c: Context, entity: str, before: Hop | None, outgoing_only: bool = False) -> Hop | None:
    """A hop out of (or into) `entity` along a sampled relation that is not a kind, and not straight
    back along the hop before ("the film directed by the director of X" is X)."""
    incoming = not outgoing_only and c.rng.random() < _IN_HOP
    named = c.sample.tails if incoming else c.sample.heads
    held = _ASKED if outgoing_only else _FOLLOWED
    relations = [
        relation
        for relation in c.view.relations(entity, Direction.IN if incoming else Direction.OUT)
        if relation in named and c.profiles[relation].holds in held
        and not (before is not None and before.relation == relation and before.incoming != incoming)
    ]
    return Hop(c.rng.choice(relations), incoming) if relations else None


def _values(c: Context, profile: Profile, count: int) -> list[tuple[str, str]] | None:
    """`count` sampled heads of the relation with one value each, all of them different."""
    if len(set(profile.heads)) < count:
        return None
    chosen = c.rng.sample(sorted(set(profile.heads)), count)
    values = [c.view.index.one(head, profile.relation) for head in chosen]
    keys = order_keys([value for value in values if value is not None])
    if None in values or None in keys or len(set(keys)) != count:
        return None
    return list(zip(chosen, values))  # type: ignore[arg-type]


def _compare(c: Context) -> Draft | None:
    profile = c.relation(*_VALUES)
    pair = _values(c, profile, 2) if profile else None
    if profile is None or pair is None:
        return None
    (a, left), (b, right) = pair
    less, want = c.rng.random() < 0.5, c.rng.random() < 0.5
    op = "<" if less else ">"
    if compare(left, op, right) is not want:
        a, b = b, a
    program = Program()
    first, second = program.follow((a,), [Hop(profile.relation)]), program.follow((b,), [Hop(profile.relation)])
    program("end", program("judge", first, op, second))
    question = say.ask_compare(c.rng, profile.relation, a, b, profile.holds is Holds.DATES, less)
    edges = merge_triples(c.view.edges(a, profile.relation), c.view.edges(b, profile.relation))
    return Draft(question, want, program, list(edges), (a, b))


def _pick(c: Context) -> Draft | None:
    profile = c.relation(*_VALUES)
    chosen = _values(c, profile, c.rng.choice((2, 3))) if profile else None
    if profile is None or chosen is None:
        return None
    least = c.rng.random() < 0.5
    keys = order_keys([value for _, value in chosen])
    winner = (min if least else max)(zip(keys, (name for name, _ in chosen)))[1]
    names = [name for name, _ in chosen]
    program = Program()
    joined = program("union", (names[0],), (names[1],))
    if len(names) == 3:
        joined = program("union", joined, (names[2],))
    program("end", program("get_entity_by_constraint", joined, profile.relation, "argmin" if least else "argmax"))
    question = say.ask_pick(c.rng, profile.relation, names, profile.holds is Holds.DATES, least)
    edges = merge_triples(*(c.view.edges(name, profile.relation) for name in names))
    return Draft(question, [winner], program, list(edges), tuple(names))


def _count(incoming: bool) -> Draw:
    def draw(c: Context) -> Draft | None:
        profile = c.relation(*_FOLLOWED, incoming=incoming)
        if profile is None:
            return None
        x = c.entity(profile.relation, incoming)
        found = follow(c.view.index, given(x), profile.relation, incoming)
        if not 0 < len(found) <= MAX_COUNT:
            return None
        program = Program()
        program("end", program("count", program.follow((x,), [Hop(profile.relation, incoming)])))
        return Draft(say.ask_count(c.rng, profile.relation, x, incoming), len(found), program, evidence(found), (x,))

    return draw


def _member(c: Context) -> Draft | None:
    profile = c.relation(*_FOLLOWED)
    if profile is None:
        return None
    x = c.entity(profile.relation)
    found = follow(c.view.index, given(x), profile.relation)
    want = c.rng.random() < 0.5
    if want:
        pool = sorted(found)
    else:  # another entity's tail of the same relation, so that the relation is what settles it
        other = c.entity(profile.relation)
        pool = sorted(set(c.view.index.tails(other, profile.relation)) - set(found))
    pool = [name for name in pool if name != x and not is_value(name)]
    if not found or not pool:
        return None
    y = c.rng.choice(pool)
    program = Program()
    program("end", program("judge", program.follow((x,), [Hop(profile.relation)]), "contains", y))
    return Draft(say.ask_member(c.rng, profile.relation, x, y), want, program, evidence(found), (x, y))


def _kind_relation(c: Context) -> tuple[Profile, bool] | None:
    """A type-like relation, and whether it is the KG's only one (then "What kind of thing is X?" can
    only mean it; with several, questions name the relation)."""
    kinds = c.profiles.of(Holds.KINDS)
    return (c.rng.choice(kinds), len(kinds) == 1) if kinds else None


def _kind(c: Context) -> Draft | None:
    chosen = _kind_relation(c)
    if chosen is None:
        return None
    profile, only = chosen
    x = c.entity(profile.relation)
    found = follow(c.view.index, given(x), profile.relation)
    if not _answers(found, x):
        return None
    program = Program()
    program("end", program.follow((x,), [Hop(profile.relation)]))
    many = len(found) > 1
    question = say.ask_kind(c.rng, x, many) if only else say.ask_tails(c.rng, profile.relation, x, many)
    return Draft(question, list(found), program, evidence(found), (x,))


def _other_kind(c: Context, profile: Profile, kinds: Support, want: bool) -> str | None:
    """A kind that the entities are (want) or, checked, are not of."""
    pool = sorted(kinds) if want else sorted(set(profile.kinds) - set(kinds))
    return c.rng.choice(pool) if pool else None


def _is_kind(c: Context) -> Draft | None:
    chosen = _kind_relation(c)
    if chosen is None:
        return None
    profile, only = chosen
    x = c.entity(profile.relation)
    kinds = follow(c.view.index, given(x), profile.relation)
    want = c.rng.random() < 0.5
    k = _other_kind(c, profile, kinds, want)
    if k is None:
        return None
    program = Program()
    program("end", program("judge", program.follow((x,), [Hop(profile.relation)]), "contains", k))
    question = say.ask_is_kind(c.rng, x, k) if only else say.ask_member(c.rng, profile.relation, x, k)
    return Draft(question, want, program, evidence(kinds), (x, k))


def _has_kind(c: Context) -> Draft | None:
    chosen = _kind_relation(c)
    link = c.relation(*_FOLLOWED)
    if chosen is None or link is None:
        return None
    profile, _ = chosen
    x = c.entity(link.relation)
    reached = follow(c.view.index, given(x), link.relation)
    # Every tail has its kinds in the KG, so that a "no" is settled by all of them.
    if not reached or any(not c.view.edges(name, profile.relation) for name in reached):
        return None
    kinds = follow(c.view.index, reached, profile.relation)
    want = c.rng.random() < 0.5
    k = _other_kind(c, profile, kinds, want)
    if k is None or k == x:
        return None
    program = Program()
    program("end", program("judge", program.follow((x,), [Hop(link.relation), Hop(profile.relation)]), "contains", k))
    return Draft(say.ask_has_kind(c.rng, link.relation, x, k), want, program, evidence(kinds), (x, k))


@dataclass(frozen=True)
class Template:
    name: str
    kind: str  # the question file's kind: lookup | verification | comparison | count | superlative
    draw: Draw


TEMPLATES: tuple[Template, ...] = (
    Template("lookup", "lookup", _lookup(incoming=False)),
    Template("lookup-in", "lookup", _lookup(incoming=True)),
    Template("chain-2", "lookup", _chain(2)),
    Template("chain-3", "lookup", _chain(3)),
    Template("compare", "comparison", _compare),
    Template("pick", "superlative", _pick),
    Template("count", "count", _count(incoming=False)),
    Template("count-in", "count", _count(incoming=True)),
    Template("member", "verification", _member),
    Template("kind", "lookup", _kind),
    Template("is-kind", "verification", _is_kind),
    Template("has-kind", "verification", _has_kind),
)
