"""Inline Markdown for one-line texts (agenda item titles): `code`, ~~strike~~, **bold**, *em*, [links](url) and
bare URLs, everything else escaped.

Titles are copied from meeting notes as typed ("~~done~~ `kubelet` flag, see https://github.com/…"), so showing
them raw leaves backticks and tildes on the page and URLs unlinked. Block Markdown would turn a
title starting with "1." or "#" into a list or a heading, so this is a small scanner of its own: every character
it does not recognise is escaped, and its output goes through nh3 with an allow-list narrower than the block
renderer's (core.markdown): code, del, s, strong, em, and a[href] to http/https/mailto with
rel="nofollow noopener". A `javascript:` link stays text; `<script>` and `onerror=` arrive as text.

The scanner is a single regular expression whose lazy parts are bounded, run on at most MAX_INLINE_CHARS
characters (the rest is escaped text) and nested at most MAX_INLINE_DEPTH levels.
"""

import re

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

INLINE_TAGS = {"code", "del", "s", "strong", "em", "a"}
INLINE_ATTRIBUTES = {"a": {"href"}}
INLINE_URL_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "nofollow noopener"
#: Agenda titles in the SIG Node archives (2016-2025) are under 400 characters; a pasted paragraph is shown, but
#: only its start is formatted.
MAX_INLINE_CHARS = 2_000
#: **bold *em ~~strike~~***: real titles nest two levels at most.
MAX_INLINE_DEPTH = 4

_TOKEN = re.compile(
    r"(?P<tick>`+)(?P<code>[^`](?:.{0,500}?[^`])?)(?P=tick)(?!`)"
    r"|\[(?P<text>[^\[\]\n]{1,500})\]\((?P<href>[^()\s]{1,2000})\)"
    r"|(?P<url>(?:https?://|mailto:)[^\s<>\"'`]{1,2000})"
    r"|~~(?P<del>[^\s~](?:[^~\n]{0,500}?[^\s~])?)~~"
    r"|\*\*(?P<strong>[^\s*](?:[^\n]{0,500}?[^\s*])?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^\s*](?:[^*\n]{0,500}?[^\s*])?)\*(?![\w*])"
    r"|(?<![\w_])_(?P<em2>[^\s_](?:[^_\n]{0,500}?[^\s_])?)_(?![\w_])",
    re.IGNORECASE,
)
#: Punctuation that ends a sentence rather than a URL ("see https://k8s.io/docs.").
_URL_TAIL = ".,;:!?'\""


def _is_web_link(href: str) -> bool:
    return href.lower().startswith(("http://", "https://", "mailto:"))


def _split_url(url: str) -> tuple[str, str]:
    """A bare URL without the punctuation after it; a closing parenthesis stays only if the URL opened one."""
    tail = ""
    while url and (url[-1] in _URL_TAIL or (url[-1] == ")" and url.count("(") < url.count(")"))):
        tail = url[-1] + tail
        url = url[:-1]
    return url, tail


def _link(href: str, inner: str) -> str:
    return f'<a href="{escape(href)}">{inner}</a>'


def _render(text: str, depth: int, *, in_link: bool = False) -> str:
    if depth > MAX_INLINE_DEPTH:
        return escape(text)
    out: list[str] = []
    pos = 0
    for match in _TOKEN.finditer(text):
        out.append(escape(text[pos : match.start()]))
        pos = match.end()
        groups = match.groupdict()
        if groups["code"] is not None:
            code = groups["code"]
            # `` ` `` -> the backtick: one space each side is padding (CommonMark).
            if len(code) > 2 and code[0] == code[-1] == " " and code.strip():
                code = code[1:-1]
            out.append(f"<code>{escape(code)}</code>")
        elif groups["href"] is not None:
            inner = _render(groups["text"], depth + 1, in_link=True)
            href = groups["href"]
            out.append(_link(href, inner) if _is_web_link(href) else f"[{inner}]({escape(href)})")
        elif groups["url"] is not None:
            url, tail = _split_url(groups["url"])
            out.append((escape(url) if in_link else _link(url, escape(url))) + escape(tail))
        elif groups["del"] is not None:
            out.append(f"<del>{_render(groups['del'], depth + 1, in_link=in_link)}</del>")
        elif groups["strong"] is not None:
            out.append(f"<strong>{_render(groups['strong'], depth + 1, in_link=in_link)}</strong>")
        else:
            out.append(f"<em>{_render(groups['em'] or groups['em2'], depth + 1, in_link=in_link)}</em>")
    out.append(escape(text[pos:]))
    return "".join(out)


def render_inline_markdown(text: str | None, *, links: bool = True) -> SafeString:
    """One line of inline Markdown as sanitised HTML. `links=False` for text shown inside a link of its own
    (nested links are invalid HTML): link texts and URLs are kept, as text."""
    if not text:
        return mark_safe("")
    text = " ".join(str(text).split())  # one line: titles imported with line breaks or tabs
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate (not from a database) stops nh3
    head, rest = text[:MAX_INLINE_CHARS], text[MAX_INLINE_CHARS:]
    html = _render(head, 0) + escape(rest)
    tags = INLINE_TAGS if links else INLINE_TAGS - {"a"}
    clean = nh3.clean(
        html,
        tags=tags,
        attributes=INLINE_ATTRIBUTES if links else {},
        url_schemes=INLINE_URL_SCHEMES,
        link_rel=LINK_REL if links else None,
    )
    # nh3 writes apostrophes as they are; Django's escape (and so every other title on the site) writes &#x27;.
    return mark_safe(clean.replace("'", "&#x27;"))
