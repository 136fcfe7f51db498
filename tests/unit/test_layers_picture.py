"""tools/draw_layers.py: the guide's picture of the packages, drawn from the imports."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("draw_layers",
                                                  ROOT / "tools" / "draw_layers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_package_is_drawn_and_graphviz_renders_it(tool):
    graph = tool.package_graph()
    packages = {path.name for path in (ROOT / "hearth").iterdir()
                if (path / "__init__.py").exists()} - {"engine"}
    assert {f"hearth.{name}" for name in packages} <= set(graph.nodes)
    assert {"hearth.engine.template", "hearth.engine.stacks"} <= set(graph.nodes)
    assert graph.has_edge("hearth.cli", "hearth.common")  # an import the code has
    text = tool.render(graph)
    assert '[label="hearth.cli"' in text
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (tools/ensure-graphviz.sh)")
    svg = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True,
                         check=True).stdout
    assert "hearth.engine.template" in svg


def test_only_the_arrows_no_path_implies_and_cycles_boxed(tool):
    graph = nx.DiGraph([("hearth.cli", "hearth.api"), ("hearth.api", "hearth.db"),
                        ("hearth.cli", "hearth.db"), ("hearth.db", "hearth.common"),
                        ("hearth.common", "hearth.db")])
    text = tool.render(graph)
    assert "hearth_cli -> hearth_api;" in text
    assert "hearth_cli -> hearth_db" not in text       # implied by cli -> api -> db
    assert "hearth_api -> hearth_common [lhead=cluster_hearth_common];" in text
    assert 'label="import cycle: these 2 packages import each other"' in text
    assert tool.cycles(graph) == [["hearth.common", "hearth.db"]]
