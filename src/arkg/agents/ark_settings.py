"""Settings of the ARK agent: the paper's bounds, how choices are made, what the model is shown."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from arkg.llm.base import Sampling


class SelectionMode(str, Enum):
    """How the model names anchors, relations and cited triples.

    FREE: as free text, checked afterwards (the paper; invalid picks get feedback and a retry).
    CONSTRAINED: as one of the valid candidates, enforced while decoding, so picks cannot be invalid.
    """

    FREE = "free"
    CONSTRAINED = "constrained"


class EdgeSet(str, Enum):
    """Which edges of an anchor are explored: outgoing only (the paper) or incoming ones too."""

    OUT = "out"
    BOTH = "both"


class QuestionKind(str, Enum):
    AUTO = "auto"  # decided from the question's wording
    YES_NO = "yes_no"  # answer True / False / None
    OPEN = "open"  # answer in free text


class ArkSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    c_max: int = Field(5, ge=1, description="attempts per decision (anchor, relation, reasoning step)")
    k_max: int = Field(8, ge=1, description="reasoning steps before the final answer is forced")
    mode: SelectionMode = SelectionMode.CONSTRAINED
    edges: EdgeSet = EdgeSet.OUT
    question_kind: QuestionKind = QuestionKind.AUTO
    # Enough for the longest reply the bounded reply schemas allow (ark_replies), so none is cut off.
    sampling: Sampling = Sampling(max_tokens=256)
    max_triples_shown: int = Field(20, ge=1, description="triples shown per step; the rest are counted in a note")
    max_relations_shown: int = Field(40, ge=1, description="relations offered per anchor; the rest are counted")
    max_anchor_candidates: int = Field(8, ge=1, description="anchor options offered in constrained mode")
