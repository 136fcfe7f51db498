"""Send the requests of ``request_cases.yaml`` to a Heat v1 endpoint; answers in one shape.

Used both to record real Heat's answers (``tools/record_heat_request_answers.py``)
and to hold hearth-api to them (``test_request_leniency.py``).  An answer is
``{"status": int, "message": str | None, "after": {...} | None}``: the HTTP
status, the error message of a 4xx/5xx, and, for a request that started an
action, what the stack (or resource) looks like once it settled.
"""

from __future__ import annotations

import copy
import json
import pathlib
import time
import uuid
from typing import Any

import requests
import yaml

CASES_FILE = pathlib.Path(__file__).with_name("request_cases.yaml")
ANSWERS_FILE = pathlib.Path(__file__).with_name("heat_answers") / "requests.json"
RESOURCE = "v"
#: stack fields recorded once an action settled
STACK_FIELDS = ("stack_status", "tags", "disable_rollback", "timeout_mins")


def load_cases() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return the template and the cases of ``request_cases.yaml``."""
    data = yaml.safe_load(CASES_FILE.read_text())
    ids = [case["id"] for case in data["cases"]]
    duplicates = sorted({name for name in ids if ids.count(name) > 1})
    assert not duplicates, f"duplicate case ids: {duplicates}"
    return data["template"], data["cases"]


def load_answers() -> dict[str, dict[str, Any]]:
    """Return real Heat's recorded answers by case id."""
    return json.loads(ANSWERS_FILE.read_text())["answers"]


def _substitute(value: Any, template: dict[str, Any]) -> Any:
    if value == "$name":
        return f"rq-{uuid.uuid4().hex[:10]}"
    if value == "$template":
        return copy.deepcopy(template)
    if isinstance(value, dict):
        return {key: _substitute(item, template) for key, item in value.items()}
    if isinstance(value, list):
        return [_substitute(item, template) for item in value]
    return value


class Endpoint:
    """A tenant URL of a Heat v1 API and the HTTP session to reach it."""

    def __init__(self, url: str, session: requests.Session | None = None) -> None:
        self.url = url.rstrip("/")
        self.session = session or requests.Session()
        self.session.headers.setdefault("X-Auth-Token", "request-cases")

    def stack(self, identity: str, timeout: float = 60.0) -> dict[str, Any]:
        """Return the stack ``name/id`` once no action is in progress."""
        deadline = time.monotonic() + timeout
        while True:
            answer = self.session.get(f"{self.url}/stacks/{identity}",
                                      params={"resolve_outputs": "false"}, timeout=30)
            answer.raise_for_status()
            stack = answer.json()["stack"]
            if not stack["stack_status"].endswith("IN_PROGRESS"):
                return stack
            if time.monotonic() > deadline:
                raise TimeoutError(f"stack {identity} still {stack['stack_status']}")
            time.sleep(0.2)

    def fresh_stack(self, template: dict[str, Any]) -> str:
        """Create a stack of ``template``; return ``name/id`` once it is complete."""
        name = f"rq-{uuid.uuid4().hex[:10]}"
        answer = self.session.post(f"{self.url}/stacks", timeout=30,
                                   json={"stack_name": name, "template": template})
        answer.raise_for_status()
        identity = f"{name}/{answer.json()['stack']['id']}"
        assert self.stack(identity)["stack_status"] == "CREATE_COMPLETE"
        return identity

    def send(self, case: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
        """Send one case; return its answer (status, message, the state it left)."""
        identity = self.fresh_stack(template) if "{stack}" in case["path"] else None
        path = case["path"].replace("{stack}", identity or "").replace("{resource}", RESOURCE)
        url = f"{self.url}{path}" + (f"?{case['query']}" if case.get("query") else "")
        if "raw" in case:
            data = case["raw"].encode()
        elif "body" in case:
            data = json.dumps(_substitute(case["body"], template)).encode()
        else:
            data = None
        answer = self.session.request(case["method"], url, data=data, timeout=60,
                                      allow_redirects=False,
                                      headers={"Content-Type": "application/json"})
        result: dict[str, Any] = {"status": answer.status_code, "message": None, "after": None}
        if answer.status_code >= 400:
            result["message"] = _error_message(answer)
        elif case["method"] != "GET":
            result["after"] = self._after(case, answer, identity)
        return result

    def _after(self, case: dict[str, Any], answer: requests.Response,
               identity: str | None) -> dict[str, Any] | None:
        if case["path"] == "/stacks":
            identity = answer.headers["Location"].split("/stacks/", 1)[1]
        if identity is None or "/snapshots" in case["path"] or "/preview" in case["path"]:
            return None
        stack = self.stack(identity)
        after = {key: stack.get(key) for key in STACK_FIELDS}
        after["p"] = stack["parameters"].get("p")
        if "/resources/" in case["path"]:
            resource = self.session.get(f"{self.url}/stacks/{identity}/resources/{RESOURCE}",
                                        timeout=30).json()["resource"]
            after["resource_status"] = resource["resource_status"]
        return after


def _error_message(answer: requests.Response) -> str:
    try:
        body = answer.json()
    except ValueError:
        return answer.text[:500]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message"))
    return json.dumps(body)[:500]
