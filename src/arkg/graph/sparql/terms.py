"""RDF terms and their safe serialisation into SPARQL query text.

Every name that reaches a query goes through `Term.sparql()`: literals are escaped per the SPARQL
grammar (ECHAR/UCHAR) and IRIs are validated against IRIREF, so no input can change a query's shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arkg.errors import ArkgError

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

# IRIREF excludes these characters and everything up to and including the space (SPARQL 1.1, rule 139).
_IRI_FORBIDDEN = re.compile(r'[<>"{}|^`\\\x00-\x20]')
_IRI_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_LANG_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")
_ECHAR = {"\\": "\\\\", '"': '\\"', "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


class UnsafeTermError(ArkgError, ValueError):
    """A value cannot be written as an RDF term (an invalid IRI, language tag or text)."""


def is_valid_iri(value: str) -> bool:
    return bool(_IRI_SCHEME.match(value)) and not _IRI_FORBIDDEN.search(value)


def check_language(tag: str) -> str:
    if not _LANG_TAG.fullmatch(tag):
        raise UnsafeTermError(f"invalid language tag {tag!r}")
    return tag


def _escape(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates: no RDF literal can hold them
        raise UnsafeTermError(f"text is not valid Unicode: {text!r}") from exc
    out = []
    for char in text:
        if char in _ECHAR:
            out.append(_ECHAR[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Term:
    """An RDF term as a SPARQL JSON result describes it: kind is "uri", "literal" or "bnode"."""

    kind: str
    value: str
    datatype: str | None = None
    lang: str | None = None

    @classmethod
    def iri(cls, value: str) -> Term:
        if not is_valid_iri(value):
            raise UnsafeTermError(f"invalid IRI {value!r}")
        return cls("uri", value)

    @classmethod
    def literal(cls, value: str, *, lang: str | None = None, datatype: str | None = None) -> Term:
        if lang is not None:
            check_language(lang)
        if datatype is not None and not is_valid_iri(datatype):
            raise UnsafeTermError(f"invalid datatype IRI {datatype!r}")
        _escape(value)
        return cls("literal", value, datatype, lang)

    @classmethod
    def from_json(cls, binding: dict[str, Any]) -> Term:
        kind = binding["type"]
        if kind == "typed-literal":  # SPARQL 1.0 JSON spelling, still sent by some servers
            kind = "literal"
        return cls(kind, binding["value"], binding.get("datatype"), binding.get("xml:lang"))

    @property
    def is_iri(self) -> bool:
        return self.kind == "uri"

    @property
    def is_literal(self) -> bool:
        return self.kind == "literal"

    def sparql(self) -> str:
        """The term as SPARQL query text; raises UnsafeTermError instead of emitting anything unsafe."""
        if self.kind == "uri":
            if not is_valid_iri(self.value):
                raise UnsafeTermError(f"invalid IRI {self.value!r}")
            return f"<{self.value}>"
        if self.kind != "literal":
            raise UnsafeTermError(f"a {self.kind} cannot be named in a query")
        text = f'"{_escape(self.value)}"'
        if self.lang:
            return f"{text}@{check_language(self.lang)}"
        if self.datatype and self.datatype not in (XSD + "string", RDF_LANG_STRING):
            return f"{text}^^{Term.iri(self.datatype).sparql()}"
        return text


def values(variable: str, terms: list[Term]) -> str:
    """A VALUES block binding ?variable to the terms (the batching form SPARQL 1.1 offers)."""
    return f"VALUES ?{variable} {{ {' '.join(term.sparql() for term in terms)} }}"
