"""Settings of R³: the search tree's bounds, how the sub-graph is pruned, how choices are made."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from arkg.agents.modes import EdgeSet, SelectionMode
from arkg.agents.r3.replies import MAX_ALTERNATIVES, MAX_NAMED, MAX_PICKED, MAX_PREMISES
from arkg.agents.retrieval import RankerName, default_ranker


class R3Settings(BaseModel):
    """R³'s settings. Depth and breadth default to 2 each, as the paper ran it (Section 4.3; its public
    code defaults to a breadth of 1). A new branch's axiom is sampled at `branch_temperature` (0.7, as
    that code does), with the run's per-call seed, so that it can differ from the earlier ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: SelectionMode = SelectionMode.CONSTRAINED
    edges: EdgeSet = EdgeSet.OUT
    # Dense where the `dense` extra is installed, as the paper ranks facts with sentence embeddings; BM25 otherwise.
    ranker: RankerName = Field(default_factory=default_ranker)
    max_entities: int = Field(5, ge=1, description="entities linked from the words of the query")
    max_named: int = Field(3, ge=0, le=MAX_NAMED, description="entities the model may name (0: linking only)")
    per_entity: int = Field(2000, ge=1, description="triples read per entity at most (hubs)")
    top_k: int = Field(10, ge=1, description="facts kept per pruning: the k most similar to the axiom or the gap")
    pick_from: int = Field(20, ge=0, description="next-ranked facts the model may pick from (0: similarity only)")
    max_picked: int = Field(5, ge=1, le=MAX_PICKED, description="facts the model may pick per pruning")
    max_premises: int = Field(3, ge=1, le=MAX_PREMISES, description="premises of one premise set at most")
    # The paper lets an axiom be disjunctive: "yes if (A and B) or C" holds when any one set holds.
    max_alternatives: int = Field(
        2, ge=1, le=MAX_ALTERNATIVES, description="premise sets of one axiom at most (1: premises are a conjunction)"
    )
    max_depth: int = Field(2, ge=1, description="judgements per branch; each after the first expands one entity")
    max_breadth: int = Field(2, ge=1, description="branches (axioms) tried at most")
    c_max: int = Field(3, ge=1, description="attempts per decision when a reply is invalid")
    branch_temperature: float = Field(0.7, ge=0.0, le=2.0, description="sampling temperature of a new branch's axiom")
