"""`core.text`: the one-line rule shared by Milestone.clean, the schedule importer and email subjects."""

from django.core.mail.message import forbid_multi_line_headers
from hypothesis import given
from hypothesis import strategies as st

from core.text import line_breaking_characters, one_line


@given(st.text())
def test_one_line_is_always_a_valid_header_and_a_valid_label(text):
    cleaned = one_line(text)
    forbid_multi_line_headers("Subject", cleaned, "utf-8")  # raises BadHeaderError on CR/LF
    assert line_breaking_characters(cleaned) == []
    assert cleaned == cleaned.strip() and "  " not in cleaned
    assert one_line(cleaned) == cleaned


def test_one_line_keeps_visible_text_and_collapses_the_rest():
    assert (
        one_line(" Code\r\nFreeze\u2028\u2029\x1b[0m\t\u00a0\u202e 🧑\u200d💻 コード ")
        == "Code Freeze [0m 🧑\u200d💻 コード"
    )


def test_line_breaking_characters_are_controls_and_line_separators_only():
    assert line_breaking_characters("a\r\nb\tc\u2028d\u2029e\x7f") == ["\r", "\n", "\t", "\u2028", "\u2029", "\x7f"]
    assert line_breaking_characters("Enhancements Freeze 🧊 (コード凍結) — Ünïcode\u00a0") == []
