"""The verdict: whether an answer's cited facts (with the computations its trace records) support it.

Open answers. Each name the answer gives must stand where the question's last hop points: reached from
an entity of the question through cited facts (not the question's own entity: the wrong end of the right
triple), by a relation no other relation of that entity fits the question clearly better, and of the
kind the question asks for where the KG has types ("which town" against a person). A count must count
the cited facts of one such relation; "the oldest of A, B and C" must be what the cited values make it.

Yes/no answers. A comparison ("before", "more than 500") is re-done from the cited values and must give
the answer. Otherwise True needs cited facts linking the question's entities; False needs either a cited
fact that rules it out or a closed-world reading: every edge of the asked relation from an entity of the
question read and cited (checked against the KG), and the asked value not among them. Citations that do
not bear on the question (another entity's edge, a relation the question does not ask about) support
neither.

Every answer: a relation the question names outright at an entity on the way (`maintained by` for
"who maintains") must be among the cited relations: a hop the answer skipped.

Without the KG (a result read back from a file) the checks that need it are left out: the relations
compared are the cited ones, and no closed-world reading is possible.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from arkg.agents.candidates import named_in_question
from arkg.agents.support import compare
from arkg.agents.support.cited import CitedGraph, Computation, holds, only_inside, question_entities, written_names
from arkg.agents.support.fit import QuestionWords, relation_words, same_word
from arkg.agents.support.lookups import GraphLookups, is_type_relation
from arkg.graph.matching import as_number, fold, name_readings, same_value
from arkg.graph.model import Direction, KnowledgeGraph, Triple, triple_key

Answer = bool | str | None
# "Who", "whom", or "which/what" and a noun: a question that asks for a thing, not a value...
# "Do A and B use the same license?"
_SAME = re.compile(r"\bsame\b", re.IGNORECASE)
# "What kind of license ...": the answer is a kind (a type of the KG), not one of its members.
_KIND_OF = re.compile(r"\b(?:what|which)\s+(?:kind|type|sort)s?\s+of\b", re.IGNORECASE)
# Words between a relation and its object ("reports to Sarah", "part of the Trust").
_LINKING = frozenset({"to", "by", "of", "in", "at", "on", "for", "from", "with", "under", "the", "a", "an"})
# Words after "which"/"what" that never name a kind, whatever entities the KG has.
_NOT_KINDS = frozenset({"is", "was", "are", "were", "does", "did", "do", "has", "have", "one", "ones", "kind", "type", "year"})
_WH_THING = re.compile(r"\b(?:who|whom|(?:which|what)\s+(?!is\b|was\b|are\b|were\b|does\b|did\b|do\b|has\b|have\b)[a-z]+)\b", re.IGNORECASE)
# ...unless the noun is one of time or quantity.
_WH_VALUE = re.compile(r"\b(?:year|date|day|month|decade|century|time|age|number|amount|count|size|version|value|percentage|height|length|population|floor)", re.IGNORECASE)
_MAX_HOPS = 3
_LISTED = 6
# Entities where a reading stopped whose edges are looked at for one to an asked name (bounds the lookups).
_FRONTIER_LOOKED_AT = 20  # values a closed-world note lists before "and N more"


class Support(BaseModel):
    supported: bool
    reasons: list[str] = []
    # A False answer supported because every edge of the asked relation was read and cited (none is the
    # asked value): true of the KG as it stands, not of the world.
    closed_world: bool = False
    # What the KG lists, for a closed-world False ("the KG lists Ines Carvalho speaks: English, Spanish").
    note: str = ""
    # Names the question gives that the KG does not have (the answer is then None).
    missing: list[str] = []


def check_support(
    *,
    answer: Answer,
    question: str,
    cited: Sequence[Triple],
    entities: Iterable[str] = (),
    computations: Sequence[Computation] = (),
    kg: KnowledgeGraph | None = None,
) -> Support:
    """Whether `cited` (with the recorded computations) supports `answer` to `question`; `kg` (the graph
    the answer was drawn from) allows the checks that read it."""
    if answer is None:
        return Support(supported=False, reasons=["no answer"])
    if not cited:
        return Support(supported=False, reasons=["the answer cites no fact of the KG"])
    check = _Check(question, cited, list(entities), computations, GraphLookups(kg) if kg is not None else None)
    return check.verdict(answer)


class _Check:
    def __init__(
        self, question: str, cited: Sequence[Triple], linked: list[str], computations: Sequence[Computation], lookups: GraphLookups | None
    ) -> None:
        self.question = question
        self.cited = list(cited)
        self.keys = {triple_key(triple) for triple in cited}
        self.followed = {triple.relation for triple in cited}
        self.facts = CitedGraph(cited, computations)
        self.computations = computations
        self.lookups = lookups
        self.asked = question_entities(self.facts, question, linked, computations)
        self.written = written_names(question)
        self.written_as: dict[str, str] = {}  # folded -> as the question writes it, for names no fact cites
        kinds = (lambda word: lookups.has(word) and lookups.is_type(word)) if lookups is not None else None
        self.words = QuestionWords(question, [*self.written, *linked, *(self.facts.names[node] for node in self.asked)], kinds)

    def verdict(self, answer: bool | str) -> Support:
        reasons = [f"{c.operation}({', '.join(c.inputs)}) gives {c.output} only as recorded: re-run, it differs" for c in self.computations if not c.agrees]
        reasons += self._unlinked_memberships()
        if not self.asked:
            return Support(supported=False, reasons=[*reasons, "no cited fact mentions an entity of the question"])
        if isinstance(answer, bool):
            return self._yes_no(answer, reasons)
        reasons += self._open(str(answer))
        return Support(supported=not reasons, reasons=reasons)

    # --- open answers

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

    def _object_of(self, node: str) -> str | None:
        """The relation the question writes right before an entity of the question that the KG has as
        that relation's tail ("reports to Sarah", "part of the Trust", "depends on X"), if any."""
        assert self.lookups is not None
        name = self._shown(node)
        before = fold(self.question).split(node)[0].split() if node in fold(self.question) else []
        while before and (before[-1] in _LINKING or before[-1].endswith("ly")):  # "report directly to"
            before.pop()
        if not before:
            return None
        word = before[-1]
        for relation, direction in self.lookups.relations(name):
            words = relation_words(relation)
            if direction is Direction.IN and words and same_word(words[-1], word) and not self._mutual(name, relation):
                return relation
        return None

    def _mutual(self, name: str, relation: str) -> bool:
        """Whether the KG writes the relation both ways for this entity ("borders"): no end is the wrong one."""
        assert self.lookups is not None
        tails = {fold(edge.tail) for edge in self.lookups.edges(name, relation, Direction.OUT)}
        return any(fold(edge.head) in tails for edge in self.lookups.edges(name, relation, Direction.IN))

    def _reading(self, answer: str) -> list[str]:
        readings = name_readings(answer)
        found = [[name for name in names if self._found(name)] for names in readings]
        best = next((i for i, names in enumerate(readings) if names and len(found[i]) == len(names)), 0)
        return readings[best]

    def _found(self, name: str) -> bool:
        return self.facts.node(name) is not None or any(same_value(name, output) for output in self.facts.outputs)

    def _extreme(self, names: list[str], way: compare.Direction) -> list[str]:
        """"Which of A, B (and C) is the oldest": the one the cited values make it."""
        values = self._values(self.asked)
        if values is None:
            return ["no cited value of one relation for every entity the question compares"]
        relation, by_entity = values
        compared = [node for node in dict.fromkeys([*self.asked, *self._targets()]) if as_number(node) is None and not self._is_kind(node)]
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

    def _without(self, *relations: str) -> str:
        """The question without its names and the words of these relations ("South" in "South Sudan" and
        "first" in "first released" compare nothing)."""
        text = self.question
        for name in sorted({*self.written, *(self._shown(node) for node in self.asked)}, key=len, reverse=True):
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text, flags=re.IGNORECASE)
        for relation in relations:
            for word in relation_words(relation):
                text = re.sub(rf"\b{re.escape(word)}\b", " ", text, flags=re.IGNORECASE)
        return text

    def _compared_in_question(self, node: str) -> bool:
        return holds(fold(self.question), node)

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

    def _asked_kind(self) -> tuple[str, bool] | None:
        """What a "which/what X" question asks for, where X is an entity of the KG, and whether it is a type."""
        assert self.lookups is not None
        words = self.question.replace("?", " ").split()
        for index, word in enumerate(words):
            if word.lower() not in ("which", "what"):
                continue
            following = [w.strip(",.;:'’").lower() for w in words[index + 1 : index + 4]]
            for size in range(len(following), 0, -1):
                phrase = " ".join(following[:size])
                for candidate in (phrase, phrase[:-1] if phrase.endswith("s") else phrase):
                    if candidate and candidate not in _NOT_KINDS and self.lookups.has(candidate):
                        return candidate, self.lookups.is_type(candidate)
            return None
        return None

    # --- yes / no answers

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
        targets = self._targets()
        if answer:
            reasons += self._true(targets)
            return Support(supported=not reasons, reasons=reasons)
        if reasons:
            return Support(supported=False, reasons=reasons)
        return self._false(targets)

    def _is_kind(self, node: str) -> bool:
        """Whether the name is a kind of the KG ("office" in "which office has more desks"), not one compared."""
        return self.lookups is not None and self.lookups.is_type(self._shown(node))

    def _asks_comparison(self) -> bool:
        """Whether the question compares values: a comparative word, and two entities or a number of its own."""
        if compare.direction(self._without()) is None:
            return False
        entities = [node for node in dict.fromkeys([*self.asked, *self._targets()]) if as_number(node) is None and not self._is_kind(node)]
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

    def _values(self, nodes: Sequence[str]) -> tuple[str, dict[str, str]] | None:
        """The relation whose cited values the question compares, and each entity's value (one each). An
        entity with no value of its own stands for the one it leads to ("the organization that stewards
        Halcyra"), reached through cited facts."""
        by_relation: dict[str, dict[str, list[str]]] = {}
        for triple in self.cited:
            if compare.comparable([triple.tail]):
                by_relation.setdefault(triple.relation, {}).setdefault(fold(triple.head), []).append(triple.tail)
        fitting = []
        for relation, values in by_relation.items():
            chosen = {}
            for node in nodes:
                holder = node if node in values else self._leads_to(node, values.keys(), nodes)
                if holder is not None and len(values[holder]) == 1 and self._rival(relation, self._shown(holder)) is None:
                    chosen[node] = values[holder][0]
            if chosen:
                fitting.append((relation, chosen))
        if not fitting:
            return None
        return max(fitting, key=lambda item: (len(item[1]), self.words.fit(item[0], with_names=True)))

    def _edge_counts(self, nodes: Sequence[str]) -> tuple[str, dict[str, str]] | None:
        """"Does Montenegro border more countries than Finland?": how many edges of one relation fitting the
        question each entity has, where the citations hold every one of them (read against the KG)."""
        if self.lookups is None or len(nodes) < 2:
            return None
        for relation in dict.fromkeys(t.relation for t in self.cited):
            counts = {}
            for node in nodes:
                name = self._shown(node)
                for direction in (Direction.OUT, Direction.IN):
                    edges = self.lookups.edges(name, relation, direction)
                    if edges and all(triple_key(edge) in self.keys for edge in edges) and self._rival(relation, name) is None:
                        counts[node] = str(len(edges))
                        break
            if len(counts) == len(nodes):
                return f"number of {relation}", counts
        return None

    def _leads_to(self, node: str, holders: Iterable[str], others: Sequence[str]) -> str | None:
        distance = self.facts.reached([node])
        reached = [holder for holder in holders if holder in distance and holder not in others]
        return min(reached, key=distance.__getitem__, default=None)

    def _dated(self) -> bool:
        values = [t.tail for t in self.cited if fold(t.head) in self.asked]
        return compare.dated(values) if values else False

    def _targets(self) -> list[str]:
        """What a yes/no question is about: its entities, the KG's entities it names, the names it writes (folded)."""
        targets = [node for node in self.asked]
        if self.lookups is not None:
            for name in named_in_question(self.question, self.lookups.has):
                self.written_as.setdefault(fold(name), name)
                targets.append(fold(name))
        for name in self.written:
            folded = fold(name)
            if folded in targets:
                continue
            if self.facts.node(name) is not None or any(holds(node, folded) for node in self.facts.names):
                targets.append(self.facts.node(name) or folded)
            elif self.lookups is not None and self.lookups.has(name):
                targets.append(folded)
            self.written_as.setdefault(folded, name)
        targets = list(dict.fromkeys(targets))
        # A name only ever inside a longer one the question gives ("dermatology" in "Eastmere Dermatology
        # Clinic") is part of it; "Sudan" in "Does South Sudan border Sudan?" is a name of its own.
        question = fold(self.question)
        targets = [t for t in targets if not only_inside(question, t, [o for o in targets if o != t and holds(o, t)])]
        # A kind beside two entities says what they are compared on ("the same continent"), not what they are.
        named = [t for t in targets if not self._is_kind(t)]
        return named if len(named) >= 2 else targets

    def _reaches(self, start: str, target: str) -> bool:
        reached = self.facts.reached([start], facts_only=True)
        return target in reached or any(holds(node, target) for node in reached if node != start)

    def _true(self, targets: list[str]) -> list[str]:
        if len(targets) == 1 and self._has_named_edge(targets[0]):
            return []  # "Does Yui Yuigahama have a pet?": an edge of the relation the question names
        if len(targets) < 2:
            return [f"no cited fact links {self._shown(targets[0]) if targets else 'the question'} to what it asks"]
        anchor = targets[0]
        unlinked = [self._shown(target) for target in targets[1:] if not self._reaches(anchor, target)]
        if unlinked:
            return [f"no cited fact links {self._shown(anchor)} to {', '.join(unlinked)}"]
        nodes = {anchor, *targets}
        for target in targets[1:]:
            end = target if target in self.facts.names else next(n for n in self.facts.reached([anchor]) if holds(n, target))
            for index in self.facts.chain([anchor], end):
                fact = self.cited[index]
                nodes |= {fold(fact.head), fold(fact.tail)}
                near = fact.head if fold(fact.head) in nodes else fact.tail
                if (rival := self._rival(fact.relation, near)) is not None:
                    return [f"({fact.head}, {fact.relation}, {fact.tail}) is not what the question asks: it asks about `{rival}`"]
        return self._skipped_relations(nodes)

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

    # --- shared

    def _rival(self, relation: str, entity: str) -> str | None:
        """A relation of `entity` that fits the question clearly better than `relation` (None: it fits)."""
        if is_type_relation(relation) and self._asks_kind():
            return None
        if self.lookups is not None:
            others = [name for name, _ in self.lookups.relations(entity)]
        else:
            others = [t.relation for t in self.cited if fold(entity) in (fold(t.head), fold(t.tail))]
        # A relation the answer follows elsewhere accounts for its own words of the question ("trained" in
        # "the school Daniel trained at"): it is no rival here.
        return self.words.beaten(relation, [other for other in others if other not in self.followed])

    def _asks_kind(self) -> bool:
        """Whether a name of the question is a kind of the KG (a type relation's value is then what it asks)."""
        if self.lookups is None:
            return False
        return any(self.lookups.is_type(self.facts.names.get(target, target)) for target in self._targets())

    def _skipped_relations(self, nodes: Iterable[str]) -> list[str]:
        """A relation the question names outright (at an entity on the way, or anywhere in a KG that
        lists its relations) that no cited fact follows: a hop the answer skipped."""
        if self.lookups is None:
            return []
        relation = self._named_unfollowed(nodes, {t.relation for t in self.cited})
        return [] if relation is None else [f"the question asks about `{relation[0]}` ({relation[1]}), which no cited fact follows"]

    def _named_unfollowed(self, nodes: Iterable[str], followed: set[str]) -> tuple[str, str] | None:
        """(relation, where) for the first relation the question names that `followed` does not cover."""
        assert self.lookups is not None
        covered = [set(relation_words(name)) for name in followed]
        candidates = [(name, self._shown(node)) for node in nodes for name, _ in self.lookups.relations(self._shown(node))]
        candidates += [(name, "in the KG") for name in self.lookups.relations_sharing(self.words.words)]
        for relation, where in candidates:
            words = set(relation_words(relation))
            if relation in followed or not words or not self.words.names(relation):
                continue
            if not any(words <= cited or (cited and cited <= words) for cited in covered):
                return relation, where
        return None

    def _on_chains(self, ends: list[str]) -> set[str]:
        nodes = set(self.asked)
        for end in ends:
            for index in self.facts.chain(self.asked, end):
                nodes |= {fold(self.cited[index].head), fold(self.cited[index].tail)}
        return nodes

    def _shown(self, node: str) -> str:
        return self.facts.names.get(node) or self.written_as.get(node, node)

    def _farthest(self, distance: dict[str, int]) -> str | None:
        if not distance:
            return None
        farthest = max(distance.values())
        return self.facts.names[next(node for node in self.facts.names if distance.get(node) == farthest)]

    def _unlinked_memberships(self) -> list[str]:
        reasons = []
        for computation in self.computations:
            # Only a test that found one name in the other claims a link; one that did not claims none.
            if computation.membership and len(computation.inputs) == 2 and computation.output.strip().lower() in ("true", "yes"):
                first, second = (fold(name) for name in computation.inputs)
                if second not in self.facts.reached([first]):
                    reasons.append(f"no cited fact links {computation.inputs[0]} to {computation.inputs[1]}")
        return reasons


class _Reading:
    def __init__(self) -> None:
        self.read_any = False
        self.failure: str | None = None
        self.note: str | None = None


class _ClosedWorld:
    """A False answer's closed-world reading from one entity of the question: level by level, every edge
    of each cited relation that fits the question read in full (the KG has no other), the asked names
    never reached, and nothing the question names left unread where the reading stops."""

    def __init__(self, check: _Check, anchor: str, targets: list[str]) -> None:
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
        if check._asks_kind():
            for node in frontier:
                name = check._shown(node)
                kinds = [relation for relation, _ in lookups.relations(name) if is_type_relation(relation) and relation not in followed]
                if kinds:
                    return f"`{kinds[0]}` of {name} was not read"
        return None
