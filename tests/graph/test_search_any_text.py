"""search_entities takes any text: NUL, lone surrogates and quotes are no error in the SQLite store
or over SPARQL; the rest of the text still finds the entity it names."""

from __future__ import annotations

import pytest
from test_protocol import graph  # noqa: F401  (both backends: SQLite, and a real oxigraph server)

from arkg.graph.model import KnowledgeGraph


@pytest.mark.parametrize(
    "text",
    ["Ada Quill\x00", "\x00Ada Quill", "Ada\x00 Quill", "Ada\ud800 Quill", 'Ada Quill "\x00"', "Ada Quill\x00\udfff\x00"],
)
def test_nul_or_a_lone_surrogate_in_the_text_still_finds_the_entity(graph: KnowledgeGraph, text: str) -> None:  # noqa: F811
    assert graph.search_entities(text, 3)[0].name == "Ada Quill"


@pytest.mark.parametrize("text", ["\x00", "\x00" * 5, "\ud800", "\udfff\x00\ud800", '"\x00"'])
def test_text_of_nul_or_lone_surrogates_only_finds_nothing(graph: KnowledgeGraph, text: str) -> None:  # noqa: F811
    assert graph.search_entities(text, 3) == []
