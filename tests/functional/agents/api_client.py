"""A real hearth-api that is a client of a test master, with tokens, for the agent tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import requests

from tests.functional.api.conftest import VENV_BIN, ApiServer, _start, _stop


class MasterApi:
    """hearth-api started with a master's configuration (plus ``[api]`` lines of its own)."""

    def __init__(self, master, directory: Path, api_options: str = "") -> None:
        conf = directory / "api.conf"
        conf.write_text(f"[api]\n{api_options}\n")
        self.files = ["--config-file", str(master.config), "--config-file", str(conf)]
        self.server: ApiServer = _start(str(master.directory), *self.files)
        self.tokens: dict[str, str] = {}

    def token(self, project: str) -> str:
        """Return a token of ``project`` (created with hearth-manage on first use)."""
        if project not in self.tokens:
            self.tokens[project] = subprocess.run(
                [os.path.join(VENV_BIN, "hearth-manage"), *self.files, "token-create",
                 "--project", project, "--format", "value"], env=self.server.env,
                capture_output=True, text=True, timeout=60, check=True).stdout.strip()
        return self.tokens[project]

    def request(self, project: str, method: str, path: str, **kwargs) -> requests.Response:
        """Send ``method`` to ``/v1/{project}{path}`` with the project's token."""
        return requests.request(method, f"{self.server.url(project)}{path}", timeout=60,
                                headers={"X-Auth-Token": self.token(project)}, **kwargs)

    @property
    def root(self) -> str:
        """Return the API's root URL."""
        return self.server.root

    def stop(self) -> None:
        """Stop the API server."""
        _stop(self.server)
