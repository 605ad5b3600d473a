"""Markdown from meeting notes, retro items and emails, rendered to HTML that is safe to show.

Notes are written by anyone who can edit a SIG's agenda document, so the HTML that Markdown produces is
passed through nh3 (the Rust `ammonia` sanitiser) with a strict allow-list: no scripts, no event
handlers, no style, links only to http/https/mailto, images only from http/https.
"""

import markdown as markdown_lib
import nh3
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


def render_markdown(text: str | None) -> SafeString:
    """Markdown -> sanitised HTML, marked safe for templates. Empty input gives an empty string."""
    if not text:
        return mark_safe("")
    html = markdown_lib.markdown(text, extensions=MARKDOWN_EXTENSIONS, output_format="html")
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
    return mark_safe(cleaned)  # noqa: S308 - sanitised just above
