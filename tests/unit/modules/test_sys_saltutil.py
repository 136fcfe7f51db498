"""sys.* introspection and saltutil job functions."""

import os
import subprocess
import sys

from hearth.jobs import ProcTable


def test_list_modules_and_functions(salt):
    assert salt["sys.list_modules"]("t*") == ["test"]
    assert "test.ping" in salt["sys.list_functions"]("test")
    assert salt["sys.list_functions"]("test.s*") == ["test.sleep"]


def test_doc(salt):
    docs = salt["sys.doc"]("test.echo")
    assert docs == {"test.echo": "Return ``text`` unchanged."}


def test_argspec(salt):
    spec = salt["sys.argspec"]("test.echo")
    assert spec == {"test.echo": {"args": ["text"], "defaults": None, "varargs": False,
                                  "kwargs": False}}
    assert salt["sys.argspec"]("test.arg")["test.arg"]["varargs"] is True


def test_reload_modules(salt):
    salt.context["x"] = 1
    assert salt["sys.reload_modules"]() is True
    assert salt.context == {}


def test_running_find_and_kill_job(salt, tmp_path):
    table = ProcTable(str(tmp_path / "cache" / "proc"))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        record = {"jid": "20260101000000000001", "fun": "test.sleep", "pid": child.pid,
                  "tgt": "m1"}
        table.add(record)
        assert salt["saltutil.running"]() == [record]
        assert salt["saltutil.is_running"]("test.*") == [record]
        assert salt["saltutil.find_job"](record["jid"]) == record
        assert salt["saltutil.kill_job"](record["jid"]) == (
            f"Signal 9 sent to job {record['jid']} at pid {child.pid}")
        child.wait(5)
    finally:
        child.kill()
    assert salt["saltutil.find_job"](record["jid"]) == {}
    assert salt["saltutil.running"]() == []
    assert salt["saltutil.kill_job"]("20260101000000000009") == ""


def test_own_process_job_is_not_signalled(salt, tmp_path):
    table = ProcTable(str(tmp_path / "cache" / "proc"))
    table.add({"jid": "20260101000000000002", "fun": "x", "pid": os.getpid(), "tgt": "m1"})
    assert salt["saltutil.term_job"]("20260101000000000002") == (
        f"Job 20260101000000000002 runs inside this process (pid {os.getpid()}) "
        "and cannot be signalled")


def test_pkg_and_service_decide_by_virtual(salt):
    salt.load_all()
    for module in ("pkg", "service"):
        assert module in salt.modules or "__virtual__ returned False" in str(
            salt.failures[module])
