"""The cited facts as a graph over names, and the names a question writes out.

`facts_on_chains` picks, among cited facts, those on a shortest chain from an entity of the question
to each name an open answer gives: what a strategy whose model cites everything it was shown can cite
instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel
from rapidfuzz import fuzz, process

from arkg.graph.matching import SAME_NAME, as_number, fold, name_readings
from arkg.graph.model import Triple

Answer = bool | str | None


class Computation(BaseModel):
    """One operation a strategy ran over values (ARK's computed lines, KG-Agent's count and judge)."""

    operation: str  # as the strategy writes it: "judge contains", "count", "ordering"
    inputs: list[str]
    output: str
    # Running the operation again on `inputs` gives `output` (the strategy re-runs it when recording).
    agrees: bool = True
    # A test of one name containing or being part of another: it says something about the KG only
    # where a cited fact links the two names.
    membership: bool = False


class CitedGraph:
    """The cited triples as an undirected graph over folded names; a prop value hangs on both ends of
    its triple, and a computation links its inputs to its output."""

    def __init__(self, cited: Sequence[Triple], computations: Sequence[Computation]) -> None:
        self.names: dict[str, str] = {}  # folded -> as written
        self._folded: dict[str, str] = {}  # as written -> folded
        self.links: dict[str, set[str]] = {}
        self.fact_links: dict[str, set[str]] = {}  # the links cited facts make (no computation's)
        self.ends: set[str] = set()  # heads and tails (folded): what a prop value alone is not
        self.made_by: dict[tuple[str, str], int] = {}  # a link, either way -> the cited fact that first made it
        self.outputs = [c.output for c in computations if c.agrees]
        self._searches: dict[tuple[tuple[str, ...], bool], dict[str, tuple[int, str | None]]] = {}
        for index, triple in enumerate(cited):
            ends = [triple.head, triple.tail]
            self.ends.update(fold(end) for end in ends)
            for value in triple.props.values():
                for item in value if isinstance(value, list) else [value]:
                    self._link(ends, str(item), index)
            self._link([triple.head], triple.tail, index)
        for computation in computations:
            if computation.agrees and not computation.membership:
                self._link(computation.inputs, computation.output, None)

    def _link(self, ends: Sequence[str], other: str, fact: int | None) -> None:
        folded_other = self._add(other)
        for end in ends:
            folded_end = self._add(end)
            self.links.setdefault(folded_end, set()).add(folded_other)
            self.links.setdefault(folded_other, set()).add(folded_end)
            if fact is not None:
                self.fact_links.setdefault(folded_end, set()).add(folded_other)
                self.fact_links.setdefault(folded_other, set()).add(folded_end)
                self.made_by.setdefault((folded_end, folded_other), fact)
                self.made_by.setdefault((folded_other, folded_end), fact)

    def _add(self, name: str) -> str:
        folded = self._folded.get(name)
        if folded is None:
            folded = self._folded[name] = fold(name)
            self.names.setdefault(folded, name)
        return folded

    def node(self, name: str) -> str | None:
        """The cited name (folded) that `name` names, if any: exactly, or written slightly differently."""
        folded = fold(name)
        if folded in self.names:
            return folded
        number = as_number(name)
        if number is not None:
            return next((node for node, written in self.names.items() if as_number(written) == number), None)
        match = process.extractOne(folded, self.names.keys(), scorer=fuzz.ratio, processor=None, score_cutoff=SAME_NAME)
        return match[0] if match else None

    def mentions(self, name: str) -> bool:
        """Whether a cited name is `name`, or holds it as a whole word ("Curie" in "Marie Curie")."""
        folded = fold(name)
        return self.node(name) is not None or any(holds(node, folded) or holds(folded, node) for node in self.names)

    def reached(self, starts: Iterable[str], facts_only: bool = False) -> dict[str, int]:
        """Breadth-first distance of every name reachable from `starts` (`facts_only`: through cited facts
        alone: two counts that both give 1 link nothing)."""
        return {node: distance for node, (distance, _) in self._search(starts, facts_only).items()}

    def chain(self, starts: Iterable[str], target: str, facts_only: bool = False) -> list[int]:
        """The cited facts along one shortest chain from `starts` to `target` (empty: none reaches it)."""
        found = self._search(starts, facts_only)
        facts: list[int] = []
        node = target
        while node in found and (previous := found[node][1]) is not None:
            if (previous, node) in self.made_by:  # a computation's link is no fact
                facts.append(self.made_by[previous, node])
            node = previous
        return facts[::-1]

    def _search(self, starts: Iterable[str], facts_only: bool = False) -> dict[str, tuple[int, str | None]]:
        """Breadth-first: each name reachable from `starts`, its distance and the name it was reached from
        (the graph never changes: each search is made once)."""
        key = (tuple(starts), facts_only)
        if key not in self._searches:
            self._searches[key] = self._breadth_first(key[0], self.fact_links if facts_only else self.links)
        return self._searches[key]

    def _breadth_first(self, starts: tuple[str, ...], links: dict[str, set[str]]) -> dict[str, tuple[int, str | None]]:
        found: dict[str, tuple[int, str | None]] = {start: (0, None) for start in starts if start in links}
        frontier = list(found)
        while frontier:
            following = []
            for node in frontier:
                for neighbour in sorted(links[node] - found.keys()):
                    found[neighbour] = (found[node][0] + 1, node)
                    following.append(neighbour)
            frontier = following
        return found


def facts_on_chains(*, answer: Answer, question: str, cited: Sequence[Triple], entities: Iterable[str] = ()) -> list[int]:
    """The positions in `cited` of the facts on a shortest chain from an entity of the question to each
    name an open answer gives, in citation order; empty for True / False (a chain between the question's
    own entities need not be the fact asked about: a spouse, not two dates of birth), for no answer, and
    where no chain reaches every name."""
    if answer is None or isinstance(answer, bool) or not cited:
        return []
    facts = CitedGraph(cited, ())
    asked = question_entities(facts, question, entities, ())
    readings = name_readings(str(answer))
    names = next((names for names in readings if names and all(facts.node(name) for name in names)), [])
    chains = [facts.chain(asked, node) for name in names if (node := facts.node(name)) is not None]
    return sorted({fact for chain in chains for fact in chain}) if chains and all(chains) else []


def question_entities(facts: CitedGraph, question: str, linked: Iterable[str], computations: Sequence[Computation]) -> list[str]:
    """The cited names (folded) that are entities of the question: linked by the strategy, or written in it."""
    asked = [node for name in linked if (node := facts.node(name)) is not None]
    folded_question = fold(question)
    # A prop value the question happens to write ("contributors", a unit) is no entity of it.
    asked += [node for node in facts.names if node in facts.ends and holds(folded_question, node)]
    asked += [node for c in computations for name in c.inputs if holds(folded_question, fold(name)) and (node := facts.node(name))]
    asked = list(dict.fromkeys(asked))
    # "New Zealand" inside "the New Zealand Dollar" is part of that name, not an entity of the question.
    return [node for node in asked if not only_inside(folded_question, node, [other for other in asked if other != node and holds(other, node)])]


def only_inside(text: str, name: str, longer: list[str]) -> bool:
    """Whether every occurrence of `name` in `text` lies within an occurrence of one of `longer`."""
    if not longer:
        return False
    spans = [found.span() for other in longer for found in re.finditer(rf"(?<!\w){re.escape(other)}(?!\w)", text)]
    own = [found.span() for found in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text)]
    return bool(own) and all(any(a <= start and end <= b for a, b in spans) for start, end in own)


# Words that open a question or claim with a capital letter without naming anything.
_OPENERS = {
    "is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "can", "could", "will", "would",
    "which", "what", "who", "whom", "whose", "when", "where", "how", "in", "on", "the", "a", "an", "of", "true",
    "false", "yes", "no", "according", "name", "list", "give", "i", "if", "at", "should", "suppose", "given",
    "assuming", "for", "to", "by", "from", "with", "after", "before", "during", "since", "as", "it", "there",
}
_CAPITALISED_RUN = re.compile(r"[A-ZÀ-Þ][\w'’.\u0300-\u036f-]*(?:\s+(?:of|de|la|le|von|van|the|del|da|du)?\s*[A-ZÀ-Þ0-9][\w'’.\u0300-\u036f-]*)*")


def written_names(question: str) -> list[str]:
    """Names the question writes out: runs of capitalised words, the opening question word aside."""
    names = []
    for match in _CAPITALISED_RUN.finditer(question):
        words = match.group().rstrip(".").split()
        while words and words[0].lower() in _OPENERS:
            words = words[1:]
        if words and len(" ".join(words)) > 1:
            names.append(" ".join(words))
    return names


def holds(text: str, name: str) -> bool:
    """Whether folded `text` holds folded `name` as whole words (a plain scan: one regex per cited name
    would be compiled anew for every check once Python's pattern cache is full)."""
    if not name:
        return False
    start = text.find(name)
    while start != -1:
        end = start + len(name)
        if (start == 0 or not _word_char(text[start - 1])) and (end == len(text) or not _word_char(text[end])):
            return True
        start = text.find(name, start + 1)
    return False


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


__all__ = ["CitedGraph", "Computation", "facts_on_chains", "holds", "question_entities", "written_names"]
