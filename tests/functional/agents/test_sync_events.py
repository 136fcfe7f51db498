"""Module sync from the master (by hash, zip modules too) and the master's event bus."""

import io
import json
import subprocess
import zipfile

import pytest

from hearth.agent.sync import sync_files
from hearth.common import exception
from tests.fixtures.agents import STACKCTL, _environment, run_json


def test_sync_modules_fetches_changes_and_removals(fleet):
    master, _ = fleet
    modules = master.directory / "modules"
    (modules / "hello.py").write_text("def hi(name='world'):\n    return f'hello {name}'\n")
    package = modules / "greeter"
    package.mkdir()
    (package / "__init__.py").write_text("from .words import WORD\n\n"
                                         "def word():\n    return WORD\n")
    (package / "words.py").write_text("WORD = 'howdy'\n")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped/__init__.py", "def ping():\n    return 'zip pong'\n")
    (modules / "zipped.zip").write_bytes(archive.getvalue())

    code, data = run_json(master, "web2", "saltutil.sync_modules")
    assert code == 0
    assert data == {"web2": ["modules.greeter", "modules.hello", "modules.zipped"]}
    assert run_json(master, "web2", "hello.hi", "name=you") == (0, {"web2": "hello you"})
    assert run_json(master, "web2", "greeter.word") == (0, {"web2": "howdy"})
    assert run_json(master, "web2", "zipped.ping") == (0, {"web2": "zip pong"})
    # nothing changed: nothing fetched
    assert run_json(master, "web2", "saltutil.sync_all") == (0, {"web2": {"modules": []}})
    (modules / "hello.py").write_text("def hi(name='world'):\n    return f'hi {name}'\n")
    (modules / "zipped.zip").unlink()
    code, data = run_json(master, "web2", "saltutil.sync_modules")
    assert data == {"web2": ["modules.hello", "modules.zipped"]}
    assert run_json(master, "web2", "hello.hi") == (0, {"web2": "hi world"})
    code, data = run_json(master, "web2", "zipped.ping")
    assert code == 1 and data == {"web2": "'zipped.ping' is not available."}


class _Channel:
    """A master that lies about a file's content (a real one never does)."""

    def request(self, op, **payload):
        if op == "modules_list":
            return {"evil.py": "0" * 64}
        return {"name": "evil.py", "sha256": "0" * 64, "content": "cHJpbnQoMSk="}


def test_sync_refuses_content_that_does_not_match_its_hash(tmp_path):
    with pytest.raises(exception.CommandExecutionError,
                       match="module file 'evil.py' from the master does not match its hash"):
        sync_files(_Channel(), str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_event_listen_follows_the_master_bus(fleet):
    master, _ = fleet
    listener = subprocess.Popen(
        [STACKCTL, "--config-file", str(master.config), "event-listen", "--master",
         "--tag", "hearth/job/", "--count", "6", "--timeout", "20"],
        env=_environment(master.directory), text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    try:
        for _ in range(30):  # until the listener, once subscribed, has seen six events
            code, data = run_json(master, "-L", "web1,web3", "test.ping")
            assert code == 0
            if listener.poll() is not None:
                break
        out, err = listener.communicate(timeout=20)
    finally:
        listener.kill()
    lines = [line.split("\t", 1) for line in out.splitlines()]
    assert len(lines) == 6, err
    # the first job seen whole: its new event, then both returns
    tags = [tag for tag, _ in lines]
    first_new = next(i for i, tag in enumerate(tags) if tag.endswith("/new"))
    jid = tags[first_new].split("/")[2]
    assert sorted(tags[first_new + 1:first_new + 3]) == [f"hearth/job/{jid}/ret/web1",
                                                          f"hearth/job/{jid}/ret/web3"]
    new = json.loads(lines[first_new][1])
    assert new["fun"] == "test.ping" and new["minions"] == ["web1", "web3"]
    ret = json.loads(lines[first_new + 1][1])
    assert ret["return"] is True and ret["success"] is True and ret["_stamp"]


def test_agents_send_events_to_the_master(fleet):
    master, _ = fleet
    with master.client() as listener:
        events = listener.events("custom/", timeout=10)
        sent = master.run("db2", "event.send", ["custom/hello"], {"data": {"n": 1}},
                          timeout=5)
        assert sent.returns["db2"]["return"] is True
        tag, data = next(events)
    assert tag == "custom/hello" and data["n"] == 1 and data["id"] == "db2"
