"""Machine-checked grounding of an answer: every cited triple is in the KG and was shown to the model.

    grounding = check_grounding(result, kg)
    grounding.violations     # [] is the bar; each entry names the triple and what is wrong
    grounding.basis          # "kg", "commonsense", "kg+commonsense", "neither" or "no answer"

Two checks hold for every strategy: the cited triple exists in the KG, and its fact line stood in
the prompt of some model call of the run (ModelCall.shown). Strategies whose traces can say more
(ARK's `unverified_citations`: each citation against the prompt of the very step that cited it) add
their own findings.
"""

from __future__ import annotations

from pydantic import BaseModel

from arkg.agents.strategy import Basis, Result
from arkg.agents.trace import ModelCall
from arkg.agents.triple_keys import triple_text
from arkg.graph.model import Direction, KnowledgeGraph, Triple


class Grounding(BaseModel):
    basis: Basis
    violations: list[str] = []


def check_grounding(result: Result, kg: KnowledgeGraph | None) -> Grounding:
    violations: list[str] = []
    shown = [call.shown for call in model_calls(result.trace)]
    for item in result.cited_triples:
        triple = Triple(item["head"], item["relation"], item["tail"], dict(item.get("props") or {}))
        text = triple_text(triple)
        if kg is not None and triple not in kg.triples(triple.head, triple.relation, Direction.OUT):
            violations.append(f"{text}: cited but not in the knowledge graph")
        if not any(text in prompt for prompt in shown):
            violations.append(f"{text}: cited but never shown to the model")
    per_step = getattr(result.trace, "unverified_citations", None)
    if callable(per_step):
        violations += per_step()
    return Grounding(basis=result.basis, violations=violations)


def model_calls(trace: object) -> list[ModelCall]:
    """The model calls a strategy's trace recorded (traces expose them as `calls`)."""
    calls = getattr(trace, "calls", None)
    return list(calls) if calls is not None else []
