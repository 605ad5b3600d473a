"""Parsers for upstream KEP formats: text in, frozen dataclasses out (no database)."""
