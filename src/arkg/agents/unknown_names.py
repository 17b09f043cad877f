"""Names a question gives that the KG does not have, found before any strategy explores.

    missing_names(kg, "Does Prellwick depend on Brask?")
    # [MissingName(name="Prellwick", closest=["Brask", ...])]

A name is what the question writes as a run of capitalised words ("Orla Pemberhay", "Saint Aldric
General Hospital"), its opening question word aside; an acronym ("CTO") names a relation more often
than an entity and is left alone. A name is known when the KG has it, has it written slightly otherwise
(accents, case, a typo: a fuzzy score of at least `SAME_NAME`), or has an entity whose name holds it as
whole words ("Curie" in "Marie Curie"), or when the question's words around it name an entity of the
KG ("the Nobel Prize in Physics"). Exploring from some other entity for a name the KG lacks answers a
question nobody asked; the strategies answer None instead and say which name is missing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel
from rapidfuzz import fuzz

from arkg.agents.candidates import named_in_question
from arkg.agents.support.cited import holds, written_names
from arkg.graph.matching import SAME_NAME, fold
from arkg.graph.model import KnowledgeGraph

CLOSEST_SHOWN = 3
_ACRONYM = re.compile(r"[A-Z0-9]{2,5}s?")
_POSSESSIVE = re.compile(r"['’]s?$")
_OPENING_WORDS = frozenset({"who", "what", "which", "where", "when", "how", "whose", "whom", "why"})


class MissingName(BaseModel):
    name: str
    closest: list[str] = []

    def explain(self) -> str:
        closest = f" (closest: {', '.join(self.closest)})" if self.closest else ""
        return f"{self.name} is not in the KG{closest}"


def missing_names(kg: KnowledgeGraph, question: str, entities: Sequence[str] = ()) -> list[MissingName]:
    """The names the question gives (`entities` where a data set lists them, else those its wording
    writes out) that match no entity of the KG, nor a close one; each with the KG's closest names."""
    known = [fold(name) for name in named_in_question(question, kg.has_entity)]
    first_word = question.split()[0] if question.split() else ""
    missing = []
    for written in entities or written_names(question):
        name = _POSSESSIVE.sub("", written).strip()
        if not entities and (written == first_word or name.lower() in _OPENING_WORDS):
            continue  # one capitalised word opening the question ("People in ...", "Who's") names nothing for sure
        # Part of a name the KG has, or holding one ("CEO of Warsaw"): left to the strategy, which links it.
        if not name or _ACRONYM.fullmatch(name) or any(holds(entity, fold(name)) or holds(fold(name), entity) for entity in known):
            continue
        if kg.has_entity(name):
            continue
        matches = kg.search_entities(name, k=2 * CLOSEST_SHOWN)
        folded = fold(name)
        if any(fuzz.ratio(fold(match.name), folded) >= SAME_NAME or holds(fold(match.name), folded) for match in matches):
            continue
        # Whole words first: "Marie Kowalska" is nearer "Marie Curie" than "Paris", which shares letters.
        closest = sorted(matches, key=lambda match: -fuzz.token_set_ratio(fold(match.name), folded))[:CLOSEST_SHOWN]
        missing.append(MissingName(name=name, closest=[match.name for match in closest]))
    return missing
