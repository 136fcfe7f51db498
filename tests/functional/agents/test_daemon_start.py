"""Daemons fail loudly and stop when told (issue 20, finding 10 and 11; issue 23, item 1).

``hearth-master`` and ``hearth-agent`` run detached, as an operator starts
them: the command returns once the daemon serves, or exits 1 with the
reason on stderr; a pid file is never taken from a live daemon; SIGTERM
ends a daemon within 10 s.
"""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from tests.fixtures.agents import BIN, AgentProcess, MasterProcess, _environment, free_port

START_TIMEOUT = 60


def run_detached(daemon, *extra):
    """Run the daemon's command without --foreground; return the completed process."""
    return subprocess.run([str(BIN / daemon.program), "--config-file", str(daemon.config),
                           *extra], env=_environment(daemon.directory), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=START_TIMEOUT)


def pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def terminate(pid: int | None, timeout: float = 10) -> float:
    """SIGTERM ``pid``; return the seconds it took to end (fail after ``timeout``)."""
    if pid is None:
        return 0.0
    process = psutil.Process(pid)
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout)
    except psutil.TimeoutExpired:
        process.kill()
        raise AssertionError(f"process {pid} did not end within {timeout} s of SIGTERM")
    return time.monotonic() - started


@pytest.fixture
def detached(tmp_path):
    """Pid files of the daemons a test started detached; each is stopped after the test."""
    pid_files = []
    yield pid_files
    for path in pid_files:
        pid = pid_in(path)
        if pid is not None and psutil.pid_exists(pid):
            terminate(pid)


def master_in(tmp_path, sqlite_template, **options):
    import shutil

    directory = tmp_path / "master"
    directory.mkdir(exist_ok=True)
    shutil.copyfile(sqlite_template, directory / "hearth.db")
    options.setdefault("database", f"sqlite:///{directory / 'hearth.db'}")
    return MasterProcess(directory, **options)


def test_the_command_returns_once_the_master_serves_and_sigterm_ends_it(
        tmp_path, sqlite_template, detached):
    master = master_in(tmp_path, sqlite_template)
    pid_file = tmp_path / "master.pid"
    detached.append(pid_file)
    done = run_detached(master, "--pid-file", str(pid_file))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with master.client(timeout=1) as client:  # no waiting: it serves already
        assert client.ping()["boot"]
    assert "hearth-master serves" in master.log_text()
    seconds = terminate(pid_in(pid_file))
    assert seconds < 10
    assert not pid_file.exists()
    assert "master stopped" in master.log_text()


def test_a_master_whose_port_is_taken_exits_1_saying_so(tmp_path, sqlite_template, detached):
    master = master_in(tmp_path, sqlite_template)
    pid_file = tmp_path / "master.pid"
    detached.append(pid_file)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", master.port))
        taken.listen()
        done = run_detached(master, "--pid-file", str(pid_file))
    assert done.returncode == 1
    assert done.stderr == (f"hearth-master: cannot listen on tcp://127.0.0.1:{master.port} "
                           "([master] port): Address already in use (another hearth-master?)\n")
    assert not pid_file.exists()


def test_a_master_whose_database_cannot_be_opened_exits_1_saying_so(tmp_path, detached):
    bad = tmp_path / "garbage.db"
    bad.write_bytes(os.urandom(8192))
    master = MasterProcess(tmp_path / "master", database=f"sqlite:///{bad}")
    pid_file = tmp_path / "master.pid"
    detached.append(pid_file)
    done = run_detached(master, "--pid-file", str(pid_file))
    assert done.returncode == 1
    assert done.stderr == (f"hearth-master: cannot open the job cache's database "
                           f"sqlite:///{bad}: file is not a database\n")
    assert not pid_file.exists()
    assert "cannot start" in master.log_text()


def test_a_master_whose_keys_are_unreadable_exits_1_saying_so(tmp_path, sqlite_template,
                                                              detached):
    master = master_in(tmp_path, sqlite_template)
    master.pki_dir.mkdir(parents=True)
    (master.pki_dir / "master.key_secret").write_text("not a certificate\n")
    done = run_detached(master)
    assert done.returncode == 1
    assert done.stderr.startswith(f"hearth-master: Cannot read the key file "
                                  f"{master.pki_dir / 'master.key_secret'}: ")


def test_a_pid_file_is_never_taken_from_a_live_master(tmp_path, sqlite_template, detached):
    first = master_in(tmp_path, sqlite_template)
    pid_file = tmp_path / "master.pid"
    detached.append(pid_file)
    assert run_detached(first, "--pid-file", str(pid_file)).returncode == 0
    owner = pid_in(pid_file)
    done = run_detached(first, "--pid-file", str(pid_file))  # same ports: the pid file first
    assert done.returncode == 1
    assert done.stderr == (f"hearth-master: the pid file {pid_file} is held by running "
                           f"process {owner}: is another hearth-master running with it?\n")
    assert pid_in(pid_file) == owner


def test_a_stale_pid_file_is_taken(tmp_path, sqlite_template, detached):
    master = master_in(tmp_path, sqlite_template)
    pid_file = tmp_path / "master.pid"
    detached.append(pid_file)
    dead = subprocess.Popen(["true"])
    dead.wait()
    pid_file.write_text(f"{dead.pid}\n")
    assert run_detached(master, "--pid-file", str(pid_file)).returncode == 0
    assert pid_in(pid_file) not in (None, dead.pid)


def test_an_agent_that_cannot_start_exits_1_saying_so(tmp_path, detached):
    master = MasterProcess(tmp_path / "master")  # never started: the agent fails before
    agent = AgentProcess(tmp_path / "agent", "web1", master)
    keys = agent.root / "pki"
    keys.mkdir(parents=True)
    (keys / "agent.key_secret").write_text("garbage\n")
    done = run_detached(agent)
    assert done.returncode == 1
    assert done.stderr.startswith(f"hearth-agent: agent web1: Cannot read the key file "
                                  f"{keys / 'agent.key_secret'}: ")


def test_the_command_returns_once_the_agent_runs_and_sigterm_ends_it_mid_job(
        tmp_path, sqlite_template, detached):
    master = master_in(tmp_path, sqlite_template)
    master.start()
    try:
        master.wait_ready()
        agent = AgentProcess(tmp_path / "agent", "web1", master)
        pid_file = tmp_path / "agent.pid"
        detached.append(pid_file)
        done = run_detached(agent, "--pid-file", str(pid_file))
        assert (done.returncode, done.stderr) == (0, "")
        with master.client() as client:
            deadline = time.monotonic() + 30
            while "web1" not in client.list_keys()["accepted"]:
                assert time.monotonic() < deadline
                time.sleep(0.1)
            master.run("web1", "test.ping", timeout=10)
            master.publish("web1", "test.sleep", [60])
            time.sleep(0.5)
        assert terminate(pid_in(pid_file)) < 10
        assert not pid_file.exists()
    finally:
        master.stop()


def test_a_dead_internal_thread_stops_the_master(tmp_path, sqlite_template, caplog):
    """Finding 10: the job-cache writer died silently and requests then hung for ever."""
    import shutil
    import threading

    from hearth.db.session import get_database
    from hearth.master.server import Master
    from hearth.master.settings import MasterSettings

    copy = shutil.copyfile(sqlite_template, tmp_path / "h.db")
    master = Master(MasterSettings(interface="127.0.0.1", port=free_port(),
                                   auth_port=free_port(), pki_dir=str(tmp_path / "pki")),
                    database=get_database(f"sqlite:///{copy}"))
    master.start()
    serving = threading.Thread(target=master.serve)
    serving.start()
    master.writer._queue.put(("no-such-kind", None))  # a bug in the writer: it raises
    serving.join(10)
    assert not serving.is_alive()
    assert master.failure == ("its job-cache writer thread died: KeyError: 'no-such-kind'")
    assert "hearth-master stops: its job-cache writer thread died" in caplog.text


def test_sigterm_ends_a_master_whose_worker_is_stuck_within_10_s(tmp_path, sqlite_template):
    """A pillar that never compiles held a worker thread, and the exit waited for it."""
    from hearth.common import exception
    from tests.fixtures.raw_peer import RawPeer

    pillar = tmp_path / "pillar.yaml"
    pillar.write_text("ext_pillar:\n  - cmd_yaml: 'sleep 40'\n")
    master = master_in(tmp_path, sqlite_template)
    master.config.write_text(master.config.read_text().replace(
        "[master]", f"[pillar]\nconfig_file = {pillar}\n[master]"))
    master.start()
    try:
        master.wait_ready()
        with RawPeer(master, "stuck1") as agent, master.client(timeout=1) as client:
            agent.join()
            with pytest.raises(exception.MasterUnreachable):
                client.agent_pillar("stuck1")  # its worker now waits for sleep 40
        stuck = psutil.Process(master.process.pid).children(recursive=True)
        started = time.monotonic()
        master.process.send_signal(signal.SIGTERM)
        assert master.process.wait(10) == 1
        assert time.monotonic() - started < 10
        assert "not stopped 9.0 s after the request to stop: exiting now" in master.log_text()
        for process in stuck:
            process.kill()
    finally:
        master.stop()
