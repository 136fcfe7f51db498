"""The local engine stackctl starts and reuses, through real stackctl processes.

Covers what a user sees: one engine per setting, reused; replaced when its
configuration or plug-ins change; stopped when idle, when its home is
removed, or by ``engine-stop``; an action that outlives a killed stackctl
(as in Heat) and a killed engine whose create the next engine finishes
(or, with ``engine_takeover = fail``, that leaves it FAILED, never
IN_PROGRESS); clear errors when it cannot start.
"""

import concurrent.futures
import json
import os
import shutil
import signal
import time

import pytest

from hearth.cli import local_engine
from tests.functional.stackctl_process import SLOW_TEMPLATE, read_until, run, start

PLUGIN = '''
from hearth.engine.resource import Resource


class Marker(Resource):
    """A plug-in that exists only in this test's plugin_dirs."""


def resource_mapping():
    return {"Test::Marker": Marker}
'''


def engine_pids(home):
    """Return the pids of the local engines serving ``home``."""
    return sorted(info["pid"] for info in local_engine.engines()
                  if info.get("home") == os.path.realpath(home))


def wait_for(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_the_first_command_starts_an_engine_that_later_commands_reuse(hearth_home):
    assert run(hearth_home, "stack-list").returncode == 0
    first = engine_pids(hearth_home)
    assert len(first) == 1
    assert run(hearth_home, "stack-list").returncode == 0
    assert engine_pids(hearth_home) == first
    status = json.loads(run(hearth_home, "engine-status", "--format", "json").stdout)
    mine = [row for row in status if row["pid"] == first[0]]
    assert mine and mine[0]["this_setting"] is True


def test_a_changed_configuration_gets_a_new_engine_that_loads_it(hearth_home, tmp_path):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    config = tmp_path / "hearth.conf"
    config.write_text(f"[DEFAULT]\nplugin_dirs = {plugins}\n")
    listed = run(hearth_home, "resource-type-list", "--format", "value", config=config)
    assert "Test::Marker" not in listed.stdout.split()
    before = engine_pids(hearth_home)
    (plugins / "marker.py").write_text(PLUGIN)  # a new plug-in: the engine is stale
    listed = run(hearth_home, "resource-type-list", "--format", "value", config=config)
    assert "Test::Marker" in listed.stdout.split(), listed.stderr
    assert wait_for(lambda: not set(before) & set(engine_pids(hearth_home)))


def test_each_home_has_its_own_engine(hearth_home, tmp_path):
    other = tmp_path / "other-home"
    other.mkdir()
    run(hearth_home, "stack-list")
    run(other, "stack-list")
    try:
        assert engine_pids(hearth_home) and engine_pids(other)
        assert set(engine_pids(hearth_home)).isdisjoint(engine_pids(other))
    finally:
        local_engine.stop_engines([info for info in local_engine.engines()
                                   if info.get("home") == os.path.realpath(other)])


def test_the_working_directory_and_unrelated_variables_do_not_start_another_engine(
        hearth_home, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run(hearth_home, "stack-list").returncode == 0
    first = engine_pids(hearth_home)
    monkeypatch.setenv("MAKEFLAGS", " -- DEMO=demo")   # what make run and make stop add
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setenv("OLDPWD", str(tmp_path))
    assert run(hearth_home, "stack-list", cwd=elsewhere).returncode == 0
    assert engine_pids(hearth_home) == first
    monkeypatch.setenv("HEARTH_MASTER", "tcp://127.0.0.1:1")   # a variable Hearth reads
    assert run(hearth_home, "stack-list", cwd=elsewhere).returncode == 0
    assert len(engine_pids(hearth_home)) == 2


def test_a_relative_path_in_a_configuration_file_is_taken_from_its_directory(
        hearth_home, tmp_path):
    site = tmp_path / "site"
    (site / "plugins").mkdir(parents=True)
    (site / "plugins" / "marker.py").write_text(PLUGIN)
    config = site / "hearth.conf"
    config.write_text("[DEFAULT]\nplugin_dirs = plugins\n")
    for cwd in (site, tmp_path, hearth_home):
        listed = run(hearth_home, "resource-type-list", "--format", "value", config=config,
                     cwd=cwd)
        assert "Test::Marker" in listed.stdout.split(), (cwd, listed.stderr)
    assert len(engine_pids(hearth_home)) == 1


def test_commands_starting_together_share_one_engine(hearth_home):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: run(hearth_home, "stack-list"), range(4)))
    assert all(result.returncode == 0 for result in results), [r.stderr for r in results]
    assert len(engine_pids(hearth_home)) == 1


@pytest.mark.slow
def test_a_killed_stackctl_leaves_the_action_running_to_its_end(hearth_home, tmp_path):
    (tmp_path / "quick.yaml").write_text(SLOW_TEMPLATE.replace("create: 30", "create: 2"))
    process = start(hearth_home, "stack-create", "-f", str(tmp_path / "quick.yaml"), "on")
    try:
        read_until(process, "[slow]: CREATE_IN_PROGRESS")
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)

    def created():
        shown = run(hearth_home, "stack-show", "on", "--format", "json")
        return json.loads(shown.stdout)["stack_status"] == "CREATE_COMPLETE"
    assert wait_for(created, timeout=30)


def _kill_the_engine_mid_create(hearth_home, template, config=None):
    """Start a create of ``template``, SIGKILL its engine; return (rc, out, err)."""
    process = start(hearth_home, "stack-create", "-f", str(template), "doomed", config=config)
    read_until(process, "[slow]: CREATE_IN_PROGRESS")
    for pid in engine_pids(hearth_home):
        os.kill(pid, signal.SIGKILL)
    out, err = process.communicate(timeout=90)
    assert "Traceback" not in err
    return process.returncode, out, err


@pytest.mark.slow
def test_a_killed_engine_s_create_is_finished_by_the_next_engine(hearth_home, tmp_path):
    """engine_takeover = resume (the default): the follower's next engine continues."""
    template = tmp_path / "slow.yaml"
    template.write_text(SLOW_TEMPLATE.replace("create: 30", "create: 3"))
    returncode, out, err = _kill_the_engine_mid_create(hearth_home, template)
    assert returncode == 0, err
    assert "Engine went down during stack CREATE: continued by engine" in out
    assert "[slow]: CREATE_IN_PROGRESS  Engine went down during the action: continued" in out
    assert out.rstrip().endswith("Stack doomed CREATE_COMPLETE")


@pytest.mark.slow
def test_a_killed_engine_is_reported_by_its_follower_and_fails_the_stack(hearth_home,
                                                                         tmp_path):
    """engine_takeover = fail (Heat's behaviour): the stack fails, never IN_PROGRESS."""
    template = tmp_path / "slow.yaml"
    template.write_text(SLOW_TEMPLATE)
    config = tmp_path / "hearth.conf"
    config.write_text("[DEFAULT]\nengine_takeover = fail\n")
    returncode, out, err = _kill_the_engine_mid_create(hearth_home, template, config)
    assert returncode == 1
    assert "Stack doomed CREATE_FAILED" in out
    assert "ERROR: Engine went down during stack CREATE" in err


@pytest.mark.slow
def test_an_idle_engine_stops_by_itself(hearth_home, tmp_path):
    config = tmp_path / "hearth.conf"
    config.write_text("[cli]\nlocal_engine_idle_timeout = 1\n")
    run(hearth_home, "stack-list", config=config)
    assert engine_pids(hearth_home)
    assert wait_for(lambda: not engine_pids(hearth_home), timeout=15)


@pytest.mark.slow
def test_an_engine_whose_home_was_removed_stops(tmp_path, monkeypatch):
    home = tmp_path / "gone"
    home.mkdir()
    run(home, "stack-list")
    assert engine_pids(home)
    shutil.rmtree(home)
    assert wait_for(lambda: not engine_pids(tmp_path / "gone"), timeout=15)


def test_engine_stop_stops_this_settings_engine(hearth_home):
    run(hearth_home, "stack-list")
    assert engine_pids(hearth_home)
    stopped = run(hearth_home, "engine-stop")
    assert stopped.stdout == "Stopped 1 local engine(s).\n"
    assert engine_pids(hearth_home) == []


def test_engine_stop_in_the_process_that_started_the_engine_returns_once_it_ended(
        hearth_home, capsys):
    """stackctl run as a library (main.main) is the parent of the engine it starts.

    The stopped engine stays a zombie until its parent reaps it: engine-stop
    reaps it and returns (it used to take the zombie for a live engine and wait
    out its 30-second kill deadline).
    """
    from hearth.cli import main
    assert main.main(["stack-list"]) == 0
    (pid,) = engine_pids(hearth_home)
    assert os.waitpid(pid, os.WNOHANG) == (0, 0)   # this process's own child, running
    started = time.monotonic()
    assert main.main(["engine-stop"]) == 0
    assert capsys.readouterr().out.endswith("Stopped 1 local engine(s).\n")
    assert time.monotonic() - started < local_engine.STOP_TIMEOUT / 2
    with pytest.raises(ChildProcessError):   # reaped: no zombie left behind
        os.waitpid(pid, os.WNOHANG)
    assert engine_pids(hearth_home) == []


def test_an_engine_that_cannot_start_says_why(hearth_home, tmp_path):
    config = tmp_path / "hearth.conf"
    config.write_text("[database]\nconnection = nosuchdb://x\n")
    result = run(hearth_home, "stack-list", config=config)
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR: ") and "Traceback" not in result.stderr
    assert "nosuchdb" in result.stderr


def test_in_process_runs_no_engine(hearth_home):
    assert run(hearth_home, "--in-process", "stack-list").returncode == 0
    assert engine_pids(hearth_home) == []


def test_a_runtime_directory_others_may_read_is_refused(hearth_home, tmp_path, monkeypatch):
    shared = tmp_path / "shared-run"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    monkeypatch.setenv("HEARTH_RUNTIME_DIR", str(shared))
    result = run(hearth_home, "stack-list")
    assert result.returncode == 1
    assert "nobody else may read (mode 0700)" in result.stderr


def test_a_validation_error_names_the_file_and_line_as_in_process(hearth_home, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("heat_template_version: 2018-08-31\nresources:\n  a:\n"
                   "    type: OS::Heat::None\n    depends_on: nowhere\n")
    answers = [run(hearth_home, *mode, "template-validate", "-f", str(bad)).stderr
               for mode in ((), ("--in-process",))]
    assert answers[0] == answers[1]
    assert answers[0].startswith(f"ERROR: {bad}:5: resources.a.depends_on: ")


@pytest.mark.slow
def test_ctrl_c_while_waiting_in_the_engine_still_cancels_the_action(hearth_home, tmp_path):
    # between two polls stackctl waits inside the engine (GET /local/pause): a Ctrl-C
    # landing there must leave a usable connection for the cancel and the following
    (tmp_path / "slow.yaml").write_text(SLOW_TEMPLATE.replace("create: 30", "create: 4"))
    for attempt in range(2):
        process = start(hearth_home, "stack-create", "-f", str(tmp_path / "slow.yaml"),
                        f"s{attempt}")
        read_until(process, "[slow]: CREATE_IN_PROGRESS")
        time.sleep(0.1 + 0.1 * attempt)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=60)
        assert "Unexpected error" not in err, err
        shown = json.loads(run(hearth_home, "stack-show", f"s{attempt}", "--format",
                               "json").stdout)
        assert shown["stack_status"] in ("CREATE_FAILED", "ROLLBACK_COMPLETE"), shown


def test_a_pause_with_a_bad_duration_is_refused(hearth_home):
    from hearth.cli.local_http import UnixSession
    run(hearth_home, "stack-list")
    socket_path = next(info["socket"] for info in local_engine.engines()
                       if info.get("home") == os.path.realpath(hearth_home))
    session = UnixSession(socket_path, 10.0)
    try:
        refused = session.request("GET", "/local/pause", params={"seconds": "soon"})
        waited = session.request("GET", "/local/pause", params={"seconds": "0.01"})
    finally:
        session.close()
    assert (refused.status_code, refused.json()) == (400, {"error": "seconds"})
    assert (waited.status_code, waited.json()) == (200, {})


def test_a_file_in_the_runtime_directory_that_describes_no_engine_is_skipped(hearth_home):
    """A ``.json`` there holding no object (not an engine's description) is no engine.

    It was read as one and engine-status ended in a traceback (a list has no ``get``).
    """
    stray = os.path.join(local_engine.runtime_dir(), "not-an-engine.json")
    with open(stray, "w", encoding="utf-8") as handle:
        json.dump(["not", "an", "engine"], handle)
    try:
        status = run(hearth_home, "engine-status", "--format", "json")
    finally:
        os.unlink(stray)
    assert (status.returncode, status.stderr) == (0, "")
    assert json.loads(status.stdout) == []
