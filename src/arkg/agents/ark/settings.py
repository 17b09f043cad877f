"""Settings of the ARK agent: the paper's bounds, how choices are made, what the model is shown."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from arkg.agents.modes import EdgeSet, SelectionMode


class ArkSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    c_max: int = Field(5, ge=1, description="attempts per decision (anchor, relation, reasoning step)")
    k_max: int = Field(8, ge=1, description="reasoning steps before the final answer is forced")
    mode: SelectionMode = SelectionMode.CONSTRAINED
    # Both directions: a fact stored from the other end (Warsaw, birthplace of, ...) is reachable too,
    # which the tuned adapter relies on over KGs it has not seen.
    edges: EdgeSet = EdgeSet.BOTH
    max_triples_shown: int = Field(20, ge=1, description="triples shown per step; the rest are counted in a note")
    max_relations_shown: int = Field(40, ge=1, description="relations offered per anchor; the rest are counted")
    retry_repeats: bool = Field(
        False,
        description="let a decision go on to c_max attempts after the model repeats a reply already rejected"
        " in it (the paper's retries); by default a repeat ends the decision, since a model that repeats a"
        " rejected reply once nearly always repeats it to c_max",
    )
    max_anchor_candidates: int = Field(8, ge=1, description="anchor options offered in constrained mode")
    snap_names: bool = Field(
        True,
        description="write an open answer's misspelt names as the cited facts write them (an arkg extension;"
        " the paper keeps the model's text)",
    )
    compare_values: bool = Field(
        True,
        description="show the final answer step the largest and smallest cited numbers and dates, their"
        " orderings and counts of cited facts (an arkg extension; the paper leaves comparing to the model)",
    )
    visit_named_entities: bool = Field(
        False,
        description="when the model stops while an entity the question names (as written) is neither an"
        " anchor nor in a cited fact, go on for one more step with that entity offered first, once per entity"
        " (an arkg extension; the paper stops when the model does)",
    )
