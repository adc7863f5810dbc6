"""Read a YAML config file: the one reader of scorekit's leaderboard and scoring configs.

PyYAML's safe loader (no Python tags), with these additions: a key written twice in one mapping
is an error (YAML would silently keep the last); nesting deeper than :data:`YAML_DEPTH_MAX`
levels, aliases that expand to more than :data:`YAML_VALUES_MAX` values ("billion laughs") and
integers too large for a float are errors, and so is an alias inside its own anchor (a cyclic value,
also through a merge key ``<<``); a UTF-8 BOM is accepted and a NUL byte is reported
with its line; and every mapping is a :class:`LineMap` that remembers its own line and the line
of each key, so a validator can name the place. Every problem raises
:class:`~scorekit.errors.ScorekitError` naming the file and the line.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from scorekit.errors import ScorekitError, one_line
from scorekit.files import nul_line, read_text

YAML_DEPTH_MAX = 100  # a config is a few levels deep; PyYAML's composer would hit Python's recursion limit near 300
YAML_VALUES_MAX = 100_000  # values after alias expansion; a real config has a few hundred


class LineMap(dict):
    """A mapping that remembers the line of itself and of each key (1-based)."""

    line: int = 0
    key_lines: dict


class _Loader(yaml.SafeLoader):
    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
        self._depth += 1
        try:
            if self._depth > YAML_DEPTH_MAX:
                mark = self.peek_event().start_mark
                raise ScorekitError(f"nested deeper than {YAML_DEPTH_MAX} levels", where=f"line {mark.line + 1}")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_document(self):  # noqa: ANN201
        node = super().compose_document()
        if node is not None:
            _check_expansion(node)
        return node


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a document whose aliases expand to more than YAML_VALUES_MAX values (every alias
    repeats its anchor's whole subtree wherever the value is used or printed), and one with an
    alias inside its own anchor (``a: &x [*x]``, ``a: &x {<<: *x}``): a cyclic value that
    would recurse without end. The cycle is reported at the line of the key (or sequence)
    holding the alias."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # being sized: meeting one again is an alias inside its own anchor

    def size(node: yaml.Node, line: int) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        if id(node) in open_nodes:
            raise ScorekitError(
                f"an alias inside its own anchor (line {node.start_mark.line + 1}): a cyclic value, "
                "which a config cannot be",
                where=f"line {line}",
            )
        open_nodes.add(id(node))
        total = 1
        here = node.start_mark.line + 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child, here) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k, k.start_mark.line + 1) + size(v, k.start_mark.line + 1) for k, v in node.value)
        open_nodes.discard(id(node))
        sizes[id(node)] = total
        if total > YAML_VALUES_MAX:
            raise ScorekitError(
                f"aliases expand to more than {YAML_VALUES_MAX} values (anchor/alias bomb?)", where=f"line {here}",
            )
        return total

    size(root, root.start_mark.line + 1)


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    line = node.start_mark.line + 1
    try:
        value = loader.construct_yaml_int(node)
    except ValueError:  # more than 4300 decimal digits
        raise ScorekitError("integer too large", where=f"line {line}") from None
    if value.bit_length() > 1000:
        raise ScorekitError(f"integer too large (about {int(value.bit_length() * 0.30103) + 1} digits)", where=f"line {line}")
    return value


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> LineMap:
    loader.flatten_mapping(node)
    data = LineMap()
    data.line = node.start_mark.line + 1
    data.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            hash(key)
        except TypeError:
            raise ScorekitError("a mapping key must be a plain value", where=f"line {line}") from None
        if key in data:
            raise ScorekitError(f"duplicate key {key!r} (first at line {data.key_lines[key]})", where=f"line {line}")
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = line
    return data


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def read_yaml(path: str | os.PathLike[str]) -> Any:
    """The parsed YAML of ``path`` (None for an empty file); mappings are :class:`LineMap`."""
    text = read_text(path, expected="a YAML config file", missing="config file not found")
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader derives from SafeLoader
    except ScorekitError as exc:
        raise ScorekitError(str(exc), path=path) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        ctx = exc.context_mark
        if exc.problem and exc.context and ctx is not None and (mark is None or ctx.line != mark.line):
            problem += f" ({exc.context} started at line {ctx.line + 1})"
        raise ScorekitError(f"invalid YAML: {problem}", path=path, where=where) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, ...)
        line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else nul_line(text)
        what = "NUL byte" if exc.character in ("\0", 0) else f"character #x{ord(exc.character) if isinstance(exc.character, str) else exc.character:04x}"
        raise ScorekitError(f"invalid YAML: {what} not allowed", path=path, where=f"line {line}" if line else None) from None
    except yaml.YAMLError as exc:
        raise ScorekitError(f"invalid YAML: {one_line(str(exc))}", path=path) from None
