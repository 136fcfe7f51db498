"""Hearth::Exec::Call driven through its handle_*/check_* methods."""

import pytest

from hearth.common import exception
from hearth.engine.scheduler import green_sleep
from hearth.jobs import JobRunner
from hearth.jobservice.callers import ApiProject
from hearth.jobservice.service import JobService
from hearth.jobservice.settings import JobSettings
from hearth.loader import EXECUTION, Loader
from hearth.plugins.exec_call import ExecCall, resource_mapping
from tests.unit.engine.resource_helpers import Definition, FakeStack, make


@pytest.fixture
def call_type(tmp_path):
    modules = tmp_path / "mods"
    modules.mkdir()
    (modules / "probe.py").write_text(
        "import time\n\n"
        "def touch(path, text='x'):\n"
        "    open(path, 'a').write(text)\n"
        "    return {'result': True, 'stdout': 'wrote', 'stderr': ''}\n\n"
        "def nap(seconds):\n"
        "    time.sleep(seconds)\n"
        "    return True\n\n"
        "def refuse():\n"
        "    return {'result': False, 'comment': 'not today'}\n\n"
        "def seen(pillar=None):\n"
        "    return pillar\n")
    loader = Loader(EXECUTION, {"module_dirs": [str(modules)]},
                    pack={"__grains__": {}, "__pillar__": {}})
    events = []
    runner = JobRunner(loader, "engine-host", publish=lambda tag, data: events.append(tag))
    return LocalCalls(runner, events)


class LocalCalls:
    """Makes Hearth::Exec::Call resources on a stack of the local user (or of ``caller``)."""

    def __init__(self, runner, events, caller=None, settings=None):
        self.jobs, self.users, self.events = [], [], events
        service = JobService.for_local_user(runner_factory=lambda: runner,
                                            record_job=self._record,
                                            settings=settings or JobSettings())
        self.stack_jobs = service.acting_as(caller or service.host_owner)

    def _record(self, job, user):
        self.jobs.append(job)
        self.users.append(user)

    def make(self, props, **kwargs):
        return make(ExecCall, props, stack=FakeStack(jobs=self.stack_jobs), **kwargs)


def drive(res, action, *args):
    cookie = res.handler(action)(*args)
    check = res.completion_check(action)
    for _ in range(2000):
        if check(cookie):
            return cookie
        green_sleep(0.005)
    raise AssertionError("call did not finish")


def test_mapping():
    assert resource_mapping() == {"Hearth::Exec::Call": ExecCall}


def test_create_runs_the_call_and_exposes_attributes(call_type, tmp_path):
    target = tmp_path / "out"
    res = call_type.make({"function": "probe.touch", "args": [str(target)]})
    res.validate()
    drive(res, "CREATE")
    assert target.read_text() == "x"
    job = call_type.jobs[-1]
    assert res.resource_id == job.jid and len(job.jid) == 20
    assert res.FnGetAtt("retcode") == 0
    assert res.FnGetAtt("jid") == job.jid
    assert res.FnGetAtt("stdout") == "wrote" and res.FnGetAtt("stderr") == ""
    assert res.FnGetAtt("return") == {"result": True, "stdout": "wrote", "stderr": ""}
    assert call_type.events == [f"hearth/job/{job.jid}/new",
                                f"hearth/job/{job.jid}/ret/engine-host"]


def test_update_re_runs_with_new_properties(call_type, tmp_path):
    target = tmp_path / "out"
    res = call_type.make({"function": "probe.touch", "args": [str(target)]})
    drive(res, "CREATE")
    after = Definition("web", "Hearth::Exec::Call",
                       {"function": "probe.touch", "args": [str(target)], "kwargs": {"text": "y"}})
    drive(res, "UPDATE", after, {}, {"kwargs": {"text": "y"}})
    assert target.read_text() == "xy"


def test_run_on_create_only_skips_update(call_type, tmp_path):
    target = tmp_path / "out"
    props = {"function": "probe.touch", "args": [str(target)], "run_on": ["CREATE"]}
    res = call_type.make(props)
    drive(res, "CREATE")
    drive(res, "UPDATE", Definition("web", "Hearth::Exec::Call", props), {}, {})
    assert target.read_text() == "x"


def test_delete_hook(call_type, tmp_path):
    target = tmp_path / "gone"
    res = call_type.make({"function": "test.ping", "on_delete": {
        "function": "probe.touch", "args": [str(target)], "kwargs": {"text": "bye"}}})
    drive(res, "CREATE")
    drive(res, "DELETE")
    assert target.read_text() == "bye"


def test_delete_without_hook_is_immediate(call_type):
    res = call_type.make({"function": "test.ping"})
    assert res.check_delete_complete(res.handle_delete())


def test_exception_fails_with_the_function_error_text(call_type):
    res = call_type.make({"function": "test.exception", "args": ["disk full"]})
    with pytest.raises(exception.CommandExecutionError) as caught:
        drive(res, "CREATE")
    assert str(caught.value) == "test.exception failed with retcode 1: disk full"
    assert res.FnGetAtt("retcode") == 1


def test_nonzero_retcode_fails_unless_told_not_to(call_type):
    res = call_type.make({"function": "cmd.run_all", "args": ["sh -c 'echo bad >&2; exit 3'"]})
    with pytest.raises(exception.CommandExecutionError) as caught:
        drive(res, "CREATE")
    assert str(caught.value) == "cmd.run_all failed with retcode 3: bad"
    lenient = call_type.make({"function": "cmd.run_all", "args": ["sh -c 'exit 3'"],
                               "fail_on_retcode": False})
    drive(lenient, "CREATE")
    assert lenient.FnGetAtt("retcode") == 3


def test_falsy_result_fails_with_its_comment(call_type):
    res = call_type.make({"function": "probe.refuse"})
    with pytest.raises(exception.CommandExecutionError) as caught:
        drive(res, "CREATE")
    assert str(caught.value) == "probe.refuse failed with retcode 1: not today"
    drive(call_type.make({"function": "test.false"}), "CREATE")  # a plain False return is fine


def test_missing_function_fails_at_once(call_type):
    res = call_type.make({"function": "test.nope"})
    with pytest.raises(exception.FunctionNotFound) as caught:
        res.handle_create()
    assert str(caught.value) == "'test.nope' is not available."


def test_local_targets_run_on_the_engine_host(call_type, tmp_path):
    for target in ("local", "localhost"):
        res = call_type.make({"function": "test.ping", "target": target})
        drive(res, "CREATE")
        assert res.FnGetAtt("targeted") == ["engine-host"]
        assert res.FnGetAtt("returns") == {"engine-host": True}
        assert res.FnGetAtt("retcodes") == {"engine-host": 0}
        assert res.FnGetAtt("missing") == {}


def test_on_agent_failure_ignore_keeps_the_local_failure_in_attributes(call_type):
    res = call_type.make({"function": "test.exception", "args": ["disk full"],
                           "on_agent_failure": "ignore"})
    drive(res, "CREATE")
    assert res.FnGetAtt("retcode") == 1


def test_timeout_fails_on_the_stack_clock(call_type):
    res = call_type.make({"function": "probe.nap", "args": [0.3], "timeout": 5})
    cookie = res.handle_create()
    assert res.check_create_complete(cookie) is False
    res.stack.clock.advance(5)
    with pytest.raises(exception.CommandExecutionError) as caught:
        res.check_create_complete(cookie)
    assert str(caught.value) == "probe.nap did not finish within 5 seconds"


def test_run_on_validation():
    res = make(ExecCall, {"function": "test.ping", "run_on": ["DELETE"]})
    with pytest.raises(exception.StackValidationFailed) as caught:
        res.validate()
    assert str(caught.value).startswith("Property error: web.properties.run_on: ")


def test_pillar_reaches_the_function_as_its_pillar_keyword(call_type):
    res = call_type.make({"function": "probe.seen", "pillar": {"app": {"port": 80}}})
    res.validate()
    drive(res, "CREATE")
    assert res.FnGetAtt("return") == {"app": {"port": 80}}


@pytest.mark.parametrize(("grant", "allowed"), [((), False), (("dem*",), True), (("ops",), False)])
def test_a_projects_local_call_needs_the_engine_host_grant(call_type, tmp_path, grant, allowed):
    target = tmp_path / "out"
    calls = LocalCalls(call_type.stack_jobs.service._runner(), [], ApiProject("demo"),
                       JobSettings(engine_host_projects=grant))
    res = calls.make({"function": "probe.touch", "args": [str(target)]})
    if allowed:
        drive(res, "CREATE")
        assert target.read_text() == "x" and calls.users == ["demo"]
        return
    with pytest.raises(exception.JobRefused) as caught:
        drive(res, "CREATE")
    assert "[api] engine_host_projects does not grant it" in str(caught.value)
    assert not target.exists() and calls.jobs == []
