"""Milestone labels and kinds: which words of a schedule name which milestone."""

import re

from releases.choices import MilestoneKind

from . import schedule_time as st
from .schedule_records import (
    _NAMES_RELEASE,
    _OTHER_EVENTS,
    _PARENTHESES,
    _RELEASE_DAY,
    _VERSION_IN_TEXT,
    _WEEK_PREFIX,
    normalise_label,
)

# -- labels and kinds --------------------------------------------------------------------------------------------


def display_label(text: str) -> str:
    """A row's "What" (or a bullet's description) as shown: no Markdown, week prefix, time notes or parentheses."""
    text = st.clean_markdown(text)
    text = _WEEK_PREFIX.sub("", text)
    text = _PARENTHESES.sub("", text)
    text = re.sub(
        r"\b(?:at\s+)?(?:\d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?|\d{1,2}\s*[ap]\.?m\.?)(?![a-z])\s*(?:UTC|PDT|PST|PT)?\b",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(r"\bat the kubernetes community meeting\b", "", text, flags=re.I)
    return re.sub(r"\s+", " ", text).strip(" -:,")[:200]


_FREEZE_WORDS = [
    (MilestoneKind.PRR_FREEZE, re.compile(r"\bprr\b|production readiness")),
    (MilestoneKind.ENHANCEMENTS_FREEZE, re.compile(r"\benhancements?\b|\bfeature freeze\b")),
    (MilestoneKind.CODE_FREEZE, re.compile(r"\bcode\b")),
    (MilestoneKind.TEST_FREEZE, re.compile(r"\btest\b")),
    (MilestoneKind.DOCS_FREEZE, re.compile(r"\bdocs?\b")),
]


def classify(what: str, *, version: str | None = None) -> tuple[list[str], list[str]]:
    """The milestone kinds a label names (several for "Code Freeze and Test Freeze"), and the freezes it
    closes the exception window of ("Enhancements Freeze exception deadline").

    With the schedule's `version`, a label naming another release's version alone or its cycle start ("1.13 Release
    Cycle Begins" in the 1.12 schedule) is no milestone of this release."""
    text = normalise_label(_PARENTHESES.sub("", what))
    named = _VERSION_IN_TEXT.search(text)
    other_version = bool(version and named and f"{named.group(1)}.{int(named.group(2))}" != version)
    if text in ("release", "final release", "release day"):  # "- Sept 20 release" (1.4, 2016)
        return [MilestoneKind.RELEASE], []
    if re.search(r"\bevaluat", text):  # "1st stability evaluation to shorten Code Freeze" (1.11) is no freeze
        return [], []
    if alone := _NAMES_RELEASE.match(text):
        if version is None or f"{alone.group('major')}.{int(alone.group('minor'))}" == version:
            return [MilestoneKind.RELEASE], []
        return [], []
    raw = st.clean_markdown(what)
    if "exception" in text:
        if re.search(r"\b(deadline|due|close[sd]?|closing|ends?|last day)\b", text) and "call for" not in text:
            return [], [kind for kind, words in _FREEZE_WORDS if words.search(text)]
        return ([MilestoneKind.OTHER] if _OTHER_EVENTS.search(text) else []), []
    if "brace yourself" in text:
        return [], []
    kinds = []
    if (
        re.search(
            r"\bstart of (the )?release cycle\b|\brelease cycle (begins|starts)\b"
            r"|\bcoding (start|starts|begins|period begins|week 1)\b",
            text,
        )
        and not other_version
    ):
        kinds.append(MilestoneKind.CYCLE_START)
    if re.search(r"\b(production readiness|prr)\b.*\bfreeze\b", text):
        kinds.append(MilestoneKind.PRR_FREEZE)
    if re.search(r"\bfeature blogs? freeze\b", text):
        kinds.append(MilestoneKind.FEATURE_BLOG_FREEZE)
    elif re.search(r"\benhancements? freeze\b|\bfeature freeze\b|\bfeatures? repo freeze\b", text):
        kinds.append(MilestoneKind.ENHANCEMENTS_FREEZE)
    # The end of code freeze (2017-2018: "End of code freeze: master branch re-opens") is its thaw, not the freeze.
    if re.search(r"\bend of (the )?code freeze\b|\bcode freeze (ends|is lifted)\b|\blift (the )?code freeze\b", text):
        kinds.append(MilestoneKind.OTHER)
    elif re.search(r"\bcode (and test )?freeze\b", text) and not re.search(r"\blifting (the )?code freeze\b", text):
        kinds.append(MilestoneKind.CODE_FREEZE)
    if re.search(r"\btest freeze\b", text):
        kinds.append(MilestoneKind.TEST_FREEZE)
    if re.search(r"\bdocs? (freeze|deadline|complete|must be completed)\b", text):
        kinds.append(MilestoneKind.DOCS_FREEZE)
    if _RELEASE_DAY.search(raw):
        kinds.append(MilestoneKind.RELEASE)
    if re.search(r"\bretrospective\b|\bretro\b", text):
        kinds.append(MilestoneKind.RETROSPECTIVE)
    if not kinds and _OTHER_EVENTS.search(text):
        kinds.append(MilestoneKind.OTHER)
    return kinds, []
