"""Whether a note says the meeting did not take place (`is_cancellation`).

* Cancelled (`is_cancellation`): the heading says so ("[Canceled]", "Cancelled", "no meeting", "skipped"), or the
  first line of the meeting or a top-level item is only a cancellation note ("**Cancelled** - due to ...",
  "* [dawnchen] Cancelled", "Today's SIG Node was cancelled due to ...", "Cancelling due to lack of agenda",
  "No call (kubecon)", "no agenda"), possibly as one sentence of a short line ("Happy Holidays! No meeting 🎉");
  such a note is the meeting's state, not an agenda item.
"""

from __future__ import annotations

import re

from .inline import clean_inline
from .presenters import split_presenters

# Words that mark a heading, or a short first line of a meeting, as cancelled: the heading rule and the
# file-level parse both read them.
_CANCELLED_WORDS = re.compile(r"\bcancel+(?:ed|ing)\b|\bcancel+ation\b|\bno\s+(?:meeting|call)\b|\bskipped\b", re.I)
_CANCEL_NOTICE = re.compile(
    # "Cancelled", "Meeting is canceled", "Today's SIG Node was cancelled", "Cancelling", "No meeting", "No call"...
    r"^(?:(?:the|today['’]?s|this\s+week['’]?s)\s+)?(?:sig[- ]\w+\s+)?(?:(?:weekly\s+)?(?:meeting|call)\s+)?"
    r"(?:(?:is|was|has\s+been|will\s+be)\s+)?(?:cancel+(?:ed|ing)|no\s+(?:meeting|call)(?:\s+this\s+week)?)"
    # ...followed by nothing, punctuation, emoji or a reason ("Cancelled, no agenda items", "No call (kubecon)"),
    # never by an object ("Cancelled the old plan", "Canceling next week's meeting" are agenda items).
    r"(?:[\W_]*$|\s*[-–—:,.!(]|\s+(?:due|for|because|as|this|today|since|no|in|until)\b)"
    # "no agenda" is a cancellation only when it is the whole note (2018-11-13).
    r"|^no\s+agenda(?:\s+items?)?[\W_]*$",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def is_cancellation(text: str) -> bool:
    """Is this line (presenters removed) only a note that the meeting did not take place?

    A short line may say it in a later sentence ("Happy Holidays! No meeting 🎉🎉", 2019-12-24).
    """
    _, _, rest = split_presenters(text)
    cleaned = clean_inline(rest).strip(" *_-")
    if _CANCEL_NOTICE.match(cleaned):
        return True
    return len(cleaned) <= 160 and any(
        _CANCEL_NOTICE.match(sentence.strip(" *_-")) for sentence in _SENTENCE_END.split(cleaned)[1:]
    )
