"""Template helpers shared by every app: `{% load sigtracker_tags %}`."""

import datetime

from django import template
from django.utils import timezone
from django.utils.safestring import SafeString

from core.markdown import render_markdown
from core.markdown_inline import render_inline_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str | None) -> SafeString:
    """`{{ item.body|markdown }}`: Markdown rendered and sanitised (see core.markdown)."""
    return render_markdown(text)


@register.filter(name="inline_markdown")
def inline_markdown_filter(text: str | None, arg: str = "") -> SafeString:
    """`{{ item.title|inline_markdown }}`: code, strike-through, emphasis and links of one line, sanitised (see
    core.markdown_inline). `|inline_markdown:"nolinks"` inside a link of its own."""
    return render_inline_markdown(text, links=arg != "nolinks")


@register.filter
def github_short(url: str) -> str:
    """`https://github.com/kubernetes/kubernetes/pull/123` -> `kubernetes/kubernetes#123`; other URLs as given."""
    prefix = "https://github.com/"
    if not isinstance(url, str) or not url.startswith(prefix):
        return url
    parts = url[len(prefix) :].strip("/").split("/")
    if len(parts) >= 4 and parts[2] in {"pull", "issues"}:
        return f"{parts[0]}/{parts[1]}#{parts[3]}"
    return url[len(prefix) :]


@register.filter
def is_web_url(url: str) -> bool:
    """Only http(s) URLs become links; anything else imported into `links` is shown as text."""
    return isinstance(url, str) and url.lower().startswith(("https://", "http://"))


#: Badge colour of a KEP stage (or a board's target stage): graduated is good, on the way is a warning.
STAGE_BADGE_CLASS = {
    "alpha": "warn",
    "beta": "warn",
    "stable": "ok",
    "deprecated": "bad",
    "deprecation": "bad",
    "removed": "bad",
    "removal": "bad",
}


@register.filter
def stage_class(stage: str) -> str:
    """`<span class="badge {{ kep.stage|stage_class }}">`."""
    return STAGE_BADGE_CLASS.get(stage, "")


@register.filter
def utc_minute(value) -> str:
    """`{{ change.at|utc_minute }}`: an aware time as "YYYY-MM-DD HH:MM" in UTC, for tables of many rows (the `date`
    filter's localisation machinery costs a row more than the rest of it); "" for no time."""
    if not isinstance(value, datetime.datetime):
        return ""
    if timezone.is_aware(value):
        value = value.astimezone(datetime.UTC)
    return value.strftime("%Y-%m-%d %H:%M")
