"""Parser for a release's exception requests: kubernetes/sig-release `releases/release-1.NN/exceptions.yaml`.

Each request names a KEP (or another issue), the freeze it asks to pass, when it was asked and decided, the
mailing-list thread, the PRs and the release team's decision. The file changed shape over the years, and the
parser reads every shape:

* 2018-2020 (1.10-1.18): a bare YAML list; the freeze is named only by the comment line opening each group
  ("# Exceptions to Enhancement Freeze requested in 1.16", "# Code Freeze exception requests in 1.17").
* 2021 on (1.19-): a mapping by freeze (`enhancementFreeze:`, `codeFreeze:`, `docsFreeze:`), each a list;
  comment headings remain above the keys.
* Some releases have no file at all (the service then has nothing to read; that is no error).
* `issue` is a number (1186), a "#1186", a kubernetes/enhancements issue URL, a URL of the old
  kubernetes/features repository (2016-2018; its issue numbers are the same KEP tracking issues, the repository
  was renamed), or a kubernetes/kubernetes issue or PR URL, which is no KEP: such a request keeps its link and
  names no KEP number.
* `status` in any case and in several words ("Approved", "approved", "Denied", "rejected", "Removed",
  "reverted"); missing while the request is open.
* Dates with or without zero padding ("2019-7-31", 2020), "Jan 30th, 2019" (2019), quoted or not, or no dates
  at all (2018, 1.10 and 1.11: the service then assumes the freeze's date); a review date before the request (a
  typo of 2022: "2021-08-03" for 2022) is kept as written here; the service reads it, with a warning.
* `pull_requests` with empty entries (a bare "-", 2019) and quoted or unquoted URLs; spelt `pull-requests` (2020,
  1.19: five of its six requests), its items at the key's own indentation (valid YAML either way). A key's
  hyphens read as underscores.
* Files that are not valid YAML at all (2019-2023): a line holding only an invisible character (U+200B, U+FEFF,
  a non-breaking space) between entries; a trailing comma after a quoted string (2020: `- "https://…", `);
  entries indented by one or two spaces more than the others, "status:Approved" without a space, a
  `pull_requests:` with text or a link on its own line, the file's empty template entry left in (2019, 1.14, a
  file named `exception.yaml`). So the file is never loaded as YAML: it is cut into entries by their "- <key>:"
  lines and each entry is read line by line, `key: value` and "- item" under `pull_requests`. Invisible lines are
  blank; a trailing comma is dropped and a PR that is no link is left out, each with a warning naming its line;
  an empty entry is skipped with a warning. An entry with a line that is neither, or a value that cannot be read
  (an issue that is no number nor link, a date that is no date), is reported with its first line
  (`ExceptionsFile.problems`) and the others are kept.
* One KEP may ask several times in a release, even for the same freeze (asked, denied, asked again): every
  entry is a request of its own.

Pure: text in, dataclasses out. Nothing here touches the database.
"""

import datetime
import re
from dataclasses import dataclass, field

from releases.choices import ExceptionDecision, Freeze

#: Keys of one request. The first line of an entry is "- <one of these>:"; a PR URL item ("- https://…") is not.
ENTRY_KEYS = frozenset({"name", "issue", "kep", "date_requested", "date_reviewed", "thread", "pull_requests", "status"})
_ENTRY_START = re.compile(r"^(?P<indent>\s*)-\s+(?P<key>[A-Za-z_][A-Za-z_-]*)\s*:")
_MAPPING_KEY = re.compile(r"^(?P<key>[A-Za-z][A-Za-z_ ]*?)\s*:\s*(?:#.*)?$")
_COMMENT = re.compile(r"^\s*#(?P<text>.*)$")
#: Characters that show nothing: a line of only these (and spaces) is blank.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00a0\u3000"
_DATE = re.compile(r"^\s*(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})\b")
#: "Jan 30th, 2019" (2019, 1.14).
_WORDY_DATE = re.compile(r"^(?P<month>[A-Za-z]{3,9})\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b")
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_ISSUE_NUMBER = re.compile(r"^\s*(?:kep[-\s]?)?#?(?P<number>\d{1,6})\s*$", re.IGNORECASE)
#: kubernetes/enhancements and (before its 2018 rename) kubernetes/features: KEP tracking issues.
_KEP_ISSUE_URL = re.compile(
    r"^https?://github\.com/kubernetes/(?:enhancements|features)/(?:issues|pull)/(?P<number>\d+)\b", re.IGNORECASE
)
_URL = re.compile(r"^https?://\S+$")
#: `key: "value",` (a JSON habit): the comma after the closing quote makes the entry invalid YAML.
_TRAILING_COMMA_VALUE = re.compile(r"^(?:\"[^\"]*\"|'[^']*')\s*,$")

#: A freeze by the word its mapping key or heading uses.
_FREEZE_WORDS = (
    (re.compile(r"\bprr\b|production\s*readiness", re.IGNORECASE), Freeze.PRR),
    (re.compile(r"enhancements?|features?", re.IGNORECASE), Freeze.ENHANCEMENTS),
    (re.compile(r"\bcode\b|\bcode(?=freeze)", re.IGNORECASE), Freeze.CODE),
    (re.compile(r"\bdocs?\b|documentation|\bdocs?(?=freeze)", re.IGNORECASE), Freeze.DOCS),
)

#: The decision a status word means, first match wins. Words not listed leave the request pending, with a warning.
_DECISION_WORDS = (
    (re.compile(r"revert", re.IGNORECASE), ExceptionDecision.REVERTED),
    (re.compile(r"remov|withdr", re.IGNORECASE), ExceptionDecision.REMOVED),
    (re.compile(r"deni|deny|reject|declin|not approved", re.IGNORECASE), ExceptionDecision.REJECTED),
    (re.compile(r"approv|accept|grant", re.IGNORECASE), ExceptionDecision.APPROVED),
    (re.compile(r"pending|review|open|waiting", re.IGNORECASE), ExceptionDecision.PENDING),
)


@dataclass(frozen=True)
class ExceptionRecord:
    """One exception request as the file gives it, normalised.

    `kep_number` is None when the request names no KEP (a kubernetes/kubernetes issue or PR: `issue_url` keeps
    it). `ordinal` counts earlier entries of the same KEP (or link), freeze and request date in this file, so
    two identical requests stay two rows.
    """

    line: int
    freeze: str
    name: str
    kep_number: int | None
    issue_url: str
    requested: datetime.date | None
    reviewed: datetime.date | None
    thread_url: str
    pull_requests: tuple[str, ...]
    status_text: str
    decision: str
    ordinal: int = 0

    @property
    def subject(self) -> str:
        """What the request is about, for keys and messages: "KEP-1186" or its link."""
        return f"KEP-{self.kep_number}" if self.kep_number is not None else self.issue_url

    @property
    def key(self) -> str:
        """Identity within a release: freeze, subject, request date and ordinal (see the service)."""
        requested = self.requested.isoformat() if self.requested else "undated"
        return f"{self.freeze}|{self.subject}|{requested}|{self.ordinal}"


@dataclass(frozen=True)
class Problem:
    """An entry that could not be read: its first line and why."""

    line: int
    message: str


@dataclass
class ExceptionsFile:
    requests: list[ExceptionRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


def freeze_from_words(text: str) -> str | None:
    """The freeze a heading or key names ("Code Freeze exception requests", "enhancementFreeze"), else None."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    for pattern, freeze in _FREEZE_WORDS:
        if pattern.search(spaced):
            return freeze
    return None


def decision_from_status(text: str) -> str | None:
    """The decision a status means ("Denied", "APPROVED", "rejected (too late)"); "" is pending; None: unknown."""
    if not text.strip():
        return ExceptionDecision.PENDING
    for pattern, decision in _DECISION_WORDS:
        if pattern.search(text):
            return decision
    return None


def parse_date(value) -> datetime.date | None:
    """A date as written: "2019-07-31", "2019-7-31", "Jan 30th, 2019"; None when empty. ValueError for text that
    is no date (or no day of the calendar)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    text = str(value).strip()
    if match := _DATE.match(text):
        year, month, day = int(match["y"]), int(match["m"]), int(match["d"])
    elif (match := _WORDY_DATE.match(text)) and match["month"][:3].lower() in _MONTHS:
        year, month, day = int(match["y"]), _MONTHS.index(match["month"][:3].lower()) + 1, int(match["d"])
    else:
        raise ValueError(f"not a date: {text!r}")
    try:
        return datetime.date(year, month, day)
    except ValueError as exc:
        raise ValueError(f"not a date: {text!r} ({exc})") from exc


def parse_issue(value) -> tuple[int | None, str]:
    """`issue` -> (KEP number or None, link). ValueError when it is neither a number nor a link."""
    text = str(value).strip() if value is not None else ""
    if not text:
        raise ValueError("no issue")
    if match := _ISSUE_NUMBER.match(text):
        number = int(match["number"])
        if number == 0:
            raise ValueError(f"not an issue number: {text!r}")
        return number, f"https://github.com/kubernetes/enhancements/issues/{number}"
    if match := _KEP_ISSUE_URL.match(text):
        return int(match["number"]), text
    if _URL.match(text):
        return None, text
    raise ValueError(f"neither an issue number nor a link: {text!r}")


def _blank(line: str) -> bool:
    return not line.strip(" \t\r" + _INVISIBLE)


def parse_exceptions(text: str) -> ExceptionsFile:
    """Every request of an exceptions.yaml, with the entries that could not be read and why (see the module)."""
    result = ExceptionsFile()
    lines = text.splitlines()
    freeze: str | None = None
    entry: list[tuple[int, str]] = []
    entry_freeze: str | None = None
    seen: dict[tuple, int] = {}

    def flush():
        nonlocal entry
        if entry:
            _read_entry(entry, entry_freeze, result, seen)
        entry = []

    for number, line in enumerate(lines, start=1):
        if _blank(line):
            continue  # blank, or a stray invisible character between entries
        if comment := _COMMENT.match(line):
            # A heading opens the next group; a comment inside an entry is only a comment.
            if named := _heading_freeze(comment["text"]):
                flush()
                freeze = named
            continue
        if not line[0].isspace() and (key := _MAPPING_KEY.match(line)) and key["key"] not in ENTRY_KEYS:
            flush()
            named = freeze_from_words(key["key"])
            if named is None:
                message = f"unknown group {key['key']!r}: not a freeze; its entries skipped"
                result.problems.append(Problem(number, message))
            freeze = named
            continue
        start = _ENTRY_START.match(line)
        if start and _entry_key(start["key"]) in ENTRY_KEYS:
            flush()
            entry_freeze = freeze
        elif not entry:
            result.problems.append(Problem(number, f"not part of a request: {line.strip()[:60]!r}"))
            continue
        entry.append((number, line))
    flush()
    return result


def _heading_freeze(comment: str) -> str | None:
    # "# Release Team Lead: …" and "# Google Group: …" name no freeze; a heading says freeze or exception.
    if not re.search(r"freeze|exception", comment, re.IGNORECASE):
        return None
    return freeze_from_words(comment)


_KEY_LINE = re.compile(r"^\s*(?:-\s*)?(?P<key>[A-Za-z_][A-Za-z_-]*)\s*:(?P<value>.*)$")


def _entry_key(key: str) -> str:
    """A request's key as the parser names it: `pull-requests` (1.19) is `pull_requests`."""
    return key.replace("-", "_")


_ITEM_LINE = re.compile(r"^\s*-(?:\s+(?P<value>.*))?\s*$")
_QUOTED = re.compile(r"^(?P<quote>[\"'])(?P<text>.*)(?P=quote)$")


def _value(raw: str, number: int, result: ExceptionsFile) -> str:
    """A scalar as the files write it: quoted or not, a trailing comma after the closing quote dropped (with a
    warning), a comment after an unquoted value dropped."""
    value = raw.strip(" \t" + _INVISIBLE)
    if _TRAILING_COMMA_VALUE.match(value):
        result.warnings.append(Problem(number, "trailing comma after a quoted value: dropped"))
        value = value.rstrip(" ,")
    if match := _QUOTED.match(value):
        return match["text"].replace('\\"', '"').strip()
    return re.sub(r"\s+#.*$", "", value).strip()


def _read_entry(entry: list[tuple[int, str]], freeze: str | None, result: ExceptionsFile, seen: dict) -> None:
    """One request, added to `result.requests`, or a problem or warning naming its first line."""
    first = entry[0][0]
    fields = _entry_fields(entry, result)
    if fields is None:
        return
    data, prs = fields
    if not any(data.values()) and not prs:
        result.warnings.append(Problem(first, "an empty entry (the file's template): skipped"))
        return
    if freeze is None:
        result.problems.append(Problem(first, "no freeze named above this request (no heading or group key)"))
        return
    try:
        kep_number, issue_url = parse_issue(data.get("issue") or data.get("kep"))
        requested = parse_date(data.get("date_requested"))
        reviewed = parse_date(data.get("date_reviewed"))
    except ValueError as exc:
        result.problems.append(Problem(first, f"request not read: {exc}"))
        return
    status_text = " ".join(data.get("status", "").split())
    decision = decision_from_status(status_text)
    if decision is None:
        result.warnings.append(Problem(first, f"unknown status {status_text!r}: kept as pending"))
        decision = ExceptionDecision.PENDING
    pull_requests, thread = _links(prs, data.get("thread", ""), first, result)
    # Requests of one KEP, freeze and day are told apart by the order they come in the file.
    subject = (kep_number, "" if kep_number is not None else issue_url, freeze, requested)
    ordinal = seen.get(subject, 0)
    seen[subject] = ordinal + 1
    result.requests.append(
        ExceptionRecord(
            line=first,
            freeze=freeze,
            name=" ".join(data.get("name", "").split())[:300],
            kep_number=kep_number,
            issue_url=issue_url,
            requested=requested,
            reviewed=reviewed,
            thread_url=thread,
            pull_requests=pull_requests,
            status_text=status_text,
            decision=decision,
            ordinal=ordinal,
        )
    )


def _entry_fields(
    entry: list[tuple[int, str]], result: ExceptionsFile
) -> tuple[dict[str, str], list[tuple[int, str]]] | None:
    """An entry's lines, never read as YAML (see the module): `key: value` lines of the known keys, and "- " items
    of `pull_requests`, as (the values by key, the PRs with their lines). A line that is neither makes the entry
    unreadable: None, with a problem named by its first line."""
    data: dict[str, str] = {}
    prs: list[tuple[int, str]] = []
    current = ""
    for number, line in entry:
        key = _KEY_LINE.match(line)
        if key and _entry_key(key["key"]) in ENTRY_KEYS:
            current = _entry_key(key["key"])
            value = _value(key["value"], number, result)
            if current == "pull_requests":
                if value:
                    prs.append((number, value))
            else:
                data[current] = value
            continue
        item = _ITEM_LINE.match(line)
        if item and current == "pull_requests":
            value = _value(item["value"] or "", number, result)
            if value:
                prs.append((number, value))
            continue
        first = entry[0][0]
        result.problems.append(Problem(first, f"request not read: line {number} is no 'key: value' of a request"))
        return None
    return data, prs


def _links(prs: list[tuple[int, str]], thread: str, first: int, result: ExceptionsFile) -> tuple[tuple[str, ...], str]:
    """The PRs and the thread that are links; each one that is not is left out with a warning."""
    pull_requests = []
    for number, pr in prs:
        if _URL.match(pr):
            pull_requests.append(pr)
        else:
            result.warnings.append(Problem(number, f"pull request is not a link: {pr[:60]!r}; not kept"))
    if thread and not _URL.match(thread):
        result.warnings.append(Problem(first, f"thread is not a link: {thread[:60]!r}; not kept"))
        thread = ""
    return tuple(pull_requests), thread
