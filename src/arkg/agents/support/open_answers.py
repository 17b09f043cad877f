"""The rules for an open answer: each name it gives stands where the question's last hop points (reached
from an entity of the question, not that entity itself, by a relation no other fits the question clearly
better, at the end the question writes: "reports to Sarah"), is of the kind asked for, leaves out none of
the names its own last hop's citations give; a count counts such edges; "the oldest of A and B" is what
the cited values make it."""

from __future__ import annotations

import re

from arkg.agents.support import compare
from arkg.agents.support.cited import holds
from arkg.agents.support.fit import relation_words
from arkg.agents.support.question import AskedQuestion
from arkg.graph.matching import as_number, fold, same_value
from arkg.graph.model import Direction, Triple

# "What kind of license ...": the answer is a kind (a type of the KG), not one of its members.
_KIND_OF = re.compile(r"\b(?:what|which)\s+(?:kind|type|sort)s?\s+of\b", re.IGNORECASE)
# "Who", "whom", or "which/what" and a noun: a question that asks for a thing, not a value...
_WH_THING = re.compile(r"\b(?:who|whom|(?:which|what)\s+(?!is\b|was\b|are\b|were\b|does\b|did\b|do\b|has\b|have\b)[a-z]+)\b", re.IGNORECASE)
# ...unless the noun is one of time or quantity.
_WH_VALUE = re.compile(r"\b(?:year|date|day|month|decade|century|time|age|number|amount|count|size|version|value|percentage|height|length|population|floor)", re.IGNORECASE)


class OpenAnswers(AskedQuestion):
    def _open(self, answer: str) -> list[str]:
        names = self._reading(answer)
        way = compare.direction(self._without(*{t.relation for t in self.cited}), dated=self._dated())
        if way is not None and names and all(self.facts.node(name) in self.asked for name in names):
            return self._extreme(names, way)
        if (number := as_number(answer)) is not None and self._counts(number):
            return self._skipped_relations(self.facts.reached(self.asked))
        reasons: list[str] = []
        distance = self.facts.reached(self.asked)
        ends: list[str] = []
        for name in names:
            node = self.facts.node(name)
            if node is None:
                if not any(same_value(name, output) for output in self.facts.outputs):
                    frontier = self._farthest(distance)
                    reasons.append(f"{name} is in no cited fact" + (f": no cited fact links {frontier} to it" if frontier else ""))
                continue
            if node in self.asked:
                relation = next((t.relation for t in self.cited if node in (fold(t.head), fold(t.tail))), "")
                reasons.append(f"{name} is the question's own entity, not where its `{relation}` edge points")
                continue
            if node not in distance:
                reasons.append(f"no cited fact links {self.facts.names[self.asked[0]]} to {name}")
                continue
            ends.append(node)
            chain = self.facts.chain(self.asked, node)
            if chain:
                last = self.cited[chain[-1]]
                start = last.tail if fold(last.head) == node else last.head
                # The clearest reason first: the wrong end, the wrong kind of thing, the wrong relation.
                wrong = self._wrong_role(name, [self.cited[index] for index in chain]) or self._wrong_kind(name) or self._value_for_thing(name)
                if wrong is None and (rival := self._rival(last.relation, start)) is not None:
                    wrong = f"{name} is reached by `{last.relation}`; the question asks about `{rival}`"
                if wrong is not None:
                    reasons.append(wrong)
                    continue
            elif (wrong := self._wrong_kind(name) or self._value_for_thing(name)) is not None:
                reasons.append(wrong)
        if not reasons:
            reasons += self._left_out(ends) or self._skipped_relations(self._on_chains(ends))
        return reasons

    def _left_out(self, ends: list[str]) -> list[str]:
        """Names the answer leaves out that its own last hop's cited facts give ("which staff were born in
        Wrenford" answered with one of the two the citations name)."""
        given = set(ends)
        left: list[str] = []
        for end in ends:
            chain = self.facts.chain(self.asked, end)
            if not chain:
                continue
            last = self.cited[chain[-1]]
            outgoing = fold(last.tail) == end
            start = fold(last.head if outgoing else last.tail)
            for fact in self.cited:
                near, far = (fold(fact.head), fold(fact.tail)) if outgoing else (fold(fact.tail), fold(fact.head))
                if fact.relation == last.relation and near == start and far not in given and not holds(fold(self.question), far):
                    left.append(self._shown(far))
        left = list(dict.fromkeys(left))
        return [f"the cited facts also give {', '.join(left)}"] if left else []

    def _wrong_role(self, name: str, chain: list[Triple]) -> str | None:
        """The answer at the wrong end: where the question writes "reports to Sarah", the chain must hold
        an edge of that relation arriving at Sarah; and an answer standing where the question's own entity
        stands in the same relation ("what does Nessa maintain" answered with another maintainer) is no answer."""
        first, last = chain[0], chain[-1]
        for node in self.asked:
            if self.lookups is not None and (relation := self._object_of(node)) is not None:
                if not any(fold(fact.tail) == node and fact.relation == relation for fact in chain):
                    return f"the question asks what `{relation}` {self._shown(node)}; {name} comes from ({first.head}, {first.relation}, {first.tail})"
        if len(chain) >= 2 and first.relation == last.relation:
            asked_is_tail = fold(first.tail) in self.asked
            answer_is_tail = fold(last.tail) == fold(name) or self.facts.node(name) == fold(last.tail)
            if asked_is_tail == answer_is_tail:
                return f"{name} stands where {first.tail if asked_is_tail else first.head} does in `{first.relation}`, not at its other end"
        return None

    def _extreme(self, names: list[str], way: compare.Direction) -> list[str]:
        """"Which of A, B (and C) is the oldest": the one the cited values make it."""
        values = self._values(self.asked)
        if values is None:
            return ["no cited value of one relation for every entity the question compares"]
        relation, by_entity = values
        compared = [node for node in dict.fromkeys([*self.asked, *self.targets]) if as_number(node) is None and not self._is_kind(node)]
        missing = [self._shown(node) for node in compared if node not in by_entity and self._compared_in_question(node)]
        if missing:
            return [f"no cited `{relation}` of {', '.join(missing)} to compare"]
        expected = compare.extreme({self.facts.names[node]: value for node, value in by_entity.items()}, way)
        if not expected:
            return [f"the cited `{relation}` values do not compare"]
        if {fold(name) for name in names} != {fold(name) for name in expected}:
            shown = ", ".join(f"{self.facts.names[node]} {value}" for node, value in by_entity.items())
            return [f"by the cited `{relation}` ({shown}) it is {', '.join(expected)}"]
        return []

    def _counts(self, number: float) -> bool:
        """Whether a number answer counts cited facts: that many far ends of one relation followed from
        the question's entities (through several hops, the distinct ends of the last), the relation fitting."""
        if number != int(number) or number < 1:
            return False
        distance = self.facts.reached(self.asked)
        ends: dict[tuple[str, int], set[str]] = {}
        for triple in self.cited:
            head, tail = fold(triple.head), fold(triple.tail)
            if head not in distance or tail not in distance or distance[head] == distance[tail]:
                continue
            near, far = (head, tail) if distance[head] < distance[tail] else (tail, head)
            if self._rival(triple.relation, self.facts.names[near]) is None:
                ends.setdefault((triple.relation, distance[near]), set()).add(far)
        if self.lookups is not None:
            # "How many people report to Idris": edges of that relation arriving at Idris, nothing else.
            objects = {(relation, node) for node in self.asked if (relation := self._object_of(node)) is not None}
            if objects:
                arriving = {(t.relation, fold(t.tail)) for t in self.cited}
                counted = {fold(t.head) for t in self.cited if (t.relation, fold(t.tail)) in objects}
                return bool(objects & arriving) and len(counted) == number
        deepest = max((depth for _, depth in ends), default=-1)
        return any(len(found) == number and depth == deepest for (_, depth), found in ends.items())

    def _wrong_kind(self, name: str) -> str | None:
        """"Which town ..." answered with an entity the KG says is something else; "which registrar ..."
        with one the KG does not link to `registrar`."""
        if self.lookups is None:
            return None
        if _KIND_OF.search(self.question) and not self.lookups.is_type(name) and (types := self.lookups.types(name)):
            return f"{name} is a {types[0]}, not a kind; the question asks what kind"
        if (asked := self._asked_kind()) is None:
            return None
        kind, is_type = asked
        if not is_type:
            linked = any(
                fold(edge.tail if direction is Direction.OUT else edge.head) == fold(kind)
                for relation, direction in self.lookups.relations(name)
                for edge in self.lookups.edges(name, relation, direction)
            )
            return None if linked else f"the KG does not link {name} to {kind}"
        types = self.lookups.types(name)
        if not types or any(fold(kind) == fold(t) or set(relation_words(kind)) & set(relation_words(t)) for t in types):
            return None
        return f"{name} is a {types[0]}; the question asks for a {kind}"

    def _value_for_thing(self, name: str) -> str | None:
        """A number or date given where the question asks for a thing ("which languages", "who")."""
        if not compare.comparable([name]):
            return None
        asked = _WH_THING.search(self.question)
        if asked is None or _WH_VALUE.search(asked.group(0)):
            return None
        return f"{name} is a value; the question asks {asked.group(0).strip().lower()}"
