"""The filter every FilterSet uses for text a visitor types (a search, a handle, a component)."""

import django_filters

__all__ = ["MAX_FILTER_TEXT_CHARS", "TextFilter"]

#: Far more than any title, handle, component or search phrase, and far below what SQLite accepts in one LIKE
#: pattern (50,000 bytes, SQLITE_MAX_LIKE_PATTERN_LENGTH; a longer one is an error, "LIKE or GLOB pattern too
#: complex", not an empty result). 1,000 characters are at most 4,000 bytes of UTF-8.
MAX_FILTER_TEXT_CHARS = 1000


class TextFilter(django_filters.CharFilter):
    """A CharFilter whose text is at most `max_length` characters: longer text is the field's form error on a page
    and a 400 naming the parameter in the API, on every database alike."""

    def __init__(self, *args, max_length: int = MAX_FILTER_TEXT_CHARS, **kwargs):
        super().__init__(*args, max_length=max_length, **kwargs)
