"""The first hour: README.rst, then the tutorial, followed literally as a new user does.

One shell, as a reader's terminal: it starts in a checkout (the repository's
files, seen through links, with its ``.venv``), in a clean environment (a new
``HOME``, no ``HEARTH_*`` variable), and runs every command README.rst shows,
in order (``make run``, the stacks, the API, the master and two agents,
``make stop``), then every command of ``docs/tutorial.rst`` (which starts by
making its own directory).  Each must succeed and print what the page shows.
``make test`` is only dry-run (it is what runs this test).
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from tests.docs import guide_samples

ROOT = guide_samples.ROOT
#: The demo's master listens on Hearth's default ports (README: make run).
DEMO_PORTS = (4510, 4511)
#: What a checkout holds that the walk needs (seen through links, not copied).
CHECKOUT_ENTRIES_SKIPPED = {".git", ".pytest_cache", ".ruff_cache", "__pycache__", "build"}


#: Guide pages this walk runs (the page-by-page test leaves them to it).
PAGES_IT_RUNS = ("tutorial.rst",)


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def demo_ports_free() -> bool:
    """Return whether the walk can run here (else it skips): the demo's ports, Graphviz."""
    return all(port_free(port) for port in DEMO_PORTS) and shutil.which("dot") is not None


def checkout(directory: Path) -> Path:
    """Return a checkout of the repository made of links to its files and .venv."""
    directory.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in CHECKOUT_ENTRIES_SKIPPED and not entry.name.endswith(".egg-info"):
            (directory / entry.name).symlink_to(entry)
    return directory


@pytest.mark.slow
def test_the_readme_then_the_tutorial_work_as_written(tmp_path):
    busy = [port for port in DEMO_PORTS if not port_free(port)]
    if busy:
        pytest.skip(f"make run's demo master needs ports {DEMO_PORTS}; {busy} in use here")
    if shutil.which("dot") is None:
        pytest.skip("README draws a PNG: Graphviz's dot is not installed (make installs it)")
    sandbox = guide_samples.PageSandbox(tmp_path, start=checkout(tmp_path / "hearth"))
    try:
        for page in (ROOT / "README.rst", *(guide_samples.DOCS / name for name in PAGES_IT_RUNS)):
            sandbox.run_page(guide_samples.extract(page))
    finally:
        sandbox.stop_processes()


def test_the_readme_hides_no_sample():
    bare = guide_samples.literal_blocks((ROOT / "README.rst").read_text())
    assert bare == [], f"README.rst: bare '::' literal blocks at lines {bare}"
