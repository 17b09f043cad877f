"""Questions from any KG: sample it, draw from every template in turn, keep what is clear and replays.

Templates take turns, so that a limit gives each its share; one that keeps finding nothing (the KG
has no values to compare, no type-like relation) retires and leaves its turns to the others. Yes and
no answers come in equal numbers (one apart at most).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from arkg.datasets.geo.questions import GeoQuestion, gold_question
from arkg.datasets.geo.templates import unbalancing
from arkg.graph.model import KnowledgeGraph
from arkg.synth.kg_questions.checks import replays, unclear
from arkg.synth.kg_questions.profiles import Profiles
from arkg.synth.kg_questions.sample import walk
from arkg.synth.kg_questions.templates import TEMPLATES, Context, Template
from arkg.synth.kg_questions.view import KGView

_VISITS_PER_QUESTION = 2
_MIN_VISITS = 200
_PATIENCE = 200  # failed draws in a row after which a template retires
# Without a split every question is for evaluation: `arkg eval` reads the `test` questions of such a file.
UNSPLIT = "test"

Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass
class Made:
    questions: list[GeoQuestion] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # why drafts were not kept
    visited: int = 0


def generate(kg: KnowledgeGraph, limit: int, seed: int = 0, progress: Progress | None = None, templates: tuple[Template, ...] = TEMPLATES) -> Made:
    """Up to `limit` questions over the KG; the same KG and seed give the same questions."""
    view = KGView(kg)
    visits = max(_MIN_VISITS, _VISITS_PER_QUESTION * limit)
    sample = walk(view, visits, random.Random(f"kg-questions:{seed}:walk"), progress and (lambda done: progress("sampling", done, visits)))
    made = Made(visited=len(sample.entities))
    if not sample.entities:
        return made
    profiles = Profiles(view, sample)
    contexts = {t.name: Context(view, sample, profiles, random.Random(f"kg-questions:{seed}:{t.name}")) for t in templates}
    failures = Counter[str]()
    active = list(templates)
    seen: set[str] = set()
    polarity = {True: 0, False: 0}
    while active and len(made.questions) < limit:
        for template in list(active):
            draft = template.draw(contexts[template.name])
            reason = (
                "nothing found" if draft is None
                else "a repeated question" if draft.question in seen
                else "yes/no balance" if unbalancing(draft, polarity)
                else unclear(view, draft) or (None if replays(kg, draft) else "gold not replayed")
            )
            if reason is not None:
                made.skipped[reason] += 1
                failures[template.name] += 1
                if failures[template.name] >= _PATIENCE:
                    active.remove(template)
                continue
            assert draft is not None
            failures[template.name] = 0
            seen.add(draft.question)
            if isinstance(draft.answer, bool):
                polarity[draft.answer] += 1
            digest = hashlib.sha256(draft.question.encode()).hexdigest()[:10]
            made.questions.append(gold_question(draft, template.name, template.kind, f"{template.name}-{digest}", UNSPLIT))
            if progress is not None:
                progress("questions", len(made.questions), limit)
            if len(made.questions) == limit:
                break
    return made
