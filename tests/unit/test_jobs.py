"""JIDs, the success rule, the job runner and its bus events."""

import datetime

import pytest

from hearth import bus, jobs
from hearth.common import exception
from hearth.loader import EXECUTION, Loader

FIXED = datetime.datetime(2026, 11, 21, 17, 59, 45, 56996, tzinfo=datetime.UTC)


def test_jid_is_twenty_utc_digits_and_unique_within_a_microsecond():
    generate = jobs.JidGenerator(clock=lambda: FIXED)
    first, second, third = generate(), generate(), generate()
    assert first == "20261121175945056996"
    assert (second, third) == ("20261121175945056997", "20261121175945056998")
    assert jobs.is_jid(first) and jobs.is_jid(first + "_123") and not jobs.is_jid("123")
    assert jobs.jid_to_datetime(first) == FIXED


@pytest.mark.parametrize("ret, context, expected", [
    (True, 0, 0),
    ("", 3, 3),
    ({"result": False}, 0, 1),
    ({"success": False}, 0, 1),
    ({"result": None}, 0, 1),
    ({"result": True, "success": True}, 0, 0),
    ({"other": False}, 0, 0),
    (False, 0, 0),
])
def test_success_rule(ret, context, expected):
    assert jobs.job_retcode(ret, context) == expected


@pytest.fixture
def runner(tmp_path):
    loader = Loader(EXECUTION, {}, pack={"__grains__": {}, "__pillar__": {}})
    events = []
    stored = []
    return jobs.JobRunner(loader, "m1", publish=lambda tag, data: events.append((tag, data)),
                          proc=jobs.ProcTable(str(tmp_path / "proc")), store=stored.append,
                          clock=lambda: FIXED,
                          jids=jobs.JidGenerator(clock=lambda: FIXED)), events, stored


def test_runner_publishes_new_and_ret_and_stores(runner):
    job_runner, events, stored = runner
    job = job_runner.run("test.echo", ["hi"])
    assert (job.ret, job.retcode, job.success) == ("hi", 0, True)
    assert [tag for tag, _ in events] == [f"hearth/job/{job.jid}/new",
                                          f"hearth/job/{job.jid}/ret/m1"]
    assert events[1][1] == {"cmd": "_return", "id": "m1", "jid": job.jid, "fun": "test.echo",
                            "fun_args": ["hi"], "return": "hi", "retcode": 0, "success": True}
    assert stored == [job]
    assert job.to_dict()["started_at"] == FIXED.isoformat()


def test_runner_context_retcode_fails_the_job(runner):
    job = runner[0].run("test.retcode", kwargs={"code": 5})
    assert (job.ret, job.retcode, job.success) == (True, 5, False)


def test_runner_exception_becomes_retcode_1_with_text(runner):
    job = runner[0].run("test.exception", ["boom"])
    assert (job.retcode, job.error) == (1, "boom")
    assert job.ret == "ERROR executing 'test.exception': boom"


def test_runner_invalid_arguments(runner):
    job = runner[0].run("test.echo")
    assert job.error == ("Passed invalid arguments to test.echo: "
                         "missing a required argument: 'text'")


def test_runner_type_error_inside_function_is_not_invalid_arguments(runner, tmp_path):
    job = runner[0].run("test.fib", ["x"])
    assert job.retcode == 1
    assert not job.error.startswith("Passed invalid arguments")


def test_runner_missing_function_raises_without_a_job(runner):
    job_runner, events, _ = runner
    with pytest.raises(exception.FunctionNotFound, match="^'test.nope' is not available.$"):
        job_runner.run("test.nope")
    assert events == []


def test_runner_default_publish_is_the_bus():
    loader = Loader(EXECUTION, {}, pack={"__grains__": {}, "__pillar__": {}})
    subscription = bus.subscribe("hearth/job/")
    try:
        job = jobs.JobRunner(loader, "m1").run("test.ping")
        assert subscription.get(1).tag == f"hearth/job/{job.jid}/new"
        assert subscription.get(1).data["return"] is True
    finally:
        subscription.close()


def test_call_context_keeps_retcode_per_thread():
    import threading
    context = jobs.CallContext()
    context["retcode"] = 3
    context["shared"] = 1
    seen = {}

    def other():
        seen["has"] = "retcode" in context
        context["retcode"] = 9
        seen["shared"] = context["shared"]

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == {"has": False, "shared": 1}
    assert context.get("retcode") == 3 and context.pop("retcode") == 3
    assert context.pop("retcode", 0) == 0 and context.get("retcode") is None
    with pytest.raises(KeyError):
        context["retcode"]
    context["retcode"] = 1
    del context["retcode"]
    context["retcode"] = 2
    context.clear()
    assert "retcode" not in context and context == {}


def test_execution_loader_uses_a_call_context():
    from hearth.loader import execution_loader
    loader = execution_loader({})
    assert isinstance(loader.context, jobs.CallContext)
    loader["cmd.retcode"]("false")
    assert loader.context["retcode"] == 1
