"""Choices shared by the strategies that explore a KG: how picks are made, which edges are followed."""

from __future__ import annotations

from enum import Enum


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
