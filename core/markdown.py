"""Markdown from meeting notes, retro items and emails, rendered to HTML that is safe to show.

Notes are written by anyone who can edit a SIG's agenda document, so the HTML that Markdown produces is
passed through nh3 (the Rust `ammonia` sanitiser) with a strict allow-list: no scripts, no event
handlers, no style, links only to http/https/mailto, images only from http/https.

Python-Markdown parses nested blocks recursively and its cost grows with the input, so hostile notes could take
a public page down (a 500-level nested list raised RecursionError after 1.35 s, 1,400 levels took
25-46 s, on every request). The input is therefore bounded *before* Markdown sees it: lines nested deeper than
MAX_NESTING_DEPTH and whatever follows the first MAX_MARKDOWN_CHARS characters are shown as plain, escaped text
instead. Nothing is dropped; only the formatting of the hostile part is.
"""

import re

import markdown as markdown_lib
import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i",
    "img", "li", "ol", "p", "pre", "s", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "td": {"align"},
    "th": {"align"},
}
# Applies to every URL attribute (href, src): `javascript:`, `data:`, `vbscript:`… are dropped.
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}
MARKDOWN_EXTENSIONS = ["fenced_code", "tables", "sane_lists"]

#: Characters of one text rendered as Markdown. The longest agenda item of the SIG Node archives (2021-2022) has
#: about 4,700; a 10,000-character table renders in about 0.1 s (20,000 took 0.3-0.7 s on a busy 2-core host).
MAX_MARKDOWN_CHARS = 10_000
#: Levels of list and blockquote nesting rendered as Markdown. Real notes nest 3 or 4 levels; Python-Markdown
#: recurses a few frames per level, and its cost grows with the square of the depth.
MAX_NESTING_DEPTH = 12
#: Python-Markdown's tab width: an indentation of this many columns is one more level.
TAB_LENGTH = 4

# What opens a nesting level at the start of a line: indentation, a blockquote marker or a list marker
# (`-`, `*`, `+`, `1.`, `1)`) followed by a space. Several may follow each other ("> - > - x", "- - - x").
_NESTING_PREFIX = re.compile(r"(?:[ \t]+|>|(?:[-*+]|[0-9]{1,9}[.)])(?=[ \t]))*")
_NESTING_TOKEN = re.compile(r"[ \t]+|>|[-*+]|[0-9]{1,9}[.)]")
#: Link brackets: Python-Markdown scans from every `[` (and every `(` after `](`) to its match or to the end of the
#: paragraph, so 20,000 unmatched or deeply nested ones take minutes. Past this many such brackets in one text,
#: they are escaped (shown as typed, not as links); a few stray ones in ordinary notes are left alone.
MAX_STRAY_BRACKETS = 32
#: Nesting of `[` or `(` beyond which a bracket counts as stray: real link texts nest one or two deep.
MAX_BRACKET_DEPTH = 4
_BRACKETS = {"[": "]", "(": ")"}

# fenced_code only recognises fences at the start of a line; inside one, indentation is content, not nesting.
_FENCE = re.compile(r"^(`{3,}|~{3,})")


def nesting_depth(line: str) -> int:
    """The levels of list and blockquote nesting the start of `line` opens, as Python-Markdown would count them
    (or a little more: the bound needs only be safe, not exact)."""
    depth = 0
    for token in _NESTING_TOKEN.findall(_NESTING_PREFIX.match(line).group()):
        if token[0] in " \t":
            depth += len(token.expandtabs(TAB_LENGTH)) // TAB_LENGTH
        else:
            depth += 1
    return depth


def _defuse_brackets(text: str) -> str:
    """`text` with its stray link brackets backslash-escaped, when there are more than MAX_STRAY_BRACKETS of them:
    an opening bracket with no match, or nested deeper than MAX_BRACKET_DEPTH. One pass, linear."""
    stray: list[int] = []
    open_at: dict[str, list[int]] = {"[": [], "(": []}
    closers = {close: opening for opening, close in _BRACKETS.items()}
    escaped = False
    for position, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in _BRACKETS:
            stack = open_at[char]
            if len(stack) >= MAX_BRACKET_DEPTH:
                stray.append(position)
            stack.append(position)
        elif char in closers and open_at[closers[char]]:
            open_at[closers[char]].pop()
    stray.extend(open_at["["])
    stray.extend(open_at["("])
    if len(stray) <= MAX_STRAY_BRACKETS:
        return text
    pieces, start = [], 0
    for position in sorted(set(stray)):
        pieces.append(text[start:position])
        pieces.append("\\")
        start = position
    pieces.append(text[start:])
    return "".join(pieces)


def _plain_text(lines: list[str]) -> str:
    """Lines shown as escaped text, one per line: what Markdown is not trusted to render. Indentation is dropped
    (it is what made the lines too deep) and so is a blank line."""
    kept = [escape(line.strip()) for line in lines if line.strip()]
    return f"<p>{'<br>'.join(kept)}</p>" if kept else ""


def _bounded_parts(text: str) -> list[tuple[bool, list[str]]]:
    """`text` split into runs of lines, each (is Markdown, lines): the lines nested too deeply, and those past
    the size bound, are runs of plain text."""
    head, tail = text[:MAX_MARKDOWN_CHARS], text[MAX_MARKDOWN_CHARS:]
    if tail and "\n" in head:
        # Cut at a line end, so that no line is half Markdown and half text.
        cut = head.rindex("\n")
        head, tail = head[:cut], head[cut + 1 :] + tail
    parts: list[tuple[bool, list[str]]] = []
    fence = None
    for line in head.split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            markdown = True
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
        elif opened:
            fence, markdown = opened.group(1), True
        else:
            markdown = nesting_depth(line) <= MAX_NESTING_DEPTH
        if parts and parts[-1][0] == markdown:
            parts[-1][1].append(line)
        else:
            parts.append((markdown, [line]))
    if tail:
        parts.append((False, tail.split("\n")))
    return parts


def render_markdown(text: str | None) -> SafeString:
    """Markdown -> sanitised HTML, marked safe for templates. Empty input gives an empty string.

    Lines nested deeper than MAX_NESTING_DEPTH levels, and everything after the first MAX_MARKDOWN_CHARS
    characters, come out as escaped plain text, so that the time to render is bounded whatever the input.
    """
    if not text:
        return mark_safe("")
    html = "".join(
        _render_bounded("\n".join(lines)) if markdown else _plain_text(lines)
        for markdown, lines in _bounded_parts(text)
    )
    return mark_safe(html)  # noqa: S308 - sanitised or escaped, part by part


def _render_bounded(text: str) -> str:
    """Markdown of a text already within the bounds, sanitised."""
    html = markdown_lib.markdown(_defuse_brackets(text), extensions=MARKDOWN_EXTENSIONS, output_format="html")
    cleaned = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        # Relative URLs would resolve against this site; notes come from elsewhere, so they are dropped.
        url_relative="deny",
        # Drop the *contents* of these too, not only the tags, so a stripped <script> leaves no code as text.
        clean_content_tags={"script", "style"},
        link_rel="noopener nofollow",
    )
    return cleaned
