"""The rules for a yes/no answer: a comparison the question asks is re-done from the cited values; True
needs cited facts linking the question's entities by relations that fit it (or an edge of the relation
it names, for "Does X have a pet?"); False needs a closed-world reading: every edge of each cited relation
that fits the question read from one of its entities (the KG has no other), the asked name never reached,
nothing the question names left unread where the reading stops. "The same X" needs both sides read."""

from __future__ import annotations

import re

from arkg.agents.support import compare
from arkg.agents.support.cited import holds
from arkg.agents.support.lookups import is_type_relation
from arkg.agents.support.question import AskedQuestion
from arkg.agents.support.verdict import Support
from arkg.graph.matching import as_number, fold
from arkg.graph.model import Direction, triple_key

# "Do A and B use the same license?"
_SAME = re.compile(r"\bsame\b", re.IGNORECASE)
# "Does X have a pet?", "Is there a ...": a question whose True one edge of the relation it names can show.
_EXISTENCE = re.compile(r"^\s*(?:does|do|did|has|have|had)\b[^?]*\b(?:have|has|had|any)\b|^\s*(?:is|are|was|were) there\b", re.IGNORECASE)
_MAX_HOPS = 3  # levels a closed-world reading follows
_LISTED = 6  # values a closed-world note lists before "and N more"
# Entities where a reading stopped whose edges are looked at for one to an asked name (bounds the lookups).
_FRONTIER_LOOKED_AT = 20


class YesNo(AskedQuestion):
    def _yes_no(self, answer: bool, reasons: list[str]) -> Support:
        compared = self._compared()
        if compared is not None:
            verdict, shown = compared
            if verdict != answer:
                reasons.append(f"the cited values say {verdict}: {shown}")
            return Support(supported=not reasons, reasons=reasons)
        if self._asks_comparison():
            return Support(supported=False, reasons=[*reasons, "the cited facts give no values of one relation to compare"])
        if (computed := self._computed_verdict()) is not None:
            if computed != answer:
                reasons.append(f"the recorded comparison gives {computed}")
            else:
                reasons += self._skipped_relations(self.facts.reached(self.asked))
            return Support(supported=not reasons, reasons=reasons)
        targets = self.targets
        if answer:
            reasons += self._true(targets)
            return Support(supported=not reasons, reasons=reasons)
        if reasons:
            return Support(supported=False, reasons=reasons)
        return self._false(targets)

    def _asks_comparison(self) -> bool:
        """Whether the question compares values: a comparative word, and two entities or a number of its own."""
        if compare.direction(self._without()) is None:
            return False
        entities = [node for node in dict.fromkeys([*self.asked, *self.targets]) if as_number(node) is None and not self._is_kind(node)]
        return len(entities) >= 2 or compare.threshold(self.question, [self._shown(node) for node in entities]) is not None

    def _computed_verdict(self) -> bool | None:
        """The verdict of a recorded comparison that re-runs to the same output and whose operands the
        citations give: a count of cited facts reached from the question, a number the question writes, or
        a cited value reached from it ("Did Pierre Curie have two children?": count 2, judge 2 = 2)."""
        reached = self.facts.reached(self.asked)
        counts = {
            c.output for c in self.computations
            if c.agrees and c.operation == "count" and c.inputs and all(self.facts.node(name) in reached for name in c.inputs)
        }  # fmt: skip
        written = {compare.threshold(self.question, [self._shown(node) for node in self.asked])}
        for computation in self.computations:
            verdict = computation.output.strip().lower()
            if not computation.agrees or computation.membership or verdict not in ("true", "false"):
                continue
            if all(
                operand in counts or (as_number(operand) is not None and any(as_number(operand) == as_number(w) for w in written if w))
                or self.facts.node(operand) in reached
                for operand in computation.inputs
            ):
                return verdict == "true"
        return None

    def _compared(self) -> tuple[bool, str] | None:
        """A comparison the question asks, re-done from the cited values: (verdict, the values), or None
        where the question compares nothing or the citations hold no values to compare."""
        entities = [node for node in self.asked if as_number(node) is None]
        named = [node for node in entities if self._compared_in_question(node)] or entities
        values = self._values(named) or self._edge_counts(named)
        if values is None:
            return None
        relation, by_entity = values
        way = compare.direction(self._without(relation), dated=compare.dated(list(by_entity.values())))
        if way is None:
            return None
        order = sorted(by_entity, key=lambda node: fold(self.question).find(node))
        if len(order) >= 2:
            first, second = order[0], order[1]
            verdict = compare.compared(by_entity[first], by_entity[second], way)
            shown = f"{self.facts.names[first]} {by_entity[first]}, {self.facts.names[second]} {by_entity[second]} (`{relation}`)"
        else:
            limit = compare.threshold(self.question, [self.facts.names[node] for node in named])
            if limit is None:
                return None
            verdict = compare.compared(by_entity[order[0]], limit, way)
            shown = f"{self.facts.names[order[0]]} {by_entity[order[0]]} (`{relation}`) against {limit}"
        return None if verdict is None else (verdict, shown)

    def _true(self, targets: list[str]) -> list[str]:
        if len(targets) == 1 and _EXISTENCE.match(self.question) and self._has_named_edge(targets[0]):
            return []  # "Does Yui Yuigahama have a pet?": an edge of the relation the question names
        if len(targets) < 2:
            return [f"no cited fact links {self._shown(targets[0]) if targets else 'the question'} to what it asks"]
        if _SAME.search(self.question):
            return self._the_same(targets)
        anchor = targets[0]
        unlinked = [self._shown(target) for target in targets[1:] if not self._reaches(anchor, target)]
        if unlinked:
            return [f"no cited fact links {self._shown(anchor)} to {', '.join(unlinked)}"]
        nodes, on_chain = {anchor, *targets}, []
        for target in targets[1:]:
            end = target if target in self.facts.names else next(n for n in self.facts.reached([anchor], facts_only=True) if holds(n, target))
            for index in self.facts.chain([anchor], end, facts_only=True):
                fact = self.cited[index]
                on_chain.append(fact)
                near = fact.head if fold(fact.head) in nodes else fact.tail  # the end the chain came from
                nodes |= {fold(fact.head), fold(fact.tail)}
                if (rival := self._rival(fact.relation, near)) is not None:
                    return [f"({fact.head}, {fact.relation}, {fact.tail}) is not what the question asks: it asks about `{rival}`"]
        # Each relation the question names is followed at the entities the chain passes ("a student with a
        # pet": the pet edge of the same person), not merely somewhere among the citations.
        touching = {fact.relation for fact in self.cited if nodes & {fold(fact.head), fold(fact.tail)}}
        if self.lookups is not None and (named := self._named_unfollowed(nodes, touching)):
            return [f"the question asks about `{named[0]}` ({named[1]}), which no cited fact at {self._shown(anchor)}'s chain follows"]
        relations = {fact.relation for fact in on_chain}
        if len(targets) == 2 and len(on_chain) > 1 and len(relations) == 1 and self.words.names(next(iter(relations))):
            # "Does Gideon report to Halima?" asks for one edge; two who report to the same person are no answer.
            return [f"the cited facts link {self._shown(anchor)} and {self._shown(targets[1])} only through {len(on_chain) - 1} other entities"]
        return []

    def _the_same(self, targets: list[str]) -> list[str]:
        """"Do A and B work out of the same office?" answered True: an entity both reach by one cited relation."""
        ends: dict[tuple[str, str], set[str]] = {}
        for fact in self.cited:
            for near, far in ((fold(fact.head), fold(fact.tail)), (fold(fact.tail), fold(fact.head))):
                if near in targets and far not in targets:
                    ends.setdefault((fact.relation, far), set()).add(near)
        # The relation must fit at every entity that reaches the shared one (a set's first member is no choice).
        if any(len(reached) >= 2 and all(self._rival(relation, self._shown(node)) is None for node in reached) for (relation, _), reached in ends.items()):
            return []
        return [f"no cited fact shows one entity that {' and '.join(self._shown(t) for t in targets)} share"]

    def _false(self, targets: list[str]) -> Support:
        for anchor in targets:
            for target in targets:
                if target != anchor and self._reaches_by_fitting(anchor, target):
                    fact = self.cited[self.facts.chain([anchor], target)[-1]] if target in self.facts.names and self.facts.chain([anchor], target) else None
                    shown = f"the cited ({fact.head}, {fact.relation}, {fact.tail})" if fact else "the cited facts"
                    return Support(supported=False, reasons=[f"{shown} link {self._shown(anchor)} to {self._shown(target)}: that says True"])
        if self.lookups is None:
            return Support(supported=False, reasons=["a False answer needs the KG to show that nothing was left unread"])
        if _SAME.search(self.question):
            return self._not_the_same([t for t in targets if not self._is_kind(t)])
        first_failure = None
        for anchor in targets:
            reading = _ClosedWorld(self, anchor, [t for t in targets if t != anchor]).read()
            if reading.note is not None:
                return Support(supported=True, closed_world=True, note=reading.note)
            first_failure = first_failure or reading.failure
        return Support(supported=False, reasons=[first_failure or "no cited fact bears on the question"])

    def _has_named_edge(self, node: str) -> bool:
        """Whether a cited fact of the entity follows a relation the question names outright."""
        return any(
            node in (fold(fact.head), fold(fact.tail)) and self.words.fit(fact.relation, with_names=True) == 1.0
            and self._rival(fact.relation, self._shown(node)) is None
            for fact in self.cited
        )  # fmt: skip

    def _not_the_same(self, entities: list[str]) -> Support:
        """"Do A and B use the same license?" answered False: each one's edges of one fitting relation all
        read (the KG has no other), and no end in common."""
        assert self.lookups is not None
        for relation in dict.fromkeys(t.relation for t in self.cited):
            ends: dict[str, set[str]] = {}
            for node in entities:
                name = self._shown(node)
                for direction in (Direction.OUT, Direction.IN):
                    edges = self.lookups.edges(name, relation, direction)
                    if edges and all(triple_key(edge) in self.keys for edge in edges) and self._rival(relation, name) is None:
                        ends[node] = {edge.tail if direction is Direction.OUT else edge.head for edge in edges}
                        break
            if len(entities) >= 2 and len(ends) == len(entities):
                if set.intersection(*({fold(end) for end in found} for found in ends.values())):
                    return Support(supported=False, reasons=[f"the cited `{relation}` facts give {', '.join(self._shown(n) for n in entities)} one in common"])
                listed = "; ".join(f"{self._shown(node)} `{relation}`: {', '.join(sorted(found))}" for node, found in ends.items())
                return Support(supported=True, closed_world=True, note=f"the KG lists {listed}")
        return Support(supported=False, reasons=["a False to \"the same\" needs every edge of the compared relation of each side read"])

    def _reaches_by_fitting(self, anchor: str, target: str) -> bool:
        if not self._reaches(anchor, target):
            return False
        end = target if target in self.facts.names else next((n for n in self.facts.reached([anchor]) if holds(n, target) and n != anchor), None)
        if end is None:
            return False
        chain = self.facts.chain([anchor], end)
        return bool(chain) and all(self._rival(self.cited[i].relation, self.cited[i].head) is None for i in chain)


class _Reading:
    def __init__(self) -> None:
        self.read_any = False
        self.failure: str | None = None
        self.note: str | None = None


class _ClosedWorld:
    """A False answer's closed-world reading from one entity of the question: level by level, every edge
    of each cited relation that fits the question read in full (the KG has no other), the asked names
    never reached, and nothing the question names left unread where the reading stops."""

    def __init__(self, check: YesNo, anchor: str, targets: list[str]) -> None:
        self.check = check
        self.anchor = anchor
        self.targets = targets

    def read(self) -> _Reading:
        check, lookups, reading = self.check, self.check.lookups, _Reading()
        assert lookups is not None
        level, seen, used, followed = {self.anchor}, {self.anchor}, set[int](), set[str]()
        listed: list[str] = []
        for _ in range(_MAX_HOPS):
            groups: dict[tuple[str, str, Direction], list[int]] = {}
            for index, fact in enumerate(check.cited):
                if index in used:
                    continue
                head, tail = fold(fact.head), fold(fact.tail)
                for near, direction, name in ((head, Direction.OUT, fact.head), (tail, Direction.IN, fact.tail)):
                    if near in level and check._rival(fact.relation, name) is None:
                        groups.setdefault((name, fact.relation, direction), []).append(index)
            if not groups:
                break
            following: set[str] = set()
            for (name, relation, direction), indexes in groups.items():
                edges = lookups.edges(name, relation, direction)
                unread = [edge for edge in edges if triple_key(edge) not in check.keys]
                if unread:
                    reading.failure = f"{len(unread)} of the KG's {len(edges)} `{relation}` edges of {name} were not read"
                    return reading
                reading.read_any = True
                used.update(indexes)
                followed.add(relation)
                ends = [edge.tail if direction is Direction.OUT else edge.head for edge in edges]
                following |= {fold(end) for end in ends}
                if not listed or len(seen) == 1:
                    shown = ", ".join(ends[:_LISTED]) + (f" and {len(ends) - _LISTED} more" if len(ends) > _LISTED else "")
                    listed.append(f"{name} `{relation}`: {shown}")
            for target in self.targets:
                if any(end == target or holds(end, target) for end in following):
                    reading.failure = f"the cited facts link {check._shown(self.anchor)} to {check._shown(target)}"
                    return reading
            level = following - seen
            seen |= following
            if not level:
                break
        if not reading.read_any:
            return reading
        unread = self._unread_at(level or seen, followed)
        if unread:
            reading.failure = unread
            return reading
        reading.note = "the KG lists " + "; ".join(listed)
        return reading

    def _unread_at(self, frontier: set[str], followed: set[str]) -> str | None:
        """A relation the question names (or a type, when it asks about a kind) at the entities where the
        reading stopped or anywhere in the KG, which the reading never followed."""
        check, lookups = self.check, self.check.lookups
        assert lookups is not None
        named = check._named_unfollowed(frontier, followed)
        if named is not None:
            return f"`{named[0]}` ({named[1]}) was not read"
        targets = set(self.targets)
        for node in sorted(frontier)[:_FRONTIER_LOOKED_AT]:
            name = check._shown(node)
            for relation, direction in lookups.relations(name):
                if relation in followed:
                    continue  # the same relation once more is another hop than the one asked ("borders")
                for edge in lookups.edges(name, relation, direction):
                    other = fold(edge.tail if direction is Direction.OUT else edge.head)
                    if other in targets and triple_key(edge) not in check.keys:
                        return f"the KG links {name} to {check._shown(other)} by `{relation}`, which was not read"
        if check.asks_kind:
            for node in frontier:
                name = check._shown(node)
                kinds = [relation for relation, _ in lookups.relations(name) if is_type_relation(relation) and relation not in followed]
                if kinds:
                    return f"`{kinds[0]}` of {name} was not read"
        return None
