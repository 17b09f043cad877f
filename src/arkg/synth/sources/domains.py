"""Multi-domain chains: questions over the fictional KGs of the training domains
(arkg.synth.domains), whose gold programs and evidence are known by construction.

The KG is the union of the domains' KGs, built in memory from the seed (no two domains share an
entity name). The held-out domains are never among them.
"""

from __future__ import annotations

from arkg.agents.teaching import Reason
from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth.chains import Unusable
from arkg.synth.domains import DEFAULT_PER_TEMPLATE, TRAINING_DOMAINS, build_domains, generate_questions
from arkg.synth.grounding import Ungrounded
from arkg.synth.sources.base import Source
from arkg.synth.sources.geo import question_chain

NAME = "domains"


def domains_source(count: int = len(TRAINING_DOMAINS), seed: int = 0, per_template: int = DEFAULT_PER_TEMPLATE) -> Source:
    """The chains of the first `count` training domains' questions (up to `per_template` per template
    and domain), over their KGs."""
    if not 1 <= count <= len(TRAINING_DOMAINS):
        raise ValueError(f"there are {len(TRAINING_DOMAINS)} training domains; asked for {count}")
    graphs = build_domains(TRAINING_DOMAINS[:count], seed)
    kg = SQLiteGraph()
    source = Source(NAME, kg)
    try:
        for graph in graphs:
            kg.add_triples(graph.triples)
        for graph in graphs:
            for question in generate_questions(graph, seed, per_template):
                try:
                    source.chains.append(question_chain(kg, question, NAME))
                except Ungrounded as error:
                    source.unusable.append(Unusable(NAME, question.id, "chain", Reason.UNGROUNDED, str(error), question.split))
    except BaseException:
        kg.close()
        raise
    return source
