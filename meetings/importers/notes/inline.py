"""One line of the notes' Markdown/HTML as plain text (`clean_inline`).

* Inline text (`clean_inline`): Markdown links reduced to their text, emphasis, HTML and backslash escapes
  ("oom\\_score\\_adj") removed. The 2024+ export escapes Markdown ("\\[minna\\] asking ..."); `_unescape`
  undoes that before the presenter rules match.
"""

from __future__ import annotations

import html
import re

# Link text may hold backslash-escaped brackets ("[\\[PUBLIC\\] Design](url)", 2024 export);
# an escaped "\\[" opens no link.
_LINK = re.compile(
    r"!?(?<!\\)\[((?:[^\[\]\\]|\\.)*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\))?[^()\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)"
)
# A Markdown backslash escape of ASCII punctuation ("\\[minna\\]", "oom\\_score", "\\#123"): the character itself.
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_TAG = re.compile(r"<[^<>]{0,500}>")
_EMPHASIS = re.compile(r"(?<![\w*])[*_]([^*_\n]+)[*_](?![\w*])")
_SPACES = re.compile(r"\s+")


_MARKUP = frozenset("[<&*_~\\")


def _unescape(text: str) -> str:
    """Markdown backslash escapes undone: the 2024+ Docs export escapes every bracket, underscore and dash."""
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


def clean_inline(text: str) -> str:
    """One line of Markdown/HTML as plain text: links to their text, no emphasis, tags or escapes."""
    if _MARKUP.isdisjoint(text):
        return " ".join(text.split())
    text = _LINK.sub(lambda m: m.group(1).strip() or m.group(2), text)
    text = _TAG.sub(" ", text)
    text = html.unescape(text)
    text = _unescape(text)
    text = text.replace("**", "").replace("__", "").replace("~~", "").replace("\\", " ")
    text = _EMPHASIS.sub(r"\1", text)
    return _SPACES.sub(" ", text).strip()
