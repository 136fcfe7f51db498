"""Located containers (the parser's dicts and lists) print in every output format (defect 3)."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from hearth.cli import output
from hearth.engine.template.parser import parse

DOCUMENT = parse("ports: [80, 443]\nopts: {a: [1, {b: 2}]}\n", "t.yaml")
PLAIN = {"ports": [80, 443], "opts": {"a": [1, {"b": 2}]}}


def printed(fmt: str, data: dict) -> str:
    stream = io.StringIO()
    output.show(data, fmt, stream)
    return stream.getvalue()


def test_the_parser_gives_located_containers():
    assert type(DOCUMENT).__name__ == "LocatedDict"
    assert type(DOCUMENT["ports"]).__name__ == "LocatedList"


@pytest.mark.parametrize("fmt, load", [("json", json.loads), ("yaml", yaml.safe_load)])
def test_structured_formats_give_the_plain_values(fmt, load):
    assert load(printed(fmt, DOCUMENT)) == PLAIN


@pytest.mark.parametrize("fmt", ["table", "value"])
def test_cells_show_each_container_as_yaml(fmt):
    text = printed(fmt, DOCUMENT)
    assert "80" in text and "443" in text and "b: 2" in text


def test_listing_of_located_rows():
    stream = io.StringIO()
    output.listing([DOCUMENT], ["ports", "opts"], "yaml", stream)
    assert yaml.safe_load(stream.getvalue()) == [PLAIN]


def test_yaml_safe_dump_knows_located_containers():
    assert yaml.safe_load(yaml.safe_dump(DOCUMENT)) == PLAIN
