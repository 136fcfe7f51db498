"""Run Heat's own functional tests, unmodified, against one Heat v1 endpoint without Keystone.

Runs in the suite's virtualenv (openstack-heat 27.0.1, whose
``heat_integrationtests`` package holds the tests, python-heatclient,
testtools, testscenarios), started by ``run.py``::

    suite.py --url http://127.0.0.1:PORT/v1/admin --out DIR [--filter RE] [--exclude RE]

Only the surroundings are replaced: ``tempest.config`` (``shim/``), and the
suite's client manager, whose orchestration client becomes
``heatclient.client.Client('1', endpoint=URL, token=...)`` and whose
service catalogue knows only that endpoint (the other OpenStack clients are
None: tests needing Nova, Swift or Keystone skip or fail on every target
alike).  Each test gets a wall-clock limit (``--timeout``, SIGALRM).

``DIR/results.json``: ``{"meta": {...}, "results": {test id: {status,
seconds, detail}}}``, rewritten after every test; status is pass, fail,
error, skip or timeout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "heat_integrationtests.functional."


class TestTimeout(Exception):
    """A test ran past its wall-clock limit."""


def use_endpoint(url: str, token: str) -> None:
    """Make every client the suite builds talk to ``url`` with ``token``, no Keystone."""
    from heat_integrationtests.common import clients
    from heatclient import client as heatclient
    from keystoneauth1 import exceptions as keystone_exceptions

    class Catalogue:
        """What the suite asks its identity client: the endpoints (only Heat's here)."""

        session = None
        auth_ref = None
        auth_token = token
        project_id = url.rstrip("/").rsplit("/", 1)[-1]

        def get_endpoint_url(self, service_type: str, region: str | None = None) -> str:
            if service_type == "orchestration":
                return url
            raise keystone_exceptions.EndpointNotFound(f"no {service_type} endpoint here")

    class ClientManager:
        """The suite's client manager, with only the orchestration client."""

        HEAT_API_VERSION = "1"

        def __init__(self, conf: object, admin_credentials: bool = False) -> None:
            self.conf = conf
            self.admin_credentials = admin_credentials
            self.insecure = False
            self.ca_file = None
            self.identity_client = Catalogue()
            self.orchestration_client = heatclient.Client(self.HEAT_API_VERSION,
                                                          endpoint=url, token=token)
            self.keystone_client = self.compute_client = self.object_client = None

    clients.ClientManager = ClientManager


def discover() -> list[unittest.TestCase]:
    """Return every test of heat_integrationtests.functional, scenarios expanded."""
    import heat_integrationtests
    import testscenarios
    package = os.path.dirname(os.path.abspath(heat_integrationtests.__file__))
    suite = unittest.TestLoader().discover(os.path.join(package, "functional"),
                                           pattern="test_*.py",
                                           top_level_dir=os.path.dirname(package))
    return list(testscenarios.generate_scenarios(suite))


def test_id(test: unittest.TestCase) -> str:
    """Return a test's id without the package prefix (``module.Class.method(scenario)``)."""
    return test.id().replace(PACKAGE, "")


class Outcome(unittest.TestResult):
    """The first outcome of one test (a later cleanup error is added to its detail)."""

    def __init__(self) -> None:
        super().__init__()
        self.status: str | None = None
        self.detail = ""

    def _record(self, status: str, detail: str = "") -> None:
        if self.status in (None, "pass"):
            self.status, self.detail = status, detail
        elif detail:
            self.detail += "\n--- then: " + detail

    def addSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802 - unittest's API
        """Record a pass (unless something failed already)."""
        if self.status is None:
            self.status = "pass"

    def addError(self, test: unittest.TestCase, err: object) -> None:  # noqa: N802
        """Record an error (a timeout when it was ours)."""
        status = "timeout" if err[0] is TestTimeout else "error"
        self._record(status, self._exc_info_to_string(err, test))

    def addFailure(self, test: unittest.TestCase, err: object) -> None:  # noqa: N802
        """Record a failed assertion."""
        self._record("fail", self._exc_info_to_string(err, test))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:  # noqa: N802
        """Record a skip and its reason."""
        self._record("skip", str(reason))

    def addExpectedFailure(self, test: unittest.TestCase, err: object) -> None:  # noqa: N802
        """Record an expected failure."""
        self._record("xfail", self._exc_info_to_string(err, test))

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802
        """Record an unexpected success as a failure."""
        self._record("fail", "unexpected success")


def run_test(test: unittest.TestCase, limit: int) -> tuple[str, float, str]:
    """Run one test within ``limit`` seconds; return (status, seconds, detail)."""
    outcome = Outcome()

    def expire(signum: int, frame: object) -> None:
        signal.alarm(max(1, limit // 3))  # its cleanups get a limit too
        raise TestTimeout(f"the test ran past {limit} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(limit)
    started = time.monotonic()
    try:
        test.run(outcome)
    except TestTimeout as error:  # raised outside testtools' own handlers
        outcome._record("timeout", str(error))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if outcome.status == "error" and "TestTimeout" in outcome.detail:
        outcome.status = "timeout"
    return outcome.status or "error", time.monotonic() - started, outcome.detail


def main() -> int:
    """Run the selected tests; write results.json as they go."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="tenant URL, http://HOST:PORT/v1/TENANT")
    parser.add_argument("--out", required=True, help="directory for results.json")
    parser.add_argument("--token", default="heat-functional")
    parser.add_argument("--filter", help="run only test ids matching this regex")
    parser.add_argument("--exclude", help="skip test ids matching this regex")
    parser.add_argument("--timeout", type=int, default=180, help="seconds per test")
    parser.add_argument("--build-timeout", type=int, default=60,
                        help="seconds the suite waits for a stack status")
    parser.add_argument("--list", action="store_true", help="print the test ids and stop")
    args = parser.parse_args()

    os.environ["HEARTH_HF_BUILD_TIMEOUT"] = str(args.build_timeout)
    sys.path.insert(0, os.path.join(HERE, "shim"))
    use_endpoint(args.url, args.token)
    tests = [test for test in discover()
             if (not args.filter or re.search(args.filter, test_id(test)))
             and not (args.exclude and re.search(args.exclude, test_id(test)))]
    if args.list:
        print("\n".join(test_id(test) for test in tests))
        return 0
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "results.json")
    meta = {"url": args.url, "timeout": args.timeout, "build_timeout": args.build_timeout,
            "filter": args.filter, "exclude": args.exclude, "tests": len(tests),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    results: dict[str, dict[str, object]] = {}
    started = time.monotonic()
    for number, test in enumerate(tests, 1):
        status, seconds, detail = run_test(test, args.timeout)
        results[test_id(test)] = {"status": status, "seconds": round(seconds, 1),
                                  "detail": detail[-6000:]}
        print(f"[{number:3}/{len(tests)}] {status:8} {seconds:6.1f}s {test_id(test)}",
              flush=True)
        meta["seconds"] = round(time.monotonic() - started, 1)
        with open(path, "w") as stream:
            json.dump({"meta": meta, "results": results}, stream, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
