"""Machine-checked grounding of an answer: every cited triple is in the KG and was shown to the model,
and (the run's own check, kept beside it) the cited facts support the answer.

    grounding = check_grounding(result, kg)
    grounding.violations     # [] is the bar; each entry names the triple and what is wrong
    grounding.support        # Result.support: whether the cited facts lead to the answer, and if not why
    grounding.basis          # "kg", "commonsense", "kg+commonsense", "unsupported", "neither" or "no answer"

Two checks hold for every strategy: the cited triple exists in the KG, and the model was shown it:
its fact line stood in the prompt of some model call of the run (ModelCall.shown), or, for a
strategy whose prompts show facts in another form, it is among the triples its trace says it showed
(`Trace.shown_triples`: KG-Agent lists a step as its line and result values). Strategies whose traces
can say more (ARK's `Trace.unverified_citations`: each citation against the prompt of the very step
that cited it) add their own findings.
"""

from __future__ import annotations

from pydantic import BaseModel

from arkg.agents.strategy import Basis, Result
from arkg.agents.support import Support
from arkg.agents.triple_keys import identity, triple_text
from arkg.graph.model import Direction, KnowledgeGraph, Triple


class Grounding(BaseModel):
    basis: Basis
    violations: list[str] = []
    # None in results files of versions that did not check support.
    support: Support | None = None


def check_grounding(result: Result, kg: KnowledgeGraph | None) -> Grounding:
    violations: list[str] = []
    trace = result.trace
    shown_triples = trace.shown_triples() if trace is not None else None
    shown_keys = {identity(triple) for triple in shown_triples} if shown_triples is not None else None
    shown = [call.shown for call in trace.calls] if trace is not None and shown_keys is None else []
    for item in result.cited_triples:
        triple = Triple(item["head"], item["relation"], item["tail"], dict(item.get("props") or {}))
        text = triple_text(triple)
        if kg is not None and triple not in kg.triples(triple.head, triple.relation, Direction.OUT):
            violations.append(f"{text}: cited but not in the knowledge graph")
        seen = identity(triple) in shown_keys if shown_keys is not None else any(text in prompt for prompt in shown)
        if not seen:
            violations.append(f"{text}: cited but never shown to the model")
    if trace is not None:
        violations += trace.unverified_citations()
    return Grounding(basis=result.basis, violations=violations, support=result.support)
