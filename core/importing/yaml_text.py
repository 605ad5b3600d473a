"""YAML files read as text: the safe, fast loader every importer of upstream YAML uses, and the type rules of
its fields.

Every scalar stays text and is typed by the rule of its field (an importer's business): `latest-milestone: 1.30`
stays "1.30" rather than the float 1.3, and `creation-date: 2025-30-01` reaches the date rule instead of
crashing the YAML library. A field of the wrong YAML type (a list where a single value belongs) is an
`ImportFailure` naming the field.
"""

from __future__ import annotations

import yaml

from .results import ImportFailure

__all__ = [
    "PLACEHOLDERS",
    "QUOTES",
    "TextLoader",
    "plain_data",
    "expect_list",
    "load_mapping",
    "scalar",
    "type_error",
    "type_name",
    "unquote",
]

QUOTES = "\"'`“”‘’ \t"
#: What people write for "nothing here yet".
PLACEHOLDERS = frozenset({"", "tbd", "tbc", "todo", "none", "n/a", "na", "-", "?", "unknown", "null", "~"})

#: YAML's base loader: every scalar stays text (no implicit ints, floats, booleans, dates), which is what the
#: rules above need. Its parser and composer are C (libyaml); its constructor is Python and costs more than the
#: parse itself, so `plain_data` builds the str/list/dict tree from the composed nodes directly, turning YAML's
#: null spellings into None on the way.
_BaseLoader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


class TextLoader(_BaseLoader):
    """The base loader without tag resolution: the composer asks for a tag per node (three Python calls each,
    ~40,000 nodes in a full tree), and with every scalar read as text no tag is ever used."""

    def resolve(self, kind, value, implicit):
        return ""

    def descend_resolver(self, current_node, current_index):
        pass

    def ascend_resolver(self):
        pass


_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_ScalarNode, _MappingNode = yaml.ScalarNode, yaml.MappingNode


def plain_data(node: yaml.Node, *, source: str):
    """The node tree as str/list/dict/None, like BaseLoader's constructor followed by mapping nulls to None.

    A node reached again through an alias (`*name`) yields the object already built for it, as in PyYAML, so
    alias bombs stay small and self-referencing structures end instead of recursing forever. A NUL character
    (written `"\\0"` in a quoted scalar) is refused here, naming the line: PostgreSQL cannot store it in text.
    """
    built: dict[int, object] = {}

    def build(node):
        if node.__class__ is _ScalarNode:
            value = node.value
            if "\x00" in value:
                line = node.start_mark.line + 1 if node.start_mark is not None else None
                raise ImportFailure("a NUL character (\\0) cannot be stored", source=source, line=line)
            return None if value in _NULLS else value
        known = built.get(id(node))
        if known is not None:
            return known
        if node.__class__ is _MappingNode:
            mapping: dict = {}
            built[id(node)] = mapping
            for key_node, value_node in node.value:
                key = key_node.value if key_node.__class__ is _ScalarNode else build(key_node)
                mapping[key] = build(value_node)  # an unhashable (list or mapping) key raises TypeError
            return mapping
        sequence: list = []
        built[id(node)] = sequence
        sequence.extend(build(item) for item in node.value)
        return sequence

    return build(node)


def load_mapping(text: str, *, source: str) -> dict:
    """The top-level YAML mapping of `text`, or ImportFailure with the line of a syntax error."""
    loader = TextLoader(text)
    try:
        node = loader.get_single_node()
        data = None if node is None else plain_data(node, source=source)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        reason = " ".join((exc.problem or exc.context or "invalid YAML").split())
        raise ImportFailure(f"YAML does not parse: {reason}", source=source, line=line) from None
    except yaml.reader.ReaderError as exc:
        line = text[: max(exc.position, 0)].count("\n") + 1
        raise ImportFailure(f"YAML does not parse: {exc.reason}", source=source, line=line) from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        raise ImportFailure(f"YAML does not parse: {type(exc).__name__}", source=source) from None
    except RecursionError:
        raise ImportFailure("YAML does not parse: nested too deeply", source=source) from None
    finally:
        loader.dispose()
    if data is None:
        raise ImportFailure("empty file", source=source)
    if not isinstance(data, dict):
        raise ImportFailure(f"expected a mapping at the top level, found {type_name(data)}", source=source)
    return data


def type_name(value) -> str:
    return {dict: "a mapping", list: "a list", str: "text", bool: "a boolean", int: "a number"}.get(
        type(value), type(value).__name__
    )


def type_error(source: str, name: str, expected: str, value) -> ImportFailure:
    return ImportFailure(f"expected {expected}, found {type_name(value)}", source=source, field=name)


def scalar(value, *, source: str, name: str) -> str:
    """Text of a scalar field ('' when absent); a list, mapping or other structure is a type error."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value).strip()
    raise type_error(source, name, "a single value", value)


def expect_list(value, *, source: str, name: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise type_error(source, name, "a list", value)
    return value


def unquote(text: str) -> str:
    return text.strip(QUOTES)
