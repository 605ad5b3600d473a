"""What makes a stored text safe to show on one line: the rule shared by model validation, importers and emails.

Issue 17 F: a milestone label holding a CR/LF broke every reminder subject built from it (Django refuses a header
with a newline, `BadHeaderError`). Labels are refused or cleaned when they are saved through a form or an import,
and email subjects are built with `one_line`, so that a row written any other way still cannot break a header.
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
