"""Text from a knowledge graph made safe to show: on one line, with no control characters.

KG names and values are data written by whoever built the graph. Placed verbatim into a prompt, a
line break could start a forged fact line; printed verbatim to a terminal, an escape sequence could
rewrite the screen. `one_line` writes every such character as a visible escape instead.
"""

from __future__ import annotations

import unicodedata

# Control characters (Cc: C0, DEL, C1 including ESC), line and paragraph separators (Zl, Zp), and
# lone surrogates (Cs: bytes that were not UTF-8, as Python decodes them), which no stream can encode.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Zl", "Zp", "Cs"})
# Bidirectional controls reorder what a reader sees (other format characters, such as the zero-width
# joiner inside emoji, are harmless and stay).
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """`text` with line breaks, control and bidirectional characters written as escapes (`\\n`, `\\x1b`, `\\u2028`).

    Ordinary text, accents and other scripts included, is returned unchanged.
    """
    if text.isascii() and text.isprintable():  # the common case, at C speed
        return text
    return "".join(_escape(char) if _unsafe(char) else char for char in text)


def _unsafe(char: str) -> bool:
    return char in _BIDI_CONTROLS or unicodedata.category(char) in _UNSAFE_CATEGORIES


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clip(text: str, limit: int = 200) -> str:
    """At most `limit` characters of `text`, marking a cut with how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"
