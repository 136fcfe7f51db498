"""Record real Heat's answers to the requests of tests/functional/api/request_cases.yaml.

Start real Heat without Keystone (OpenStack Heat 27.0.1 from PyPI in a
throwaway venv, its API and engine in one process with the ``noauth`` paste
flavour, fake messaging and SQLite), then::

    .venv/bin/python tools/record_heat_request_answers.py http://127.0.0.1:PORT/v1/admin

Every case is sent as it is; the answers (status, error message, the stack
once its action settled) go to ``tests/functional/api/heat_answers/requests.json``,
which ``tests/functional/api/test_request_leniency.py`` holds hearth-api to.
``--only ID`` re-records single cases (repeatable).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.functional.api import request_cases  # noqa: E402


def main() -> int:
    """Send every case to the endpoint and write the answers file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="tenant URL of real Heat, http://HOST:PORT/v1/TENANT")
    parser.add_argument("--only", action="append", default=[], metavar="ID",
                        help="record only this case (repeatable); others are kept")
    args = parser.parse_args()
    template, cases = request_cases.load_cases()
    endpoint = request_cases.Endpoint(args.url)
    answers = {}
    if args.only and request_cases.ANSWERS_FILE.exists():
        answers = request_cases.load_answers()
    for case in cases:
        if args.only and case["id"] not in args.only:
            continue
        answers[case["id"]] = endpoint.send(case, template)
        print(f"{answers[case['id']]['status']}  {case['id']}", flush=True)
    order = [case["id"] for case in cases]
    document = {
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        "by": "tools/record_heat_request_answers.py against OpenStack Heat "
              "27.0.1 (heat_allinone.py, noauth)",
        "answers": {key: answers[key] for key in order if key in answers},
    }
    request_cases.ANSWERS_FILE.parent.mkdir(exist_ok=True)
    request_cases.ANSWERS_FILE.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
