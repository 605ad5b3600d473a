"""iCalendar (RFC 5545) text written directly: the few value types the site's feeds use, escaped and folded as the
RFC says, with no object per property.

Built with the `icalendar` package, the all-releases feed (about a hundred events) spent nine tenths of its render
making a Python object for every property and parameter and folding each line character by character: 60-90 ms
per uncached request on the real import. Here a calendar is a list of content lines joined once. The feeds' tests
parse the output with `icalendar`, so what is written stays what a client reads.

- TEXT values escape backslash, semicolon, comma and newlines (§3.3.11); URIs are written as they are (§3.3.13).
- A DATE-TIME is written in UTC, with the `Z` (§3.3.5, form #2); a DATE as YYYYMMDD; a DURATION as ±PnDTnHnMnS.
- Lines longer than 75 octets are folded with CRLF and one space (§3.1), never inside a UTF-8 sequence.
"""

import datetime

CRLF = "\r\n"
#: Octets per line before folding (RFC 5545 §3.1), the CRLF not counted.
LINE_OCTETS = 75


def text(value: str) -> str:
    """A TEXT value: `\\`, `;`, `,` escaped and every line break (CRLF, CR or LF) as `\\n`."""
    value = value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return value.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def text_list(values) -> str:
    """A multi-valued TEXT property (CATEGORIES): each value escaped, then joined by commas."""
    return ",".join(text(value) for value in values)


def utc(value: datetime.datetime) -> str:
    """An aware datetime as a UTC DATE-TIME: 20220204T020000Z (seconds kept, microseconds dropped)."""
    return value.astimezone(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")


def date(value: datetime.date) -> str:
    return value.strftime("%Y%m%d")


def duration(value: datetime.timedelta) -> str:
    """A DURATION: -P1D, PT12H, P1DT2H30M (weeks are written as days)."""
    sign = "-" if value < datetime.timedelta(0) else ""
    seconds = abs(int(value.total_seconds()))
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    time = "".join(f"{n}{unit}" for n, unit in ((hours, "H"), (minutes, "M"), (seconds, "S")) if n)
    if not days and not time:
        return "PT0S"
    return f"{sign}P{f'{days}D' if days else ''}{f'T{time}' if time else ''}"


def fold(line: str) -> str:
    """`line` folded to lines of at most 75 octets: each continuation starts with a space, which counts."""
    if len(line) <= LINE_OCTETS // 4 or len(line.encode()) <= LINE_OCTETS:
        return line
    parts, current, size = [], [], 0
    limit = LINE_OCTETS
    for char in line:
        width = len(char.encode())
        if size + width > limit:
            parts.append("".join(current))
            current, size, limit = [], 0, LINE_OCTETS - 1
        current.append(char)
        size += width
    parts.append("".join(current))
    return (CRLF + " ").join(parts)


def content_line(name: str, written: str, /, **parameters: str) -> str:
    """`NAME;PARAM=VALUE:written`, folded. `written` is the value already written in its type (`text`, `utc`, ...);
    parameter values are the feeds' own constants (VALUE=DURATION), which need no quoting."""
    params = "".join(f";{key.upper()}={param}" for key, param in parameters.items())
    return fold(f"{name}{params}:{written}")


def calendar_bytes(lines: list[str]) -> bytes:
    """The content lines as one iCalendar stream: CRLF after every line, UTF-8."""
    return (CRLF.join(lines) + CRLF).encode()
