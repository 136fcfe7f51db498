"""One template through every path a user takes, each answer in one comparable shape.

Templates may be given as data or as text (the text reaches every path
as it is, parse errors included), with the ``files`` they refer to; the
stackctl path takes the template file's path instead and gathers the files
itself, as a user's stackctl does.  A *path* is how a request reaches the engine: the in-process
:class:`EngineService` (``embedded``), a ``stackctl`` subprocess on its own
HEARTH_HOME (``stackctl``), or ``hearth-api`` over HTTP (``http``).  Each
path answers the same three questions for a template and parameters:

- ``validate``: Heat's validate object, or the error message;
- ``preview``: ``{resource: properties}`` of the stack preview (not on the
  stackctl path, which has no preview command), or the error message;
- ``create``: the final stack status and ``{output: value}``, or the error.

Error messages are compared without their ``file:line:`` prefix (only
stackctl knows the file name).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

from hearth.common import exception
from tests.fixtures.engine import CTX
from tests.functional import stackctl_process

LOCATION = re.compile(r"^(ERROR: )?([^\s:]+:\d+: )?")


def message(text: str) -> str:
    """Return an error message without ``ERROR:`` and its ``file:line:`` prefix."""
    return LOCATION.sub("", text.strip().splitlines()[-1] if text.strip() else "")


def outputs_map(outputs: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Return ``{key: value}`` (or ``{"error": ...}``) of a stack's outputs list."""
    result = {}
    for item in outputs or []:
        if item.get("output_error"):
            result[item["output_key"]] = {"error": item["output_error"]}
        else:
            result[item["output_key"]] = item.get("output_value")
    return result


def preview_map(stack: dict[str, Any]) -> dict[str, Any]:
    """Return ``{resource: properties}`` of a preview object."""
    return {item["resource_name"]: item.get("properties")
            for item in stack.get("resources", [])}


class Embedded:
    """The in-process EngineService path."""

    name = "embedded"

    def __init__(self, service: Any) -> None:
        self.service = service

    def validate(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        try:
            return {"ok": self.service.catalog.validate_template(CTX, template, params=params,
                                                         files=files)}
        except exception.HearthException as exc:
            return {"error": message(str(exc))}

    def preview(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        try:
            stack = self.service.preview_stack(CTX, "pv", template, params=params, files=files)
        except exception.HearthException as exc:
            return {"error": message(str(exc))}
        return {"ok": preview_map(stack)}

    def create(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        name = f"s-{uuid.uuid4().hex[:8]}"
        try:
            created = self.service.create_stack(CTX, name, template, params=params, files=files)
        except exception.HearthException as exc:
            return {"error": message(str(exc))}
        self.service.wait(CTX, created["id"])
        stack = self.service.show_stack(CTX, created["id"])
        return {"status": stack["stack_status"], "outputs": outputs_map(stack["outputs"])}

    def update(self, name_or_id: str, template: dict, params: dict) -> dict[str, Any]:
        self.service.update_stack(CTX, name_or_id, template, params=params)
        self.service.wait(CTX, name_or_id)
        stack = self.service.show_stack(CTX, name_or_id)
        return {"status": stack["stack_status"], "outputs": outputs_map(stack["outputs"])}


class Stackctl:
    """``stackctl`` subprocesses in embedded mode on a private HEARTH_HOME."""

    name = "stackctl"

    def __init__(self, home: Path) -> None:
        self.home = home
        self.dir = home / "templates"
        self.dir.mkdir(parents=True, exist_ok=True)

    def _file(self, template: Any) -> str:
        if isinstance(template, Path):
            return str(template)
        path = self.dir / f"t-{uuid.uuid4().hex[:8]}.yaml"
        path.write_text(template if isinstance(template, str)
                        else yaml.safe_dump(template, sort_keys=False))
        return str(path)

    @staticmethod
    def _params(params: dict) -> list[str]:
        return [item for key, value in params.items() for item in ("-P", f"{key}={value}")]

    def run(self, *args: str) -> Any:
        return stackctl_process.run(self.home, *args, timeout=120)

    def validate(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        done = self.run("template-validate", "-f", self._file(template), *self._params(params),
                        "--format", "json")
        if done.returncode:
            return {"error": message(done.stderr)}
        return {"ok": json.loads(done.stdout)}

    def create(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        name = f"s-{uuid.uuid4().hex[:8]}"
        done = self.run("stack-create", "-f", self._file(template), *self._params(params), name)
        if done.returncode and self.run("stack-show", name).returncode:
            return {"error": message(done.stderr)}  # refused: no stack was stored
        return self._state(name)

    def update(self, name: str, template: dict, params: dict) -> dict[str, Any]:
        self.run("stack-update", "-f", self._file(template), *self._params(params), name)
        return self._state(name)

    def _state(self, name: str) -> dict[str, Any]:
        shown = json.loads(self.run("stack-show", name, "--format", "json").stdout)
        status = shown.get("stack_status")
        outputs = json.loads(self.run("output-show", name, "--all", "--format", "json").stdout)
        return {"status": status, "outputs": outputs_map(list(outputs.values()))}


class Http:
    """``hearth-api`` over real HTTP (a ``requests`` session with a project token)."""

    name = "http"

    def __init__(self, session: Any, base: str) -> None:
        self.session = session
        self.base = base

    def validate(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        response = self.session.post(f"{self.base}/validate", json={
            "template": template, "parameters": params, "files": files or {}})
        return self._answer(response, lambda body: body)

    def preview(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        response = self.session.post(f"{self.base}/stacks/preview", json={
            "stack_name": "pv", "template": template, "parameters": params,
            "files": files or {}})
        return self._answer(response, lambda body: preview_map(body["stack"]))

    @staticmethod
    def _answer(response: Any, shape: Any) -> dict[str, Any]:
        assert response.status_code < 500, response.text
        if response.status_code >= 400:
            return {"error": message(response.json()["error"]["message"])}
        return {"ok": shape(response.json())}

    def create(self, template: Any, params: dict, files: dict | None = None) -> dict[str, Any]:
        response = self.session.post(f"{self.base}/stacks", json={
            "stack_name": f"s-{uuid.uuid4().hex[:8]}", "template": template,
            "parameters": params, "files": files or {}})
        assert response.status_code < 500, response.text
        if response.status_code >= 400:
            return {"error": message(response.json()["error"]["message"])}
        return self._finished(response.headers["Location"])

    def update(self, location: str, template: dict, params: dict) -> dict[str, Any]:
        response = self.session.put(location, json={"template": template,
                                                     "parameters": params})
        assert response.status_code == 202, response.text
        time.sleep(0.1)
        return self._finished(location, ("UPDATE_COMPLETE", "UPDATE_FAILED"))

    def _finished(self, location: str,
                  ends: tuple[str, ...] = ("_COMPLETE", "_FAILED")) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        while True:
            stack = self.session.get(location).json()["stack"]
            if stack["stack_status"].endswith(ends) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        return {"status": stack["stack_status"], "outputs": outputs_map(stack["outputs"]),
                "location": location}
