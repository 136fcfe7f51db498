"""make test's scheduling (tests/scheduling.py): whole modules or xdist groups, longest first."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from tests import scheduling

ROOT = Path(__file__).resolve().parents[2]


def test_a_unit_is_the_module_or_a_spread_test():
    assert scheduling.unit_of("tests/a/test_x.py::test_one") == "tests/a/test_x.py"
    assert scheduling.unit_of("tests/a/test_x.py::Case::test_one[p]") == "tests/a/test_x.py"
    page = "tests/docs/test_guide.py::test_every_sample_runs[operations.rst]"
    assert scheduling.unit_of(page) == page
    assert scheduling.unit_of("tests/docs/test_guide.py::test_console_output_matching") == \
        "tests/docs/test_guide.py"


def test_the_longest_unit_goes_first_and_an_unknown_one_counts_by_its_tests():
    units = {"few-long": ["t"], "many-short": ["t"] * 40, "new": ["t"] * 7}
    order = scheduling.longest_first(units, {"few-long": 90.0, "many-short": 3.0})
    assert order == ["few-long", "new", "many-short"], order


SUITE = {
    "conftest.py": """
        from pathlib import Path
        from tests import scheduling
        from tests.scheduling import (pytest_runtest_logreport, pytest_sessionfinish,
                                      pytest_xdist_make_scheduler)
        scheduling.DURATIONS = Path(__file__).with_name("durations.json")
        scheduling.SPREAD = ("test_pages.py::test_page",)
        """,
    "durations.json": json.dumps({"test_many.py": 1.0, "test_one_long.py": 60.0,
                                  "test_pages.py::test_page[b]": 30.0,
                                  "test_pages.py::test_page[a]": 2.0}),
    "test_many.py": "".join(f"def test_short{n}():\n    pass\n" for n in range(6)),
    "test_one_long.py": "def test_long():\n    pass\n",
    "test_pages.py": """
        import pytest
        @pytest.mark.parametrize("page", ["a", "b"])
        def test_page(page):
            pass
        def test_not_spread():
            pass
        """,
}


def test_a_run_hands_out_the_longest_units_first_and_records_their_seconds(tmp_path):
    for name, text in SUITE.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    recorded = tmp_path / "recorded.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), scheduling.RECORD_ENV: str(recorded)}
    env.pop("PYTEST_ADDOPTS", None)  # the caller's plug-ins are not on this PYTHONPATH
    for name in [name for name in env if name.startswith("PYTEST_XDIST_")]:
        env.pop(name)  # run by an xdist worker, the inner run's controller is no worker
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "1",
         "--dist", "loadgroup", "-v", "-rN", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    ran = re.findall(r"PASSED (\S+)", done.stdout)
    # one worker runs the units one after another, in the order they were handed out
    assert ran == ["test_one_long.py::test_long", "test_pages.py::test_page[b]",
                   "test_pages.py::test_page[a]",
                   *(f"test_many.py::test_short{n}" for n in range(6)),
                   "test_pages.py::test_not_spread"], ran
    assert sorted(json.loads(recorded.read_text())) == [
        "test_many.py", "test_one_long.py", "test_pages.py", "test_pages.py::test_page[a]",
        "test_pages.py::test_page[b]"]
