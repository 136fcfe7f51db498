"""The committed resource type pages match the plug-ins (run tools/build_docs.py)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_tool():
    spec = importlib.util.spec_from_file_location("build_docs", ROOT / "tools" / "build_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_resource_type_pages_are_current():
    tool = load_tool()
    stale = tool.stale_pages(tool.build())
    assert stale == [], "run: python tools/build_docs.py"


def test_a_page_shows_schema_facts():
    tool = load_tool()
    page = tool.build()[tool.OUTPUT / "OS__Heat__RandomString.rst"]
    assert page.startswith("OS::Heat::RandomString\n======================\n")
    assert "``length`` (Integer, optional, changing it replaces the resource)" in page
    assert "Default: ``32``." in page
    assert "\n``sequence``" not in page  # the hidden top-level property
    assert "``show`` (Map)" in page
