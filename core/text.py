"""Rules for text that comes from outside: what is safe on one line, and what a visitor's text may ask of a query.

A milestone label holding a CR/LF broke every reminder subject built from it (Django refuses a header
with a newline, `BadHeaderError`). Labels are refused or cleaned when they are saved through a form or an import,
and email subjects are built with `one_line`, so that a row written any other way still cannot break a header.

`str.isdigit()` is true for "²" and "①", which `int()` refuses; `int()` also refuses a 100,000-digit
number (Python's 4,300-digit limit); and PostgreSQL's `websearch_to_tsquery` fails ("tsquery stack too small") on
a run of 33 dashes, or on a 15,000-word phrase. Each was an anonymous 500. Every page parses a KEP number with
`parse_kep_number` and bounds full-text search with `bound_search_text`.
"""

import re
import unicodedata

#: Characters a one-line text may not hold: controls (CR, LF, TAB, ESC, DEL, NEL…) and the Unicode line and
#: paragraph separators (U+2028, U+2029), which some mail clients and terminals also break lines at.
_LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})
#: `one_line` also turns into spaces: format characters (bidi overrides, zero-width spaces, BOM), surrogates,
#: private use, and every kind of space.
_INVISIBLE = frozenset({"Cf", "Cs", "Co", "Zs"})
#: Kept although of category Cf: ZERO WIDTH JOINER holds emoji sequences together.
_KEEP = frozenset({"\u200d"})
_SPACES = re.compile(r" {2,}")


def line_breaking_characters(text: str) -> list[str]:
    """The characters of `text` that do not belong on one line (controls and line separators), in order."""
    return [char for char in text if unicodedata.category(char) in _LINE_BREAKING]


def one_line(text: str) -> str:
    """`text` with every control, separator, format or space character as one plain space, trimmed.

    Safe in an email header whatever the text holds; visible characters (any script, emoji) are kept.
    """
    cleaned = "".join(
        " "
        if char.isspace() or (unicodedata.category(char) in _LINE_BREAKING | _INVISIBLE and char not in _KEEP)
        else char
        for char in text
    )
    return _SPACES.sub(" ", cleaned).strip()


#: KEP numbers are issue numbers of kubernetes/enhancements (4 digits today); 9 digits still fit a PostgreSQL
#: integer, and a longer "number" is not one.
MAX_KEP_NUMBER_DIGITS = 9
# ASCII digits only: `\d` and `isdigit()` also accept "²", "①" or "٢٧٢٧".
_KEP_NUMBER = re.compile(rf"(?:KEP-?)?\s*#?\s*([0-9]{{1,{MAX_KEP_NUMBER_DIGITS}}})", re.IGNORECASE)

#: Words of a full-text search kept; a search box query has a handful. Also bounds a quoted phrase.
MAX_SEARCH_WORDS = 32
#: Characters of one search word kept (the longest English words, identifiers and URLs fit).
MAX_SEARCH_WORD_CHARS = 100
_SEARCH_TOKEN = re.compile(r'"|[^\s"]+')


def parse_kep_number(text: str) -> int | None:
    """The KEP number `text` names ("2727", "KEP-2727", "kep2727", "#2727", " 2727 "), or None."""
    match = _KEP_NUMBER.fullmatch(text.strip())
    return int(match.group(1)) if match else None


def bound_search_text(text: str) -> str:
    """`text` as `websearch_to_tsquery` may safely receive it: at most MAX_SEARCH_WORDS words of at most
    MAX_SEARCH_WORD_CHARS characters, words without a letter or digit dropped (runs of `-`, `!`, `|`, `<->`:
    operators with nothing to apply to), a run of leading dashes reduced to one (still "without this word"),
    NUL removed. Quotes are kept, so "a phrase" still searches a phrase. Empty when nothing searchable is left.
    """
    tokens: list[str] = []
    words = 0
    for token in _SEARCH_TOKEN.findall(text.replace("\x00", "")):
        if token == '"':
            tokens.append(token)
            continue
        if not any(char.isalnum() for char in token):
            continue
        negated = token.startswith("-")
        token = token.lstrip("-")[:MAX_SEARCH_WORD_CHARS]
        tokens.append(f"-{token}" if negated else token)
        words += 1
        if words == MAX_SEARCH_WORDS:
            break
    if not words:
        return ""
    return " ".join(tokens)


#: Month names (any spelling starting with their first three letters: "Sept", "September") -> numbers, as release
#: schedules and meeting notes write dates.
MONTH_NUMBERS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
