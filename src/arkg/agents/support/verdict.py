"""What the support check says of one answer."""

from __future__ import annotations

from pydantic import BaseModel


class Support(BaseModel):
    supported: bool
    reasons: list[str] = []
    # A False answer supported because every edge of the asked relation was read and cited (none is the
    # asked value): true of the KG as it stands, not of the world.
    closed_world: bool = False
    # What the KG lists, for a closed-world False ("the KG lists Ines Carvalho speaks: English, Spanish").
    note: str = ""
    # Names the question gives that the KG does not have (the answer is then None).
    missing: list[str] = []
