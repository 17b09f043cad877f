"""SparqlGraph: the KnowledgeGraph protocol over a SPARQL 1.1 endpoint.

Entities and relations are addressed by their display names (see `Schema.display_name`), so answers
match those of the embedded store loaded with the same facts; a name resolves to every node that
bears it, and literal tails are found by the values they render to.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from arkg.graph.matching import fold, rank
from arkg.graph.model import Direction, KGStats, Match, PropValue, Triple, triple_key
from arkg.graph.sparql.client import Row, SparqlClient
from arkg.graph.sparql.schema import Schema, literal_candidates, make_schema, prop_value, render_literal
from arkg.graph.sparql.terms import Term, UnsafeTermError

_Claim = tuple[Term, Term, Term]
_T = TypeVar("_T")


class SparqlGraph:
    """A knowledge graph served by a SPARQL endpoint, read through a schema (Wikidata or generic RDF).

    `languages` (the label fallback chain) applies when `schema` is given by name. Searching is
    portable rather than fast: candidates come from a bounded label CONTAINS query
    (no full-text service is assumed), re-ranked with rapidfuzz; literal tails are not searched.
    """

    def __init__(
        self,
        endpoint: str | SparqlClient,
        schema: str | Schema = "wikidata",
        *,
        languages: Sequence[str] = ("en",),
        batch_size: int = 200,
        search_limit: int = 500,
    ) -> None:
        self.client = endpoint if isinstance(endpoint, SparqlClient) else SparqlClient(endpoint)
        self._owns_client = self.client is not endpoint  # a client handed in is its owner's to close
        self.schema = schema if isinstance(schema, Schema) else make_schema(schema, languages)
        self.batch_size = batch_size
        self.search_limit = search_limit
        self._name_of: dict[str, str] = {}

    # -- names ---------------------------------------------------------------------------------

    def names(self, terms: Iterable[Term]) -> dict[Term, str]:
        """Display names of terms; labels of IRIs not seen before are fetched in VALUES batches."""
        wanted = set(terms)
        unknown = sorted({t.value for t in wanted if t.is_iri and t.value not in self._name_of})
        for start in range(0, len(unknown), self.batch_size):
            batch = unknown[start : start + self.batch_size]
            labels: dict[str, list[Term]] = {iri: [] for iri in batch}
            for row in self.client.select(self.schema.labels_query([Term.iri(iri) for iri in batch])):
                labels[row["x"].value].append(row["l"])
            for iri, found in labels.items():
                self._name_of[iri] = self.schema.display_name(iri, found)
        return {t: self._name_of[t.value] if t.is_iri else render_literal(t) for t in wanted}

    def nodes(self, name: str) -> list[Term]:
        """Every RDF term that `name` addresses: nodes bearing it as display name, ids, literals."""
        if not isinstance(name, str) or not name:
            return []
        try:
            found = self._bearing(name, self.client.select(self.schema.label_match_query(name)))
            local_query = self.schema.local_name_query(name)
            if not found and local_query is not None:  # a scan: only when no label matched
                found = self._bearing(name, self.client.select(local_query))
            found |= set(self.schema.id_terms(name))
            return sorted(found, key=_term_key) + literal_candidates(name, self.schema.languages)
        except UnsafeTermError:  # text no IRI or literal can hold names nothing in the graph
            return []

    def _bearing(self, name: str, rows: list[Row]) -> set[Term]:
        """The IRIs among the rows' ?x whose display name is `name`."""
        names = self.names(row["x"] for row in rows if row["x"].is_iri)
        return {term for term, shown in names.items() if shown == name}

    # -- the KnowledgeGraph protocol ---------------------------------------------------------------

    def is_head(self, entity: str) -> bool:
        nodes = [t for t in self.nodes(entity) if t.is_iri]
        return bool(nodes) and self.client.ask(self.schema.has_out_query(nodes))

    def has_entity(self, entity: str) -> bool:
        nodes = self.nodes(entity)
        return bool(nodes) and self.client.ask(self.schema.touches_query(nodes))

    def relations(self, entity: str, direction: Direction = Direction.OUT) -> list[str]:
        nodes = self.nodes(entity)
        terms = [p for one in _directions(direction) for p in self._relation_terms(nodes, one)]
        return sorted(set(self.names(terms).values()))

    def triples(self, entity: str, relation: str, direction: Direction = Direction.OUT) -> list[Triple]:
        nodes = self.nodes(entity)
        claims: list[Row] = []
        for one in _directions(direction):
            candidates = self._relation_terms(nodes, one)
            names = self.names(candidates)
            wanted = [p for p in candidates if names[p] == relation]
            if wanted:
                claims += self.claims(nodes, one, wanted)
        return self.edges_from_claims(claims)

    def claims(self, nodes: list[Term], direction: Direction, relations: list[Term] | None = None) -> list[Row]:
        """Claim rows (?s ?p ?o) of resolved nodes in one direction (OUT or IN), of `relations` unless None."""
        nodes = _endpoints(nodes, direction)
        return self.client.select(self.schema.claims_query(nodes, direction, relations)) if nodes else []

    def search_entities(self, text: str, k: int = 5) -> list[Match]:
        fragments = _fragments(text)
        if not fragments or k <= 0:
            return []
        try:
            rows = self.client.select(self.schema.search_query(fragments, self.search_limit))
        except UnsafeTermError:
            return []
        exact = [term for term in self.nodes(text) if term.is_iri]  # never crowded out by the LIMIT
        labelled = sorted({row["x"] for row in rows if row["x"].is_iri} | set(exact), key=_term_key)
        on_edges = [
            row["x"]
            for start in range(0, len(labelled), self.batch_size)
            for row in self.client.select(self.schema.touching_query(labelled[start : start + self.batch_size]))
        ]
        return rank(text, self.names(on_edges).values(), k)

    def search_relations(
        self, entity: str, text: str, k: int = 5, direction: Direction = Direction.OUT
    ) -> list[Match]:
        return rank(text, self.relations(entity, direction), k)

    def stats(self) -> KGStats:
        (counts,) = self.client.select(self.schema.counts_query())
        (entities,) = self.client.select(self.schema.entity_count_query())
        triples = int(counts["claims"].value)
        statement_query = self.schema.statement_counts_query()
        if statement_query is not None:  # a claim counts once per statement behind it
            (stated,) = self.client.select(statement_query)
            statements = stated.get("statements")  # SUM over no statements may come back unbound
            triples += (int(statements.value) if statements else 0) - int(stated["stated"].value)
        return KGStats(
            triples=triples,
            entities=int(entities["entities"].value),
            heads=int(counts["heads"].value),
            relations=int(counts["relations"].value),
        )

    def close(self) -> None:
        self._name_of.clear()
        if self._owns_client:
            self.client.close()

    # -- helpers -----------------------------------------------------------------------------------

    def _relation_terms(self, nodes: list[Term], direction: Direction) -> list[Term]:
        nodes = _endpoints(nodes, direction)
        if not nodes:
            return []
        return [row["p"] for row in self.client.select(self.schema.relations_query(nodes, direction))]

    def edges_from_claims(self, claims: list[Row]) -> list[Triple]:
        """Claims as triples: one per statement behind a claim (its qualifiers as props), or one
        without props for a claim without statements. Statements and qualifiers are fetched in
        VALUES batches keyed by the claims."""
        behind: dict[_Claim, list[Term]] = {(row["s"], row["p"], row["o"]): [] for row in claims}
        pairs = sorted({(head, relation) for head, relation, _ in behind}, key=lambda pair: (pair[0].value, pair[1].value))
        for row in self._batched(self.schema.statements_query, pairs):
            found = behind.get((row["s"], row["p"], row["o"]))
            if found is not None and row["st"] not in found:
                found.append(row["st"])
        qualifiers: dict[Term, dict[Term, set[Term]]] = {}
        statements = sorted({st for found in behind.values() for st in found if st.is_iri}, key=_term_key)
        for row in self._batched(self.schema.qualifiers_query, statements):
            qualifiers.setdefault(row["st"], {}).setdefault(row["q"], set()).add(row["qv"])
        edges = [
            (claim, qualifiers.get(statement, {}) if statement is not None else {})
            for claim, found in behind.items()
            for statement in (found or [None])
        ]
        names = self.names(
            term
            for claim, props in edges
            for term in (*claim, *props, *(value for found in props.values() for value in found))
        )
        result = []
        for (head, relation, tail), props in edges:
            merged: dict[str, list[PropValue]] = {}
            for key, found in props.items():
                merged.setdefault(names[key], []).extend(prop_value(value, names[value]) for value in found)
            result.append(
                Triple(names[head], names[relation], names[tail], {key: _one(vs) for key, vs in sorted(merged.items())})
            )
        return sorted(result, key=triple_key)

    def _batched(self, build: Callable[[list[_T]], str | None], items: list[_T]) -> Iterator[Row]:
        """Rows of the query `build` makes for each batch of items (none when it makes no query)."""
        for start in range(0, len(items), self.batch_size):
            query = build(items[start : start + self.batch_size])
            if query is None:
                return
            yield from self.client.select(query)


def _one(found: list[PropValue]) -> PropValue:
    """A qualifier with several values becomes one prop, its values joined in a stable order."""
    if len(found) == 1:
        return found[0]
    return "; ".join(sorted(str(value) for value in found))


def _term_key(term: Term) -> tuple[str, str]:
    return term.kind, term.value


def _endpoints(nodes: list[Term], direction: Direction) -> list[Term]:
    """The nodes that can be at this end of an edge: literals are never heads."""
    return [node for node in nodes if node.is_iri] if direction is Direction.OUT else nodes


def _directions(direction: Direction) -> tuple[Direction, ...]:
    return (Direction.OUT, Direction.IN) if direction is Direction.BOTH else (direction,)


def _fragments(text: str, most: int = 4, prefix: int = 4) -> list[str]:
    """Lower-case pieces of `text` to look for inside labels: the starts of its longest words.

    Word starts rather than whole words, in the typed and the accent-folded spelling, so that
    "Sable" finds "Sablé" and a typo late in a word still finds the label. Words of one or two
    letters are used only when there is nothing longer: they match too many labels.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    pieces = set()
    for form in (text.strip().lower(), fold(text)):
        words = sorted(set(re.findall(r"\w+", form)), key=lambda word: (-len(word), word))
        useful = [word for word in words if len(word) >= 3] or words
        pieces.update(word[:prefix] for word in useful[:most])
        if not words:
            pieces.add(form)
    return sorted(pieces)
