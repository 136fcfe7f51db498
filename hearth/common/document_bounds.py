"""Bounds on documents read from outside: nesting depth, and size once YAML aliases expand.

Whatever Hearth parses from a request body, a template, an environment or
a file sent with them is later walked recursively (validation, intrinsic
functions, JSON encoding, copies), so a document nested deeper than
:data:`MAX_DEPTH` maps and lists is refused as it is read, before anything
walks it.  The limit is far above any real template (Heat's own rarely
nest 15 deep) and far below Python's recursion limit.

A YAML alias repeats a subtree without repeating its text: 557 bytes of
nested aliases stand for billions of nodes ("billion laughs").
:func:`load_yaml` measures the composed document (:func:`measure_yaml`)
as it would be written out, every alias replaced by the text it stands
for, and refuses it past a size limit before building anything.  The
measure visits each distinct node once, so it costs what reading the text
cost however far the aliases would expand; an alias inside its own anchor
(a document that contains itself) is refused.  :func:`load_json` is
``json.loads`` with the depth bound.

These are bounds on shape: the byte limits (``max_template_size``,
``max_json_body_size``) are checked on the text by the callers first.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

#: The deepest nesting of maps and lists accepted in a document from outside.
MAX_DEPTH = 100


#: The most bytes a YAML document other than a template may take, its aliases expanded.
DEFAULT_MAX_SIZE = 16 * 1024 * 1024


class DocumentTooComplex(ValueError, yaml.YAMLError):
    """A document nests too deeply or refers to itself; ``line`` is 1-based where known.

    Both a ValueError (what ``json.loads`` raises) and a YAMLError (what
    ``yaml.load`` raises): code that turns a parse error into its own
    message catches this one with them.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def too_deep(line: int | None = None, subject: str = "the document") -> DocumentTooComplex:
    """Return the error of a document (``subject``) nested deeper than :data:`MAX_DEPTH`."""
    return DocumentTooComplex(
        f"{subject} is nested too deeply (more than {MAX_DEPTH} levels of maps and lists)",
        line)


def describe_too_deep(subject: str) -> str:
    """Return the sentence refusing ``subject`` (capitalised) as nested too deeply."""
    return f"{too_deep(subject=subject)}."


@dataclass(frozen=True, slots=True)
class YamlMeasure:
    """What :func:`measure_yaml` found: nesting depth and characters the aliases add."""

    depth: int
    alias_characters: int


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _span(node: yaml.Node) -> int:
    return max(node.end_mark.index - node.start_mark.index, 0)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def measure_yaml(root: yaml.Node) -> YamlMeasure:
    """Return the depth and alias expansion of a composed document; refuse what is too deep.

    An alias occurrence adds the characters of the subtree it names (its
    own aliases expanded too).  Raises :class:`DocumentTooComplex` as soon
    as the nesting (aliases expanded) passes :data:`MAX_DEPTH`, or when an
    alias names a node that contains it.
    """
    # Per distinct node: characters its aliases add, and its depth (collections only).
    added: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    # The walk, in document order, so the first visit of an anchored node is its
    # definition and every later one an alias of it.
    stack: list[tuple[yaml.Node, Iterator[yaml.Node], list[int]]] = []

    def enter(node: yaml.Node) -> tuple[int, int] | None:
        """Return (characters, depth) a node adds where it appears, or None when first seen."""
        key = id(node)
        if key in open_nodes:
            raise DocumentTooComplex(
                "a YAML alias refers to a node that contains it (the document would "
                "be infinite)", _line(node))
        if key in added:
            if len(stack) + depth[key] > MAX_DEPTH:
                raise too_deep(_line(node))
            return _span(node) + added[key], depth[key]
        children = _children(node)
        if not children:
            added[key], depth[key] = 0, int(not isinstance(node, yaml.ScalarNode))
            return 0, depth[key]
        if len(stack) >= MAX_DEPTH:
            raise too_deep(_line(node))
        open_nodes.add(key)
        stack.append((node, iter(children), [0, 0]))
        return None

    result = enter(root)
    while stack:
        node, children, totals = stack[-1]
        child = next(children, None)
        if child is not None:
            found = enter(child)
            if found is not None:
                totals[0] += found[0]
                totals[1] = max(totals[1], found[1])
            continue
        stack.pop()
        key = id(node)
        open_nodes.discard(key)
        added[key], depth[key] = totals[0], totals[1] + 1
        if stack:
            parent_totals = stack[-1][2]
            parent_totals[0] += totals[0]
            parent_totals[1] = max(parent_totals[1], depth[key])
        else:
            result = (totals[0], depth[key])
    assert result is not None
    return YamlMeasure(depth=result[1], alias_characters=result[0])


class ExpansionTooLarge(DocumentTooComplex):
    """A YAML document's aliases expand it past a size limit (in bytes, as written out)."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"the document is {size} bytes with its YAML aliases expanded, "
                         f"more than the {limit} allowed")
        self.size = size
        self.limit = limit


_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: libyaml's own refusal of a document nested past its limit (1000 levels).
LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


class BoundedSafeLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """A safe YAML loader that refuses to build collections nested too deeply."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        #: Collections being built: the nesting depth where construction is.
        self.depth = 0

    def construct_document(self, node: yaml.Node) -> Any:
        """Build the document depth first, so that :meth:`construct_object` sees the nesting."""
        self.deep_construct = True
        return super().construct_document(node)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """Build a node, refusing one more than :data:`MAX_DEPTH` collections deep."""
        if isinstance(node, yaml.ScalarNode) or node in self.constructed_objects:
            return super().construct_object(node, deep)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise too_deep(node.start_mark.line + 1)
            return super().construct_object(node, deep)
        finally:
            self.depth -= 1


def load_yaml(text: str, max_size: int = DEFAULT_MAX_SIZE,
              loader: type[BoundedSafeLoader] = BoundedSafeLoader) -> Any:
    """Return the one YAML document of ``text``, within the bounds.

    ``max_size`` bounds the bytes the document takes with its aliases
    expanded (:class:`ExpansionTooLarge`); nesting past :data:`MAX_DEPTH`
    and an alias inside its own anchor are :class:`DocumentTooComplex`.
    Syntax errors are yaml's.  ``loader`` may be a subclass (with its own
    constructors).
    """
    instance = loader(text)
    try:
        try:
            node = instance.get_single_node()
        except yaml.MarkedYAMLError as exc:
            if exc.problem != LIBYAML_TOO_DEEP:
                raise
            raise too_deep(exc.problem_mark.line + 1 if exc.problem_mark else None) from None
        if node is None:
            return None
        if "&" in text:  # without an anchor there is no alias; construction bounds depth
            added = measure_yaml(node).alias_characters
            size = len(text.encode()) + added
            if added and size > max_size:
                raise ExpansionTooLarge(size, max_size)
        return instance.construct_document(node)
    except RecursionError:
        raise too_deep() from None
    finally:
        instance.dispose()


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Return how deep ``value`` nests (a scalar is 0), counting no further than ``limit`` + 1.

    ``value`` is parsed JSON (dicts, lists and scalars); the walk goes level
    by level and stops past ``limit``, so a hostile document costs no more
    than its first ``limit`` + 1 levels.
    """
    deepest, level = 0, [value] if isinstance(value, _CONTAINERS) else []
    while level and deepest <= limit:
        deepest += 1
        level = [child for item in level
                 for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, _CONTAINERS)]
    return deepest


_CONTAINERS = (dict, list)


def check_depth(value: Any) -> None:
    """Raise :class:`DocumentTooComplex` when ``value`` nests more than :data:`MAX_DEPTH` deep."""
    if depth(value) > MAX_DEPTH:
        raise too_deep()


def load_json(text: str | bytes, **kwargs: Any) -> Any:
    """Return ``json.loads(text, **kwargs)``, refusing a document nested too deeply.

    Raises json's ValueError for invalid JSON and :class:`DocumentTooComplex`
    (also a ValueError) beyond :data:`MAX_DEPTH`.
    """
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise too_deep() from None
    check_depth(value)
    return value
