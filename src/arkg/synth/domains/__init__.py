"""Small fictional KGs of many domains, and questions over them with gold programs, answers and
evidence, so that a model learns to read a KG rather than one domain's facts.

    graphs = build_domains(TRAINING_DOMAINS[:4], seed=0)      # one shared pool of names
    questions = generate_questions(graphs[0], seed=0)

The training domains feed `arkg synth --domains N` (arkg.synth.sources.domains); the held-out ones
are written out as a KG file and a question file each (`write_held_out`), to evaluate on domains
whose relations and entity types no training pair has seen. docs/synth-domains.md lists both.
"""

from __future__ import annotations

from collections.abc import Iterable

from arkg.synth.domains.build import DomainGraph, add_kinds, build_domain
from arkg.synth.domains.held_out import HELD_OUT_DOMAINS
from arkg.synth.domains.questions import DEFAULT_PER_TEMPLATE, generate_questions
from arkg.synth.domains.schema import Domain
from arkg.synth.domains.training import TRAINING_DOMAINS


def build_domains(domains: Iterable[Domain], seed: int = 0) -> list[DomainGraph]:
    """The domains' KGs, built in order from one pool of names: no two share an entity name, and a
    domain's KG is the same whichever domains follow it. Kind types and links come last, after every
    domain's other names, so that those do not depend on them."""
    taken: set[str] = set()
    graphs = [build_domain(domain, seed, taken, kinds=False) for domain in domains]
    return [add_kinds(graph, seed, taken) for graph in graphs]


__all__ = [
    "DEFAULT_PER_TEMPLATE",
    "HELD_OUT_DOMAINS",
    "TRAINING_DOMAINS",
    "Domain",
    "DomainGraph",
    "build_domain",
    "build_domains",
    "generate_questions",
]
