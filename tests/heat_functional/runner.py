"""Run a scenario of Heat's functional tests, written as data, against a heatclient.

``all_scenarios`` reads every scenarios/*.yaml into pytest params (with their ``xfail``
reasons); ``play`` runs one scenario's steps (steps.py) and deletes what it created.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from heatclient import exc

from tests.heat_functional.scenario import POLL_SECS, WAIT_SECS, Run, flat
from tests.heat_functional.steps import STEPS

SCENARIOS = Path(__file__).parent / "scenarios"


def all_scenarios() -> list:
    """Return one pytest param per scenario of every scenario file."""
    params = []
    for path in sorted(SCENARIOS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        for scenario in data["scenarios"]:
            scenario = {**scenario, "templates": data.get("templates", {})}
            reason = scenario.get("xfail", data.get("xfail"))
            marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
            params.append(pytest.param(scenario, id=f"{path.stem}-{scenario['name']}",
                                       marks=marks))
    return params


def play(heat: Any, scenario: dict) -> None:
    """Run every step of a scenario, then delete the stacks it created."""
    name = f"{scenario['name'].replace('_', '-')}-{uuid.uuid4().hex[:6]}"
    run = Run(heat, scenario["templates"], name)
    try:
        for number, step in enumerate(flat(scenario["steps"]), 1):
            (kind, args), = step.items()
            try:
                STEPS[kind](run, args or {})
            except AssertionError as error:
                raise AssertionError(f"step {number} ({kind}): {error}") from error
    finally:
        _clean_up(heat, [run.identity, *run.others])


def _clean_up(heat: Any, identities: list) -> None:
    """Delete the scenario's stacks and wait for them, so scenarios do not overlap."""
    for identity in filter(None, identities):
        try:
            heat.stacks.delete(identity)
        except exc.HTTPException:
            continue
    deadline = time.monotonic() + WAIT_SECS
    for identity in filter(None, identities):
        while time.monotonic() < deadline:
            try:
                status = heat.stacks.get(identity, resolve_outputs=False).stack_status
            except exc.HTTPNotFound:
                break
            if status in ("DELETE_COMPLETE", "DELETE_FAILED"):
                break
            time.sleep(POLL_SECS)
