"""What a question asks, read against its answer's citations and the KG: the question's entities and the
names it writes, the relations it names outright, the kind it asks for, and whether another relation of
an entity fits it better than the one an answer followed. The rules of `open_answers` and `yes_no` ask it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cached_property

from arkg.agents.candidates import named_in_question
from arkg.agents.support import compare
from arkg.agents.support.cited import (
    CitedGraph,
    Computation,
    holds,
    only_inside,
    question_entities,
    written_names,
)
from arkg.agents.support.fit import QuestionWords, relation_words, same_word
from arkg.agents.support.lookups import GraphLookups, is_type_relation
from arkg.graph.matching import fold, name_readings, same_value
from arkg.graph.model import Direction, Triple, triple_key

# Words between a relation and its object ("reports to Sarah", "part of the Trust").
_LINKING = frozenset({"to", "by", "of", "in", "at", "on", "for", "from", "with", "under", "the", "a", "an"})
# Words after "which"/"what" that never name a kind, whatever entities the KG has.
_NOT_KINDS = frozenset({"is", "was", "are", "were", "does", "did", "do", "has", "have", "one", "ones", "kind", "type", "year"})


class AskedQuestion:
    """One answer's question, its citations and the KG (None: a result read back without it)."""

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

    def _asked_kind(self) -> tuple[str, bool] | None:
        """What a "which/what X" question asks for, where X is an entity of the KG, and whether it is a type."""
        assert self.lookups is not None
        words = self.question.replace("?", " ").replace(".", " ").split()
        for index, word in enumerate(words):
            if word.lower() not in ("which", "what", "list", "name"):
                continue
            while index + 1 < len(words) and words[index + 1].lower() in ("the", "all", "every"):
                index += 1  # "List the contractors"
            following = [w.strip(",.;:'’").lower() for w in words[index + 1 : index + 4]]
            for size in range(len(following), 0, -1):
                phrase = " ".join(following[:size])
                for candidate in (phrase, phrase[:-1] if phrase.endswith("s") else phrase):
                    if candidate and candidate not in _NOT_KINDS and self.lookups.has(candidate):
                        return candidate, self.lookups.is_type(candidate)
            return None
        return None

    def _is_kind(self, node: str) -> bool:
        """Whether the name is a kind of the KG ("office" in "which office has more desks"), not one compared."""
        return self.lookups is not None and self.lookups.is_type(self._shown(node))

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
        best = max(fitting, key=lambda item: (len(item[1]), self.words.fit(item[0], with_names=True)))
        # Several relations to compare and the question names none ("greater longevity" over dates of birth
        # and death): which one it means is commonsense, not a cited value.
        if len(fitting) > 1 and self.words.fit(best[0], with_names=True) == 0:
            return None
        return best

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

    @cached_property
    def targets(self) -> list[str]:
        """What a yes/no question is about: its entities, the KG's entities it names, the names it writes
        (folded); worked out once per check, the rules ask it again and again."""
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

    def _rival(self, relation: str, entity: str) -> str | None:
        """A relation of `entity` that fits the question clearly better than `relation` (None: it fits)."""
        if is_type_relation(relation) and self.asks_kind:
            return None
        if self.lookups is not None:
            others = [name for name, _ in self.lookups.relations(entity)]
        else:
            others = [t.relation for t in self.cited if fold(entity) in (fold(t.head), fold(t.tail))]
        # A relation the answer follows elsewhere accounts for its own words of the question ("trained" in
        # "the school Daniel trained at"): it is no rival here.
        return self.words.beaten(relation, [other for other in others if other not in self.followed])

    @cached_property
    def asks_kind(self) -> bool:
        """Whether a name of the question is a kind of the KG (a type relation's value is then what it asks)."""
        if self.lookups is None:
            return False
        return any(self.lookups.is_type(self.facts.names.get(target, target)) for target in self.targets)

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
