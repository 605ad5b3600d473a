"""Pure parsers of upstream release-team formats (text in, dataclasses out; no database)."""
