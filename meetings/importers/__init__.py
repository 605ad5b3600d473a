"""Parsers for upstream meeting formats: text in, plain dataclasses out (no database)."""
