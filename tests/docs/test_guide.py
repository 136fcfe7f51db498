"""The user guide builds with Sphinx without a warning, and every sample in it runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs import guide_samples, test_first_hour

SPHINX_TIMEOUT = 600
PAGES = guide_samples.guide_pages()


@pytest.mark.slow
def test_the_guide_builds_without_warnings(tmp_path):
    sphinx = Path(sys.executable).with_name("sphinx-build")
    result = subprocess.run(
        [str(sphinx), "-W", "--keep-going", "-q", "-b", "html", "-d", str(tmp_path / "trees"),
         str(guide_samples.DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=SPHINX_TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    index = (tmp_path / "html" / "index.html").read_text()
    assert "Hearth user guide" in index
    reference = (tmp_path / "html" / "rest-api.html").read_text()
    assert "/v1/{tenant_id}/stacks/{stack_name}/{stack_id}/graph" in reference
    operations = (tmp_path / "html" / "operations.html").read_text()
    assert "group_commit_delay" in operations   # generated from oslo.config
    architecture = (tmp_path / "html" / "architecture.html").read_text()
    picture = re.search(r'<object data="(_images/graphviz-\w+\.svg)"', architecture)
    assert picture, "the packages' picture (.. hearth-layers::) is missing"
    assert "hearth.engine.template" in (tmp_path / "html" / picture.group(1)).read_text()


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_no_sample_escapes_the_tests(page):
    bare = guide_samples.literal_blocks(page.read_text())
    assert bare == [], (f"{page.name}: bare '::' literal blocks at lines {bare}; use "
                        "'.. code-block:: LANGUAGE' so the guide tests run them")


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_sample_runs(page, tmp_path):
    if page.name in test_first_hour.PAGES_IT_RUNS and test_first_hour.demo_ports_free():
        pytest.skip("test_first_hour runs this page after README.rst (one walk, not two)")
    sandbox = guide_samples.PageSandbox(tmp_path)
    try:
        sandbox.run_page(guide_samples.extract(page))
    finally:
        sandbox.stop_processes()


def test_console_output_matching():
    check = guide_samples.check_output
    check("x", ["a ... c", "...", "d"], "a b c\nskip\nd\n", "here")
    with pytest.raises(AssertionError, match="did not print 'a'"):
        check("x", ["d", "a"], "a\nd\n", "here")


def test_the_pages_once_kept_for_later_work_are_written():
    index = (guide_samples.DOCS / "index.rst").read_text()
    for page in ("tutorial", "master-and-agents", "ext-pillars", "cloud-drivers"):
        assert f"   {page}\n" in index
        assert ".. note:: To be written" not in (guide_samples.DOCS / f"{page}.rst").read_text()
