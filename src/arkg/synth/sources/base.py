"""What every source of chains yields: its KG, its chains, and the questions it could not use."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arkg.graph.sqlite_store import SQLiteGraph
from arkg.synth.chains import Chain, Unusable


@dataclass
class Source:
    name: str
    kg: SQLiteGraph
    chains: list[Chain] = field(default_factory=list)
    unusable: list[Unusable] = field(default_factory=list)
    # The files the chains were read from, hashed into the provenance. A KG store is not among them:
    # searching it adds an index to the file, so the KG is known by its content digest instead.
    files: tuple[Path, ...] = ()
    kg_file: Path | None = None

    def close(self) -> None:
        self.kg.close()
