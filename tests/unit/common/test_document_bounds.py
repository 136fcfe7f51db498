"""The bounds on documents from outside: depth, YAML alias expansion, self-reference."""

from __future__ import annotations

import time

import pytest
import yaml

from hearth.common import document_bounds
from hearth.common.document_bounds import MAX_DEPTH, DocumentTooComplex, ExpansionTooLarge


def laughs(levels: int, width: int = 9) -> str:
    """Return a "billion laughs" YAML document: ``width ** levels`` strings from a few lines."""
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]"
              for level in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def nested_lists(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_aliases_are_measured_as_written_out():
    text = "a: &x [one, two]\nb: *x\nc: *x\n"
    measure = document_bounds.measure_yaml(yaml.compose(text, Loader=yaml.SafeLoader))
    # each alias stands for the 13 characters of "&x [one, two]"
    assert measure.alias_characters == 2 * len("&x [one, two]")
    assert measure.depth == 2


def test_nested_aliases_multiply():
    measure = document_bounds.measure_yaml(yaml.compose(laughs(3, width=2),
                                                        Loader=yaml.SafeLoader))
    span0 = len("&l0 [lol, lol]")
    span1 = len("&l1 [*l0, *l0]") + 2 * span0
    span2 = len("&l2 [*l1, *l1]") + 2 * span1
    assert measure.alias_characters == 2 * span0 + 2 * span1 + 2 * span2


def test_billion_laughs_is_refused_in_milliseconds():
    text = laughs(9)
    assert len(text) < 600
    started = time.perf_counter()
    with pytest.raises(ExpansionTooLarge) as info:
        document_bounds.load_yaml(text, max_size=524288)
    assert time.perf_counter() - started < 0.5
    assert info.value.size > 9 ** 9 * 3
    assert str(info.value) == (f"the document is {info.value.size} bytes with its YAML "
                               "aliases expanded, more than the 524288 allowed")


def test_aliases_within_the_limit_load_shared():
    data = document_bounds.load_yaml(laughs(2), max_size=10_000)
    assert data["l2"] == [[["lol"] * 9] * 9] * 9


def test_a_document_without_aliases_is_not_held_to_the_expansion_limit():
    text = "a: [" + ", ".join(["x"] * 100) + "]\n"
    assert document_bounds.load_yaml(text, max_size=10)["a"] == ["x"] * 100


def test_an_alias_inside_its_own_anchor_is_refused():
    with pytest.raises(DocumentTooComplex) as info:
        document_bounds.load_yaml("a: 1\nb: &x [1, *x]\n")
    assert str(info.value) == ("a YAML alias refers to a node that contains it (the document "
                               "would be infinite)")
    assert info.value.line == 2


@pytest.mark.parametrize("text", [
    f"a: {nested_lists(MAX_DEPTH - 1)}",
    # an alias deep down adds its own depth
    f"x: &a {nested_lists(50)}\ny: {'[' * (MAX_DEPTH - 51)}*a{']' * (MAX_DEPTH - 51)}",
])
def test_the_deepest_document_allowed_loads(text):
    assert document_bounds.load_yaml(text) is not None


@pytest.mark.parametrize("text", [
    f"a: {nested_lists(MAX_DEPTH)}",
    f"x: &a {nested_lists(50)}\ny: {'[' * (MAX_DEPTH - 50)}*a{']' * (MAX_DEPTH - 50)}",
    "a:\n" + "".join("  " * level + "- \n" for level in range(1, MAX_DEPTH + 2)),
    f"a: {nested_lists(5000)}",  # past libyaml's own limit
])
def test_one_level_deeper_is_refused(text):
    with pytest.raises(DocumentTooComplex) as info:
        document_bounds.load_yaml(text)
    assert str(info.value) == (f"the document is nested too deeply (more than {MAX_DEPTH} "
                               "levels of maps and lists)")
    assert isinstance(info.value, yaml.YAMLError)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000, 100_000])
def test_json_nested_too_deeply_is_refused(depth):
    with pytest.raises(DocumentTooComplex) as info:
        document_bounds.load_json(nested_lists(depth))
    assert isinstance(info.value, ValueError)
    assert "nested too deeply" in str(info.value)


def test_json_as_deep_as_allowed_loads():
    assert document_bounds.load_json('{"a": ' + nested_lists(MAX_DEPTH - 1) + "}")


def test_json_errors_stay_json_errors():
    with pytest.raises(ValueError, match="Expecting value"):
        document_bounds.load_json("[")
