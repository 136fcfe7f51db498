"""How ``make test`` shares the suite among its pytest-xdist workers: the longest work first.

A *unit* of work is a test module, run whole on one worker so that its module- and
package-scoped servers are started once (as ``--dist loadfile``), except the tests named in
:data:`SPREAD`: each of their parametrizations is a unit of its own, which is how a long
module whose tests share nothing (the guide's pages) is spread over the workers.  (xdist's
own ``xdist_group`` marks cannot say it: with pytest 9 xdist no longer tags the node ids.)
xdist hands out units in the order of their number of tests, which left the modules of a
few long tests (engines killed, the guide's samples) to the end, run by one worker while
the others had finished; here the units go out longest first (the classic
longest-processing-time order), by the seconds ``durations.json`` holds for each, so that
the last units are short and the workers end together.

``make test`` (``--dist loadgroup``) uses this scheduler; a unit missing from
``durations.json`` counts :data:`UNKNOWN_TEST_SECONDS` per test.  Refresh the file after
adding or speeding up tests::

    HEARTH_TEST_DURATIONS=tests/durations.json make test

which writes each unit's seconds (its tests' setup, call and teardown) at the end of the run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

DURATIONS = Path(__file__).with_name("durations.json")
#: the environment variable naming the file a run writes its units' seconds to
RECORD_ENV = "HEARTH_TEST_DURATIONS"
#: the seconds a test of a unit missing from durations.json is counted for
UNKNOWN_TEST_SECONDS = 1.0


#: the tests each of whose parametrizations is a unit of work (they share no server)
SPREAD = (
    "tests/docs/test_guide.py::test_every_sample_runs",
)


def unit_of(nodeid: str) -> str:
    """Return the unit of work of a test: itself if :data:`SPREAD` names it, else its module."""
    if nodeid.split("[", 1)[0] in SPREAD:
        return nodeid
    return nodeid.split("::", 1)[0]


def load_durations(path: Path | None = None) -> dict[str, float]:
    """Return the seconds of each unit recorded in ``path`` (default :data:`DURATIONS`)."""
    path = path or DURATIONS
    try:
        return {str(unit): float(seconds) for unit, seconds in
                json.loads(path.read_text()).items()}
    except FileNotFoundError:
        return {}


def longest_first(units: dict[str, list[str]], durations: dict[str, float]) -> list[str]:
    """Return the units' names, the longest first (a unit unknown counts by its tests)."""
    def seconds(unit: str) -> float:
        known = durations.get(unit)
        return known if known is not None else UNKNOWN_TEST_SECONDS * len(units[unit])
    return sorted(units, key=lambda unit: (-seconds(unit), unit))


class LongestFirstScheduling(LoadScopeScheduling):
    """xdist's scheduling by scope, with units as :func:`unit_of` says, longest first."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.durations = load_durations()

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)

    def schedule(self) -> None:
        """Fill the work queue longest unit first, then let xdist hand it out as usual."""
        assert self.collection_is_completed
        if self.collection is None and self._check_nodes_have_same_collection():
            collection = list(next(iter(self.registered_collections.values())))
            units: dict[str, list[str]] = {}
            for nodeid in collection:
                units.setdefault(self._split_scope(nodeid), []).append(nodeid)
            for unit in longest_first(units, self.durations):
                self.workqueue[unit] = dict.fromkeys(units[unit], False)
        # xdist's own schedule() then stores the same units again: an OrderedDict keeps
        # a key where it was first put, so the queue keeps this order
        super().schedule()


def record(reports: Iterable[Any], path: Path) -> None:
    """Write the seconds of each unit of ``reports`` (every phase of every test) to ``path``."""
    seconds: dict[str, float] = {}
    for report in reports:
        unit = unit_of(report.nodeid)
        seconds[unit] = seconds.get(unit, 0.0) + report.duration
    path.write_text(json.dumps({unit: round(value, 1) for unit, value in
                                sorted(seconds.items())}, indent=0) + "\n")


# pytest hooks (tests/conftest.py imports them)

@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: absent with -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Schedule ``--dist loadgroup`` runs longest unit first (other modes: xdist's own)."""
    if config.getvalue("dist") == "loadgroup":
        return LongestFirstScheduling(config, log)
    return None


_REPORTS: list[Any] = []


def pytest_runtest_logreport(report: Any) -> None:
    """Keep every report when the run records its units' seconds (``HEARTH_TEST_DURATIONS``)."""
    if os.environ.get(RECORD_ENV) and not os.environ.get("PYTEST_XDIST_WORKER"):
        _REPORTS.append(report)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the units' seconds when asked to (``HEARTH_TEST_DURATIONS``)."""
    path = os.environ.get(RECORD_ENV)
    if path and not os.environ.get("PYTEST_XDIST_WORKER") and _REPORTS:
        record(_REPORTS, Path(path))
