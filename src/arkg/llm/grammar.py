"""GBNF grammars (llama.cpp's constrained-decoding language) derived from an output spec.

A pydantic model becomes the grammar of JSON documents matching its JSON schema (llama.cpp's own
schema converter, shipped with llama-cpp-python). A Choice becomes an alternation of its options as
raw text, so the generated text *is* the option, with no JSON quoting around it.
"""

from __future__ import annotations

import json
from functools import lru_cache

from llama_cpp.llama_grammar import BuiltinRule, SchemaConverter
from pydantic import BaseModel

from arkg.llm.base import Choice, OutputSpec

# Characters that GBNF literals cannot hold verbatim. Other characters (accents, CJK, emoji,
# commas) are written as they are: the grammar parser reads UTF-8.
_NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def gbnf_literal(text: str) -> str:
    """`text` as a quoted GBNF string literal that matches exactly `text`."""
    escaped = []
    for char in text:
        if char in _NAMED_ESCAPES:
            escaped.append(_NAMED_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\x{ord(char):02X}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


_Trie = dict[str, "_Trie"]
_END = ""  # key marking "an option ends here"; never a character of an option


def choice_grammar(choice: Choice) -> str:
    """A grammar whose only sentences are the options of `choice`, verbatim.

    Options are merged into a prefix tree: llama.cpp tracks one parser stack per live alternative
    and checks every vocabulary token against each, so hundreds of options that share a prefix
    ("Paris", "Paris, Texas", ...) cost one stack until they diverge instead of one each.
    """
    trie: _Trie = {}
    for option in choice.options:
        node = trie
        for char in option:
            node = node.setdefault(char, {})
        node[_END] = {}
    # Everything on one line: outside parentheses a newline ends a GBNF rule.
    return f"root ::= {_trie_expression(trie) or gbnf_literal('')}\n"


def _trie_expression(node: _Trie) -> str:
    branches = []
    for char, child in node.items():
        if char == _END:
            continue
        label = char
        while len(child) == 1 and _END not in child:  # follow a chain without branches
            ((next_char, child),) = child.items()
            label += next_char
        rest = _trie_expression(child)
        branches.append(f"{gbnf_literal(label)} {rest}" if rest else gbnf_literal(label))
    if not branches:
        return ""
    expression = f"({' | '.join(branches)})"
    return f"{expression}?" if _END in node else expression


class _SchemaConverter(SchemaConverter):
    """llama.cpp's JSON-schema converter (as shipped by llama-cpp-python) with two bugs fixed and
    its strings kept to one line of plain text.

    - Its literals do not escape backslashes, so an enum or const holding a quote (JSON-encoded
      as \\") yields a grammar llama.cpp cannot parse (and the process crashes).
    - Its string characters admit raw control characters (a newline, say), which JSON forbids.
    - Of JSON's escapes only \\" and \\\\ are admitted: every string arkg asks for is one line of
      UTF-8 text, and a small model that starts writing \\n or \\uXXXX escapes can fill its whole token
      budget with them (a KG-Agent line was cut off so).
    """

    _JSON_CHAR = BuiltinRule(r'[^"\\\x7F\x00-\x1F] | "\\" ["\\]', [])

    def _format_literal(self, literal: str) -> str:
        return gbnf_literal(literal)

    def _generate_constant_rule(self, value: object) -> str:
        # Enum and const values keep their accents and scripts as text rather than \uXXXX escapes,
        # which is what a model would naturally write.
        return self._format_literal(json.dumps(value, ensure_ascii=False))

    def _add_primitive(self, name: str, rule: BuiltinRule) -> str:
        return super()._add_primitive(name, self._JSON_CHAR if name == "char" else rule)


def schema_grammar(model: type[BaseModel]) -> str:
    """A grammar of the (strict) JSON documents that match `model`'s JSON schema."""
    converter = _SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    converter.visit(converter.resolve_refs(model.model_json_schema(), "schema"), "")
    return converter.format_grammar()


# Agents ask again and again with the same few specs: building a grammar once per spec keeps the
# JSON-schema and string work off the per-call path. Bounded, because candidate lists vary per question.
@lru_cache(maxsize=256)
def grammar_for(output: OutputSpec) -> str:
    """The GBNF grammar for an output spec (memoised per spec)."""
    if isinstance(output, Choice):
        return choice_grammar(output)
    return schema_grammar(output)
