"""How a graph is laid out in RDF: the SPARQL patterns and names of the Wikidata and generic schemas.

A schema turns the property-graph view (entity names, relation labels, edges with props) into SPARQL
query text and back. Query builders take `Term`s only, so every value is escaped on the way in.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from arkg.errors import SpecError
from arkg.graph.model import Direction, PropValue
from arkg.graph.sparql.terms import XSD, Term, UnsafeTermError, check_language, is_valid_iri, values

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
WD = "http://www.wikidata.org/entity/"
WIKIBASE = "http://wikiba.se/ontology#"

_NUMERIC_TYPES = frozenset(
    XSD + name
    for name in (
        "decimal integer double float int long short byte nonNegativeInteger positiveInteger "
        "negativeInteger nonPositiveInteger unsignedInt unsignedLong unsignedShort unsignedByte"
    ).split()
)
_MIDNIGHT = re.compile(r"\+?(-?\d{4,}-\d{2}-\d{2})T00:00:00(?:Z|[+-]00:00)?", re.ASCII)
_DATE = re.compile(r"-?\d{4,}-\d{2}-\d{2}", re.ASCII)
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?\d*\.\d+", re.ASCII)


def render_literal(term: Term) -> str:
    """A literal as a person would write it: dates at midnight as YYYY-MM-DD, numbers without noise."""
    if term.datatype == XSD + "dateTime" and (midnight := _MIDNIGHT.fullmatch(term.value)):
        return midnight.group(1)
    if term.datatype in _NUMERIC_TYPES:
        number = _number(term.value)
        if number is not None:
            return str(number)
    return term.value


def prop_value(term: Term, name: str) -> PropValue:
    """A qualifier value as an edge prop: numbers stay numbers, everything else is rendered text."""
    if term.is_literal and term.datatype in _NUMERIC_TYPES:
        number = _number(term.value)
        if number is not None:
            return number
    return name


def _number(lexical: str) -> int | float | None:
    try:
        value = Decimal(lexical)
    except InvalidOperation:
        return None
    if not value.is_finite() or abs(value.adjusted()) > 30:  # keep huge exponents as written
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def literal_candidates(name: str, languages: Sequence[str]) -> list[Term]:
    """The literals that `render_literal` would show as `name` (so literal tails can be looked up)."""
    candidates = [Term.literal(name)] + [Term.literal(name, lang=lang) for lang in languages]
    if _DATE.fullmatch(name):
        candidates += [
            Term.literal(f"{name}T00:00:00Z", datatype=XSD + "dateTime"),
            Term.literal(name, datatype=XSD + "date"),
        ]
    elif _INTEGER.fullmatch(name):
        candidates += [Term.literal(name, datatype=XSD + kind) for kind in ("decimal", "integer")]
    elif _DECIMAL.fullmatch(name):
        candidates += [Term.literal(name, datatype=XSD + kind) for kind in ("decimal", "double")]
    return candidates


class Schema(ABC):
    """Query builders shared by both schemas; subclasses say what a claim and its statements look like.

    `languages` is the label fallback chain: an entity's name is its label in the first language
    that has one, then an untagged label, then `fallback_name` (an id or local name).

    Every query starts from bound nodes (VALUES) so that engines walk indexes instead of joining
    whole predicates: VALUES are repeated inside UNION branches (engines such as oxigraph do not push
    outer bindings into them), and statements and qualifiers are asked for in separate queries
    keyed by the claims and statements found, rather than through OPTIONAL joins.
    """

    def __init__(self, languages: Sequence[str] = ("en",)) -> None:
        if not languages:
            raise UnsafeTermError("the label language chain is empty")
        self.languages = tuple(check_language(lang) for lang in languages)

    @abstractmethod
    def claim(self, s: str, p: str, o: str) -> str:
        """A pattern binding the variables s, p, o to each edge's head, relation term and tail."""

    def statement(self) -> str | None:
        """A pattern binding ?st to each statement with value ?o behind the claims of ?s and ?p
        (parallel edges told apart by their props); None when the schema has no statements."""
        return None

    def qualifier(self) -> str | None:
        """A pattern binding ?q (a relation term) and ?qv to the props of statement ?st."""
        return None

    @abstractmethod
    def id_terms(self, name: str) -> list[Term]:
        """Nodes that `name` addresses directly as an identifier (Q42, a full IRI)."""

    def local_name_query(self, name: str) -> str | None:
        """A query for nodes without a label whose fallback name may be `name`; None if there are none."""
        return None

    @abstractmethod
    def fallback_name(self, iri: str) -> str:
        """The name of a node that has no label in the chain."""

    def display_name(self, iri: str, labels: list[Term]) -> str:
        by_language: dict[str, list[str]] = {}
        for label in labels:
            by_language.setdefault(label.lang or "", []).append(label.value)
        for lang in (*self.languages, ""):
            if lang in by_language:
                return min(by_language[lang])
        return self.fallback_name(iri)

    def _label_filter(self, var: str) -> str:
        allowed = ", ".join(Term.literal(lang).sparql() for lang in (*self.languages, ""))
        return f"FILTER(LANG({var}) IN ({allowed}))"

    def labels_query(self, nodes: list[Term]) -> str:
        return f"SELECT ?x ?l WHERE {{ {values('x', nodes)} ?x <{RDFS_LABEL}> ?l . {self._label_filter('?l')} }}"

    def label_match_query(self, name: str) -> str:
        labels = [Term.literal(name)] + [Term.literal(name, lang=lang) for lang in self.languages]
        return f"SELECT DISTINCT ?x WHERE {{ {values('l', labels)} ?x <{RDFS_LABEL}> ?l . }}"

    def _touching(self, nodes: list[Term]) -> str:
        bound = values("x", nodes)
        return f"{{ {bound} {self.claim('?x', '?p', '?o')} }} UNION {{ {bound} {self.claim('?s', '?p', '?x')} }}"

    def touches_query(self, nodes: list[Term]) -> str:
        return f"ASK {{ {self._touching(nodes)} }}"

    def touching_query(self, nodes: list[Term]) -> str:
        """Which of the nodes are head or tail of some edge."""
        return f"SELECT DISTINCT ?x WHERE {{ {self._touching(nodes)} }}"

    def has_out_query(self, nodes: list[Term]) -> str:
        return f"ASK {{ {values('s', nodes)} {self.claim('?s', '?p', '?o')} }}"

    def relations_query(self, nodes: list[Term], direction: Direction) -> str:
        bound = "s" if direction is Direction.OUT else "o"
        return f"SELECT DISTINCT ?p WHERE {{ {values(bound, nodes)} {self.claim('?s', '?p', '?o')} }}"

    def claims_query(self, nodes: list[Term], direction: Direction, relations: list[Term] | None = None) -> str:
        """The claims (?s ?p ?o) of the nodes in one direction (OUT or IN), of `relations` unless None."""
        bound = values("s" if direction is Direction.OUT else "o", nodes)
        if relations is not None:
            bound += " " + values("p", relations)
        return f"SELECT ?s ?p ?o WHERE {{ {bound} {self.claim('?s', '?p', '?o')} }}"

    def statements_query(self, heads_and_relations: list[tuple[Term, Term]]) -> str | None:
        """The statements (?s ?p ?o ?st) behind the claims of these (head, relation) pairs."""
        statement = self.statement()
        if statement is None or not heads_and_relations:
            return None
        pairs = " ".join(f"({head.sparql()} {relation.sparql()})" for head, relation in heads_and_relations)
        return f"SELECT ?s ?p ?o ?st WHERE {{ VALUES (?s ?p) {{ {pairs} }} {statement} }}"

    def qualifiers_query(self, statements: list[Term]) -> str | None:
        """The props (?st ?q ?qv) of these statements."""
        qualifier = self.qualifier()
        if qualifier is None or not statements:
            return None
        return f"SELECT ?st ?q ?qv WHERE {{ {values('st', statements)} {qualifier} }}"

    def counts_query(self) -> str:
        return (
            "SELECT (COUNT(*) AS ?claims) (COUNT(DISTINCT ?s) AS ?heads) (COUNT(DISTINCT ?p) AS ?relations) "
            f"WHERE {{ {self.claim('?s', '?p', '?o')} }}"
        )

    def statement_counts_query(self) -> str | None:
        """How many claims have statements (?stated) and how many statements they have (?statements)."""
        statement = self.statement()
        if statement is None:
            return None
        return (
            "SELECT (COUNT(*) AS ?stated) (SUM(?n) AS ?statements) WHERE { "
            f"SELECT ?s ?p ?o (COUNT(DISTINCT ?st) AS ?n) WHERE {{ {self.claim('?s', '?p', '?o')} {statement} }} "
            "GROUP BY ?s ?p ?o }"
        )

    def entity_count_query(self) -> str:
        return (
            f"SELECT (COUNT(DISTINCT ?x) AS ?entities) WHERE {{ {{ {self.claim('?x', '?p', '?o')} }} "
            f"UNION {{ {self.claim('?s', '?p', '?x')} }} }}"
        )

    def search_query(self, fragments: list[str], limit: int) -> str:
        """Labelled nodes whose label contains one of the (lower-case) fragments: a scan, bounded."""
        contains = " || ".join(f"CONTAINS(LCASE(STR(?l)), {Term.literal(text).sparql()})" for text in fragments)
        return (
            f"SELECT DISTINCT ?x WHERE {{ ?x <{RDFS_LABEL}> ?l . {self._label_filter('?l')} FILTER({contains}) }} "
            f"LIMIT {int(limit)}"
        )


class WikidataSchema(Schema):
    """Wikidata's RDF: direct claims (wdt:) are edges, statement qualifiers (p:/ps:/pq:) their props.

    Properties are found through the wikibase ontology (wikibase:directClaim, claim, statementProperty,
    qualifier), as on query.wikidata.org. A claim is one edge per non-deprecated statement with its
    value, or one edge without props when it has no such statement.
    """

    _ID = re.compile(r"[QPL][1-9][0-9]*")

    def claim(self, s: str, p: str, o: str) -> str:
        link = f"{p}Direct"
        return f"{p} <{WIKIBASE}directClaim> {link} . {s} {link} {o} ."

    def statement(self) -> str:
        return (
            f"?p <{WIKIBASE}claim> ?claimLink ; <{WIKIBASE}statementProperty> ?valueLink . "
            f"?s ?claimLink ?st . ?st ?valueLink ?o . "
            f"FILTER NOT EXISTS {{ ?st <{WIKIBASE}rank> <{WIKIBASE}DeprecatedRank> }}"
        )

    def qualifier(self) -> str:
        return f"?st ?qualifierLink ?qv . ?q <{WIKIBASE}qualifier> ?qualifierLink ."

    def id_terms(self, name: str) -> list[Term]:
        return [Term.iri(WD + name)] if self._ID.fullmatch(name) else []

    def fallback_name(self, iri: str) -> str:
        return iri.removeprefix(WD) if iri.startswith(WD) else iri


class RdfSchema(Schema):
    """Any RDF graph: every triple between non-blank nodes is an edge (rdfs:label triples name nodes).

    Edges carry no props (RDF-star and reification are not read). A node without a label is named
    by its local name (after the last '#' or '/'); a full IRI addresses a node directly.
    """

    def claim(self, s: str, p: str, o: str) -> str:
        return f"{s} {p} {o} . FILTER({p} != <{RDFS_LABEL}> && !isBlank({s}) && !isBlank({o}))"

    def id_terms(self, name: str) -> list[Term]:
        return [Term.iri(name)] if is_valid_iri(name) and "/" in name else []

    def local_name_query(self, name: str) -> str | None:
        if not name or "/" in name or "#" in name:
            return None
        endings = " || ".join(
            f"STRENDS(STR(?x), {Term.literal(sep + name).sparql()})" for sep in ("/", "#")
        )
        return (
            f"SELECT DISTINCT ?x WHERE {{ {{ ?x ?p ?o }} UNION {{ ?s ?p ?x }} "
            f"FILTER(isIRI(?x) && ({endings})) }} LIMIT 100"
        )

    def fallback_name(self, iri: str) -> str:
        local = re.split(r"[#/]", iri)[-1]
        return local or iri


SCHEMAS: dict[str, type[Schema]] = {"wikidata": WikidataSchema, "rdf": RdfSchema}


def make_schema(name: str, languages: Sequence[str] = ("en",)) -> Schema:
    try:
        return SCHEMAS[name](languages)
    except KeyError:
        raise SpecError(f"unknown SPARQL schema {name!r} (choose from {', '.join(SCHEMAS)})") from None
