"""The SPARQL side of bench/kg_ops.py: the synthetic graph as Wikidata-shaped RDF, served by oxigraph.

Every edge becomes a direct claim (wdt:) plus a statement (p:/ps:) whose props are qualifiers (pq:),
every name an English rdfs:label, so a `SparqlGraph` over it answers exactly like the SQLite store
loaded from the same JSON Lines.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from arkg.graph.sparql import SparqlClient, SparqlGraph
from arkg.graph.sparql.local_server import serve_rdf
from arkg.graph.sparql.schema import RDFS_LABEL, WD, WIKIBASE
from arkg.graph.sparql.terms import Term

WDT, P, PS, PQ = (f"http://www.wikidata.org/prop/{part}" for part in ("direct/", "", "statement/", "qualifier/"))
WDS = "http://www.wikidata.org/entity/statement/"


class _Ids:
    """Hands out Wikidata-style ids (Q1, Q2, ... or P1, ...) and writes each one's label once."""

    def __init__(self, letter: str, out: TextIO, describe: Callable[[TextIO, str, str], None]) -> None:
        self.letter, self.out, self.describe = letter, out, describe
        self.ids: dict[str, str] = {}

    def __call__(self, name: str) -> str:
        if name not in self.ids:
            self.ids[name] = f"{self.letter}{len(self.ids) + 1}"
            self.describe(self.out, self.ids[name], name)
        return self.ids[name]


def _item(out: TextIO, qid: str, name: str) -> None:
    out.write(f"<{WD}{qid}> <{RDFS_LABEL}> {Term.literal(name, lang='en').sparql()} .\n")


def _property(out: TextIO, pid: str, name: str) -> None:
    _item(out, pid, name)
    for link, namespace in (("directClaim", WDT), ("claim", P), ("statementProperty", PS), ("qualifier", PQ)):
        out.write(f"<{WD}{pid}> <{WIKIBASE}{link}> <{namespace}{pid}> .\n")


def write_wikidata_rdf(source: Path, target: Path) -> None:
    """Write the JSON Lines graph `source` as Wikidata-shaped N-Triples."""
    with source.open(encoding="utf-8") as records, target.open("w", encoding="utf-8") as out:
        item, prop = _Ids("Q", out, _item), _Ids("P", out, _property)
        for number, line in enumerate(records):
            record = json.loads(line)
            head, relation, tail = item(record["head"]), prop(record["relation"]), item(record["tail"])
            statement = f"<{WDS}S{number}>"
            out.write(f"<{WD}{head}> <{WDT}{relation}> <{WD}{tail}> .\n")
            out.write(f"<{WD}{head}> <{P}{relation}> {statement} .\n{statement} <{PS}{relation}> <{WD}{tail}> .\n")
            for key, value in (record.get("props") or {}).items():
                out.write(f"{statement} <{PQ}{prop(key)}> {Term.literal(str(value)).sparql()} .\n")


@contextmanager
def served_as_wikidata(source: Path, scratch: Path) -> Iterator[SparqlGraph]:
    """A SparqlGraph over the graph in `source`, served by a local oxigraph; client cache off, so
    every call reaches the server (only the memo of labels already seen stays on)."""
    rdf = scratch / "graph.nt"
    write_wikidata_rdf(source, rdf)
    with serve_rdf(rdf, scratch, deadline_s=600) as url:
        yield SparqlGraph(SparqlClient(url, cache_size=0), "wikidata")
