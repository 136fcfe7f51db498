"""A real engine process killed with SIGKILL mid-create; a new engine takes the stack over.

The first engine is the local engine that ``stackctl stack-create`` uses,
on a slow TestResource; both are killed.  With ``engine_takeover = fail``
(Heat's behaviour) a new EngineService in the test process finds the stack
IN_PROGRESS under a dead engine's lock, fails it with Heat's reason, and
the stack deletes cleanly.  With ``resume`` (the default) the next
stackctl command's engine finishes the create: the resource already
COMPLETE stays, the one in progress waits what is left of its wait.
"""

import json
import signal
import time
from pathlib import Path

import pytest

from tests.fixtures.engine import CTX, events
from tests.functional.stackctl_process import (
    SLOW_TEMPLATE,
    kill_engine,
    read_until,
    run,
    start,
)

#: a create the resume test can wait for: 'slow' waits 6 s in all
SHORT_TEMPLATE = SLOW_TEMPLATE.replace("create: 30", "create: 6")
#: the killed engine counts dead 3 s after its last beat
QUICK_LIFE = "engine_life_check_timeout = 1.0\nengine_heartbeat_interval = 0.2"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine_db_url(request, hearth_home):
    """Use the CLI's default SQLite file, or the session's PostgreSQL database."""
    if request.param == "sqlite":
        return "sqlite:///" + str(hearth_home / "hearth.db")
    return request.getfixturevalue("postgres_url")


def kill_mid_create(home: Path, tmp_path: Path, db_url: str, template: str,
                    options: str) -> Path:
    """Run ``stackctl stack-create`` of ``template``; SIGKILL it and its engine mid-create.

    Return the configuration file: ``options`` (``[DEFAULT]`` lines) and the database.
    """
    (tmp_path / "slow.yaml").write_text(template)
    config = tmp_path / "hearth.conf"
    config.write_text(f"[DEFAULT]\n{options}\n[database]\nconnection = {db_url}\n")
    process = start(home, "stack-create", "-f", str(tmp_path / "slow.yaml"), "doomed",
                    config=config)
    try:
        read_until(process, "[slow]: CREATE_IN_PROGRESS")
    finally:
        kill_engine(home, process)
    assert process.returncode == -signal.SIGKILL
    return config


@pytest.fixture
def killed_create(hearth_home, tmp_path, engine_db_url):
    """Under ``engine_takeover = fail``, SIGKILL a slow create (its stackctl and engine)."""
    return kill_mid_create(hearth_home, tmp_path, engine_db_url, SLOW_TEMPLATE,
                           "engine_takeover = fail")


def test_killed_engine_leaves_a_failed_deletable_stack(killed_create, engine_options,
                                                       request):
    # the dead engine beat at most one heartbeat ago: a short life check sees it gone
    engine_options(engine_life_check_timeout=0.3, engine_takeover="fail")
    time.sleep(0.8)
    service = request.getfixturevalue("service")
    stack = service.show_stack(CTX, "doomed", resolve_outputs=False)
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED", "Engine went down during stack CREATE")
    assert events(service, stack["id"])[-1] == (
        "doomed", "CREATE_FAILED", "Engine went down during stack CREATE")
    service.delete_stack(CTX, "doomed")
    deleted = service.wait(CTX, stack["id"])
    assert (deleted["stack_status"], deleted["stack_status_reason"]) == (
        "DELETE_COMPLETE", "Stack DELETE completed successfully")
    deleted_names = [name for name, status, _ in events(service, stack["id"])
                     if status == "DELETE_COMPLETE"]
    assert deleted_names == ["slow", "first", "doomed"]


def test_stack_list_of_the_cli_sees_the_recovered_stack(killed_create, hearth_home):
    # a second CLI process is the new engine: it recovers at start
    time.sleep(2.5)  # the default engine_life_check_timeout is 2 s
    listed = run(hearth_home, "stack-list", config=killed_create)
    assert "CREATE_FAILED" in listed.stdout, listed.stdout + listed.stderr


def test_the_next_engine_finishes_the_killed_create(hearth_home, tmp_path, engine_db_url):
    config = kill_mid_create(hearth_home, tmp_path, engine_db_url, SHORT_TEMPLATE, QUICK_LIFE)
    killed = time.monotonic()
    # any command starts a new local engine; it takes the create over and finishes it
    status = None
    while time.monotonic() - killed < 30:
        shown = run(hearth_home, "stack-show", "doomed", "--format", "json", config=config)
        assert shown.returncode == 0, shown.stderr
        status = json.loads(shown.stdout)["stack_status"]
        if status != "CREATE_IN_PROGRESS":
            break
        time.sleep(0.2)
    assert status == "CREATE_COMPLETE"
    listed = run(hearth_home, "event-list", "doomed", "--format", "json", config=config)
    lines = [" ".join((event["resource_name"], event["resource_status"],
                       event["resource_status_reason"]))
             for event in json.loads(listed.stdout)]
    note = [line for line in lines if line.startswith("doomed CREATE_IN_PROGRESS")]
    assert note[0] == "doomed CREATE_IN_PROGRESS Stack CREATE started", lines
    assert note[1].startswith("doomed CREATE_IN_PROGRESS Engine went down during stack "
                              "CREATE: continued by engine "), lines
    # 'first' was created once; 'slow' is continued, not created again
    assert [line for line in lines if line.startswith("first ")] == [
        "first CREATE_IN_PROGRESS state changed", "first CREATE_COMPLETE state changed"]
    assert [line for line in lines if line.startswith("slow ")] == [
        "slow CREATE_IN_PROGRESS state changed",
        "slow CREATE_IN_PROGRESS Engine went down during the action: continued by another "
        "engine",
        "slow CREATE_COMPLETE state changed"]
    assert lines[-1] == "doomed CREATE_COMPLETE Stack CREATE completed successfully"
    # the wait went on from where it was: 6 s in all (restarted after the 3 s the engine took
    # to count dead, it would end 9 s or more after it began)
    times = {(event["resource_name"], event["resource_status"],
              event["resource_status_reason"]): event["event_time"]
             for event in json.loads(listed.stdout)}
    began = times[("slow", "CREATE_IN_PROGRESS", "state changed")]
    ended = times[("slow", "CREATE_COMPLETE", "state changed")]
    assert 5 <= seconds_between(began, ended) <= 8


def seconds_between(earlier: str, later: str) -> float:
    """Return the seconds between two API times (``YYYY-MM-DDTHH:MM:SSZ``)."""
    from datetime import datetime
    parse = lambda text: datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    return (parse(later) - parse(earlier)).total_seconds()
