"""A real engine process killed with SIGKILL mid-create; a new engine recovers the stack.

The first engine is the local engine that ``stackctl stack-create`` uses,
on a slow TestResource; both are killed.  After the kill, a new
EngineService in the test process finds the stack IN_PROGRESS under a dead
engine's lock, fails it with Heat's reason, and the stack deletes cleanly.
"""

import signal
import time

import pytest

from tests.fixtures.engine import CTX, events
from tests.functional.stackctl_process import (
    SLOW_TEMPLATE,
    kill_engine,
    read_until,
    run,
    start,
)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine_db_url(request, hearth_home):
    """Use the CLI's default SQLite file, or the session's PostgreSQL database."""
    if request.param == "sqlite":
        return "sqlite:///" + str(hearth_home / "hearth.db")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def killed_create(hearth_home, tmp_path, engine_db_url):
    """Start ``stackctl stack-create`` on the slow stack and SIGKILL it mid-create."""
    (tmp_path / "slow.yaml").write_text(SLOW_TEMPLATE)
    config = tmp_path / "hearth.conf"
    config.write_text(f"[database]\nconnection = {engine_db_url}\n")
    process = start(hearth_home, "stack-create", "-f", str(tmp_path / "slow.yaml"), "doomed",
                    config=config)
    try:
        read_until(process, "[slow]: CREATE_IN_PROGRESS")
    finally:
        kill_engine(hearth_home, process)
    assert process.returncode == -signal.SIGKILL
    return config


def test_killed_engine_leaves_a_failed_deletable_stack(killed_create, engine_options,
                                                       request):
    # the dead engine beat at most one heartbeat ago: a short life check sees it gone
    engine_options(engine_life_check_timeout=0.3)
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


def test_stack_list_of_the_cli_sees_the_recovered_stack(killed_create, engine_options,
                                                       hearth_home):
    # a second CLI process is the new engine: it recovers at start
    time.sleep(2.5)  # the default engine_life_check_timeout is 2 s
    listed = run(hearth_home, "stack-list", config=killed_create)
    assert "CREATE_FAILED" in listed.stdout, listed.stdout + listed.stderr
