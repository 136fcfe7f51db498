"""stack-graph's choices that need no engine: the format, and refusing PNG on a terminal."""

from __future__ import annotations

import argparse

import pytest

from hearth.cli import command
from hearth.cli.commands import stack_graph


def args(**values) -> argparse.Namespace:
    defaults = {"format": None, "output": None, "name": "s", "template_file": None,
                "environment_file": None, "parameter": None}
    return argparse.Namespace(**{**defaults, **values})


@pytest.mark.parametrize(("values", "expected"), [
    ({}, "dot"),
    ({"output": "graph.SVG"}, "svg"),
    ({"output": "graph.png"}, "png"),
    ({"output": "graph.txt"}, "dot"),
    ({"output": "graph.png", "format": "dot"}, "dot"),
])
def test_the_format_comes_from_the_option_then_the_file_name(values, expected):
    assert stack_graph.output_format(args(**values)) == expected


def test_png_is_not_written_to_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    with pytest.raises(command.CommandError) as caught:
        stack_graph.do_stack_graph(args(format="png"))
    assert str(caught.value) == "PNG is binary: give --output FILE or redirect the output"
    assert caught.value.exit_code == 2


def test_a_name_and_a_template_together_are_refused():
    with pytest.raises(command.CommandError) as caught:
        stack_graph.graph_data(args(template_file="t.yaml"))
    assert str(caught.value) == "stack-graph needs a STACK name or -f TEMPLATE (not both)"
