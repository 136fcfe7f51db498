"""Rendering DOT text with Graphviz's dot: pictures, a missing program, bad input."""

from __future__ import annotations

import shutil
import struct

import pytest

from hearth.common import exception
from hearth.utils import graphviz

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (make installs it)")
DOT = 'digraph "g" { "a" -> "b" [label="get_attr"]; }\n'


def png_size(data: bytes) -> tuple[int, int]:
    """Return (width, height) read from a PNG's IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@needs_dot
def test_png_is_a_png_of_sane_size():
    width, height = png_size(graphviz.render(DOT, "png"))
    assert 40 <= width <= 1000 and 80 <= height <= 1000


@needs_dot
def test_svg_names_the_nodes():
    svg = graphviz.render(DOT, "svg").decode()
    assert "<svg" in svg and ">a</text>" in svg and ">get_attr</text>" in svg


@needs_dot
def test_dot_refusing_the_text_is_a_clear_error():
    with pytest.raises(exception.GraphRenderFailed) as caught:
        graphviz.render("digraph { a -> }", "svg")
    assert str(caught.value).startswith("Graphviz could not draw the graph as SVG: ")
    assert "syntax error" in str(caught.value)


def test_a_missing_dot_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(exception.GraphvizNotAvailable) as caught:
        graphviz.render(DOT, "png")
    assert "Graphviz's 'dot' program" in str(caught.value)
    assert "--format dot" in str(caught.value)


def test_an_unknown_format_is_refused():
    with pytest.raises(exception.BadRequest) as caught:
        graphviz.render(DOT, "gif")
    assert str(caught.value) == "Unknown graph format 'gif'; choose one of dot, svg, png."
