"""Train and test by anchor entity: a question's anchor (its first entity, what it is about) falls on
one side by a hash of the name and the seed, and a training question that names any test anchor at
all is dropped, so that no test question's anchor appears in training."""

from __future__ import annotations

import hashlib

from arkg.datasets.geo.questions import GeoQuestion


def split_by_anchor(questions: list[GeoQuestion], test_share: float, seed: int = 0) -> tuple[list[GeoQuestion], int]:
    """The questions with their split set, in order, and how many training questions were dropped."""
    if not 0 < test_share < 1:
        raise ValueError(f"the test share must lie strictly between 0 and 1, not {test_share}")
    test_anchors = {q.entities[0] for q in questions if _share(q.entities[0], seed) < test_share}
    kept: list[GeoQuestion] = []
    for question in questions:
        if question.entities[0] in test_anchors:
            kept.append(question.model_copy(update={"split": "test"}))
        elif not test_anchors.intersection(question.entities):
            kept.append(question.model_copy(update={"split": "train"}))
    return kept, len(questions) - len(kept)


def _share(anchor: str, seed: int) -> float:
    return int(hashlib.sha256(f"{seed}:{anchor}".encode()).hexdigest()[:12], 16) / 16**12
