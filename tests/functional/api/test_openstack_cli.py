"""The real ``openstack`` CLI (OSC + heatclient plug-in) against a --noauth hearth-api."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.functional.api.conftest import TEMPLATE

OPENSTACK = os.path.join(os.path.dirname(sys.executable), "openstack")
pytestmark = pytest.mark.skipif(not os.path.exists(OPENSTACK), reason="openstack CLI missing")


def _osc(server, *args: str) -> str:
    command = [OPENSTACK, "--os-auth-type", "none", "--os-endpoint", server.url("osc-project"),
               *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _json_after_events(text: str):
    """Return the JSON document that follows the event lines ``--wait`` prints first."""
    return json.loads(text[text.index("{"):])


def test_stack_commands(noauth_server, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(TEMPLATE)
    created = _json_after_events(_osc(noauth_server, "stack", "create", "-t", str(template),
                                      "--parameter", "p=cli", "--wait", "--poll", "1", "osc",
                                      "-f", "json"))
    assert created["stack_status"] == "CREATE_COMPLETE"
    listed = json.loads(_osc(noauth_server, "stack", "list", "-f", "json"))
    assert [s["Stack Name"] for s in listed] == ["osc"]
    shown = json.loads(_osc(noauth_server, "stack", "show", "osc", "-f", "json"))
    assert shown["id"] == created["id"]
    output = json.loads(_osc(noauth_server, "stack", "output", "show", "osc", "out1",
                             "-f", "json"))
    assert output["output_value"] == "cli"
    resources = json.loads(_osc(noauth_server, "stack", "resource", "list", "osc", "-f", "json"))
    assert [r["resource_name"] for r in resources] == ["v"]
    events = json.loads(_osc(noauth_server, "stack", "event", "list", "osc", "-f", "json"))
    assert events
    _osc(noauth_server, "stack", "delete", "--yes", "--wait", "osc")
    assert json.loads(_osc(noauth_server, "stack", "list", "-f", "json")) == []
