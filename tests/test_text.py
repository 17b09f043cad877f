"""Text made safe to show: arkg.text.one_line and clip."""

from __future__ import annotations

from arkg.text import clip, one_line


def test_line_breaks_controls_and_bidi_characters_become_visible_escapes() -> None:
    assert one_line("a\nb\x1b[31m\u202ec") == "a\\nb\\x1b[31m\\u202ec"


def test_ordinary_text_of_any_script_is_unchanged() -> None:
    text = "Maria Skłodowska-Curie, Варшава, 東京 👩‍🔬"
    assert one_line(text) == text


def test_a_lone_surrogate_from_bytes_that_were_not_utf8_is_escaped_so_any_stream_can_encode_it() -> None:
    shown = one_line(b"\xff\xfe Warsaw".decode("utf-8", "surrogateescape"))
    assert shown == "\\udcff\\udcfe Warsaw"
    shown.encode("utf-8")


def test_clip_says_how_much_it_left_out() -> None:
    assert clip("x" * 250) == "x" * 200 + "… (50 more characters)"
    assert clip("short") == "short"
