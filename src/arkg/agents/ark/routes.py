"""The routes of the ARK-V1 loop: one function per equation of the paper, returning the next node.

The paper lists the `c >= C_max` case first; read literally, a valid pick made on the last allowed
attempt would be thrown away (and C_max = 1 would never explore). Here a valid pick always goes
through, so C_max is exactly the number of attempts a decision may take. An empty relation choice
re-opens the anchor decision of the step, so it too needs an anchor attempt left; so does an anchor with
no relation left to follow (eq. 5), or a model that keeps naming it would loop without end.

`repeated` is arkg's addition to eqs. (3) and (7): an invalid reply the model already gave in the same
decision ends it as c >= C_max does. A small model that repeats a rejected reply once nearly always
repeats it to C_max (greedy or sampled, with or without its earlier replies in the context; see
docs/tuning-log.md), so the remaining attempts mostly spend calls; `ArkSettings.retry_repeats` restores
the paper's retries.
"""

from __future__ import annotations

from arkg.agents.ark.trace import Node, RelationOutcome


def route_anchor(valid: bool, c: int, c_max: int, repeated: bool = False) -> Node:
    """Eq. (3): route(a(k,c))."""
    if valid:  # a(k,c) ∈ E_head
        return Node.RETRIEVE_RELATIONS
    if c >= c_max or repeated:
        return Node.FINAL_ANSWER
    return Node.PROMPT_ANCHOR


def route_relations(relations: list[str], anchor_attempts: int, c_max: int) -> Node:
    """Eq. (5): route(R(k))."""
    if not relations:  # R(k) = ∅
        return Node.PROMPT_ANCHOR if anchor_attempts < c_max else Node.FINAL_ANSWER
    return Node.PROMPT_RELATION


def route_relation(
    outcome: RelationOutcome, c: int, c_max: int, anchor_attempts: int, repeated: bool = False
) -> Node:
    """Eq. (7): route(r(k,c)); outcome is "empty" (r = ∅), "valid" (r ∈ R(k)) or "invalid"."""
    if outcome == "empty":
        return Node.SELECT_ANCHOR if anchor_attempts < c_max else Node.FINAL_ANSWER
    if outcome == "valid":
        return Node.RETRIEVE_TRIPLES
    if c >= c_max or repeated:
        return Node.FINAL_ANSWER
    return Node.PROMPT_RELATION


def route_reasoning(valid: bool, c: int, c_max: int) -> Node:
    """Eq. (10): route(R(k,c)); valid iff the cited triples T(k,c) ⊆ T(k)."""
    if valid:
        return Node.CLEANUP
    if c >= c_max:
        return Node.FINAL_ANSWER
    return Node.RETRIEVE_TRIPLES


def route_continue(k: int, k_max: int, continue_exploring: bool, named_unreached: bool = False) -> Node:
    """Eq. (11): route(R(k)) after cleanup. `named_unreached` is arkg's addition: the question names an
    entity that no step has reached yet (ArkSettings.visit_named_entities), which keeps exploring too."""
    if k >= k_max:
        return Node.FINAL_ANSWER
    if continue_exploring or named_unreached:  # f(k) = 1, or an entity of the question not yet reached
        return Node.NEW_STEP
    return Node.FINAL_ANSWER
