"""Hearth::Exec::Call on remote targets, against an in-process fake of the master's client.

The real master and agents are exercised in tests/functional/agents; here the
plug-in's own logic is checked: what it publishes, how it polls without
blocking, its policies for failing and silent agents, and its attributes.
"""

import pytest

from hearth.common import exception
from hearth.engine.scheduler import green_sleep
from hearth.jobservice.callers import ApiProject
from hearth.jobservice.service import JobService
from hearth.jobservice.settings import JobSettings
from hearth.plugins import _remote_job
from hearth.plugins.exec_call import ExecCall
from tests.unit.engine.resource_helpers import Definition, FakeStack, GetAttr, make
from tests.unit.plugins.fake_master import FakeAgent, FakeMaster


@pytest.fixture
def master():
    return FakeMaster([FakeAgent("web1", {"role": "web"}), FakeAgent("web2", {"role": "web"}),
                       FakeAgent("db1", {"role": "db"})])


def never_runs_here():
    raise AssertionError("a remote call never builds the local runner")


def service_of(master, tmp_path=None, acl=None):
    """Return a JobService over the fake master (a publisher_acl file when ``acl``)."""
    settings = JobSettings()
    if acl is not None:
        path = tmp_path / "acl.yaml"
        path.write_text(acl)
        settings = JobSettings(acl_file=str(path))
    return JobService(client_factory=master.client, runner_factory=never_runs_here,
                      settings=settings)


class Calls:
    """Makes Hearth::Exec::Call resources on stacks whose owner is ``caller``."""

    def __init__(self, service, caller):
        self.jobs = service.acting_as(caller)

    def make(self, props, **kwargs):
        return make(ExecCall, props, stack=FakeStack(jobs=self.jobs), **kwargs)


@pytest.fixture
def call_type(master):
    service = service_of(master)
    return Calls(service, JobService.for_local_user().host_owner)


def drive(res, action, *args):
    cookie = res.handler(action)(*args)
    check = res.completion_check(action)
    for _ in range(2000):
        done = check(cookie)
        if done is True:
            return cookie
        assert done is False or isinstance(done, float)
        green_sleep(0.001)
    raise AssertionError("call did not finish")


def test_create_publishes_and_exposes_each_agents_return(call_type, master):
    res = call_type.make({"function": "test.echo", "args": ["hi"], "kwargs": {"k": 1},
                           "target": "G@role:web", "target_type": "compound", "timeout": 7,
                           "batch": "50%", "pillar": {"app": {"port": 80}}})
    res.validate()
    drive(res, "CREATE")
    [published] = master.published
    assert published == {"jid": published["jid"], "target": "G@role:web",
                         "target_type": "compound", "fun": "test.echo", "args": ["hi"],
                         "kwargs": {"k": 1, "pillar": {"app": {"port": 80}}}, "timeout": 7,
                         "batch": "50%", "user": None}
    assert res.resource_id == published["jid"] == res.FnGetAtt("jid")
    assert res.FnGetAtt("targeted") == ["web1", "web2"]
    assert res.FnGetAtt("returns") == {"web1": True, "web2": True}
    assert res.FnGetAtt("return") == {"web1": True, "web2": True}
    assert res.FnGetAtt("retcodes") == {"web1": 0, "web2": 0}
    assert res.FnGetAtt("retcode") == 0 and res.FnGetAtt("missing") == {}
    assert master.opened == master.closed >= 2  # publish + status polls, each closed


def test_polling_never_blocks_and_asks_for_a_delay(call_type, master):
    master.polls_until_done = 50
    res = call_type.make({"function": "test.ping", "target": "web1"})
    cookie = res.handle_create()
    answers = [res.check_create_complete(cookie) for _ in range(3)]
    assert answers == [_remote_job.POLL_DELAY] * 3


def test_single_agent_stdout(call_type, master):
    master.agents["db1"].answer = lambda fun, a, k: ({"stdout": "hi", "stderr": "",
                                                     "retcode": 0}, 0)
    res = call_type.make({"function": "cmd.run_all", "args": ["echo hi"], "target": "db1"})
    drive(res, "CREATE")
    assert res.FnGetAtt("stdout") == "hi" and res.FnGetAtt("stderr") == ""


def test_a_failing_agent_fails_the_resource_by_name(call_type, master):
    master.agents["web2"].answer = lambda fun, a, k: ("ERROR executing 'cmd.run': boom", 1)
    res = call_type.make({"function": "cmd.run", "args": ["x"], "target": "web*"})
    with pytest.raises(exception.CommandExecutionError) as caught:
        drive(res, "CREATE")
    jid = master.published[0]["jid"]
    assert str(caught.value) == (
        f"cmd.run (job {jid}) failed on 1 of 2 targeted agents: web2 failed with retcode 1: "
        "ERROR executing 'cmd.run': boom")
    assert res.FnGetAtt("retcodes") == {"web1": 0, "web2": 1}
    assert res.FnGetAtt("retcode") == 1


@pytest.mark.parametrize("props", [{"on_agent_failure": "ignore"},
                                   {"fail_on_retcode": False}])
def test_agent_failures_can_be_ignored(call_type, master, props):
    master.agents["web2"].answer = lambda fun, a, k: ("bad", 3)
    res = call_type.make({"function": "cmd.run", "args": ["x"], "target": "web*", **props})
    drive(res, "CREATE")
    assert res.FnGetAtt("retcodes") == {"web1": 0, "web2": 3}


def test_a_silent_agent_fails_the_resource_unless_ignored(call_type, master):
    master.agents["db1"].connected = False
    res = call_type.make({"function": "test.ping", "target": "*"})
    with pytest.raises(exception.CommandExecutionError) as caught:
        drive(res, "CREATE")
    assert str(caught.value).endswith(
        "failed on 1 of 3 targeted agents: db1 did not return [Not connected]")
    assert res.FnGetAtt("missing") == {"db1": "Not connected"}
    assert res.FnGetAtt("retcode") == 1

    lenient = call_type.make({"function": "test.ping", "target": "*",
                               "on_no_return": "ignore"})
    drive(lenient, "CREATE")
    assert lenient.FnGetAtt("returns") == {"web1": True, "web2": True}


def test_no_agent_matched_fails_create_but_not_delete(call_type, master):
    res = call_type.make({"function": "test.ping", "target": "nosuch*",
                           "on_delete": {"function": "test.ping"}})
    with pytest.raises(exception.NoAgentsMatched):
        drive(res, "CREATE")
    drive(res, "DELETE")
    assert master.published == []


def test_on_delete_runs_on_the_same_target(call_type, master):
    res = call_type.make({"function": "test.ping", "target": "db1",
                           "on_delete": {"function": "file.remove", "args": ["/tmp/x"]}})
    drive(res, "CREATE")
    drive(res, "DELETE")
    assert [(p["fun"], p["target"], p["args"]) for p in master.published] == [
        ("test.ping", "db1", []), ("file.remove", "db1", ["/tmp/x"])]


def test_update_publishes_again_with_the_new_target(call_type, master):
    res = call_type.make({"function": "test.ping", "target": "web1"})
    drive(res, "CREATE")
    after = Definition("web", "Hearth::Exec::Call", {"function": "test.ping", "target": "db1"})
    drive(res, "UPDATE", after, {}, {"target": "db1"})
    assert [p["target"] for p in master.published] == ["web1", "db1"]
    assert res.FnGetAtt("targeted") == ["db1"]


def test_a_master_gone_during_a_job_is_waited_for_then_named(call_type, master):
    master.polls_until_done = 1000
    res = call_type.make({"function": "test.ping", "target": "web1"})
    cookie = res.handle_create()
    while master.published == []:
        res.check_create_complete(cookie)
        green_sleep(0.001)
    master.unreachable = True
    for _ in range(20):
        res.check_create_complete(cookie)
        green_sleep(0.002)
    res.stack.clock.advance(_remote_job.UNREACHABLE_GRACE)
    with pytest.raises(exception.CommandExecutionError) as caught:
        for _ in range(200):
            res.check_create_complete(cookie)
            green_sleep(0.002)
    jid = master.published[0]["jid"]
    assert str(caught.value) == (
        f"test.ping (job {jid}): the master stopped answering for 30 seconds")


def test_a_master_back_in_time_finishes_the_job(call_type, master):
    res = call_type.make({"function": "test.ping", "target": "web1"})
    cookie = res.handle_create()
    while master.published == []:
        res.check_create_complete(cookie)
        green_sleep(0.001)
    master.unreachable = True
    for _ in range(10):
        res.check_create_complete(cookie)
        green_sleep(0.002)
    master.unreachable = False
    for _ in range(500):
        if res.check_create_complete(cookie) is True:
            break
        green_sleep(0.002)
    assert res.FnGetAtt("returns") == {"web1": True}


def test_an_abandoned_call_leaves_nothing_open(call_type, master):
    master.polls_until_done = 1000
    res = call_type.make({"function": "test.ping", "target": "web1"})
    cookie = res.handle_create()
    for _ in range(5):
        res.check_create_complete(cookie)
        green_sleep(0.005)
    del cookie  # what a cancelled stack does: it stops polling
    green_sleep(0.05)
    assert master.opened == master.closed


@pytest.mark.parametrize(("connected", "policy", "error"), [
    (True, "fail", None),
    (False, "fail", "agents targeted by job {jid} are not connected: db1"),
    (False, "ignore", None),
    (None, "fail", "agents targeted by job {jid} are no longer among the agents this stack's "
                   "project may target (key deleted, or publisher_acl narrowed): db1"),
    (None, "ignore", None),
])
def test_check_asks_whether_the_targeted_agents_are_connected(call_type, master, connected,
                                                              policy, error):
    """An agent the listing no longer shows (None) is not called "not connected"."""
    res = call_type.make({"function": "test.ping", "target": "L@db1,web1",
                           "target_type": "compound", "on_no_return": policy})
    drive(res, "CREATE")
    if connected is None:
        del master.agents["db1"]
    else:
        master.agents["db1"].connected = connected
    if error is None:
        drive(res, "CHECK")
        return
    with pytest.raises(exception.CommandExecutionError) as caught:
        drive(res, "CHECK")
    assert str(caught.value) == error.format(jid=res.FnGetAtt("jid"))


def test_check_of_a_local_call_passes(call_type):
    res = call_type.make({"function": "test.ping"})
    assert res.check_check_complete(res.handle_check()) is True


@pytest.mark.parametrize(("props", "message"), [
    ({"target": "web1 and", "target_type": "compound"},
     "Property error: web.properties.target: Invalid target 'web1 and' (compound): expected "
     "a target or '(' after 'and' at the end"),
    ({"target": "web(", "target_type": "pcre"},
     "Property error: web.properties.target: Invalid target 'web(' (pcre): bad regular "
     "expression 'web(': missing ), unterminated subpattern at position 3"),
    ({"target": "web*", "batch": "ten"},
     "Property error: web.properties.batch: Invalid batch size 'ten': use a number of agents "
     "(e.g. 10) or a percentage of the targeted agents (e.g. 25%)."),
])
def test_validation_names_the_property(call_type, props, message):
    res = call_type.make({"function": "test.ping", **props})
    with pytest.raises(exception.StackValidationFailed) as caught:
        res.validate()
    assert str(caught.value) == message


def test_target_type_is_one_of_salts(call_type):
    res = call_type.make({"function": "test.ping", "target": "x", "target_type": "regex"})
    with pytest.raises(exception.StackValidationFailed) as caught:
        res.validate()
    assert str(caught.value).startswith("Property error: web.properties.target_type: ")


def test_nodegroups_are_left_to_the_master(call_type):
    for props in ({"target": "webs", "target_type": "nodegroup"},
                  {"target": "N@webs and G@role:web", "target_type": "compound"}):
        call_type.make({"function": "test.ping", **props}).validate()


def test_a_target_from_a_resource_not_created_yet_validates(call_type):
    res = call_type.make({"function": "test.ping", "target": GetAttr("server"),
                           "pillar": {"role": "web"}})
    res.validate()


def test_an_empty_target_from_get_attr_never_runs_on_the_engine_host(call_type, master):
    res = call_type.make({"function": "test.ping", "target": GetAttr("server", "")})
    with pytest.raises(exception.InvalidTarget) as caught:
        res.handle_create()
    assert str(caught.value) == "Invalid target '' (glob): the target is empty"
    assert master.published == []


def test_get_attr_target_is_published(call_type, master):
    res = call_type.make({"function": "test.ping", "target": GetAttr("server", "db1")})
    drive(res, "CREATE")
    assert master.published[0]["target"] == "db1"
    assert res.FnGetAtt("returns") == {"db1": True}


# --- a stack acts with its owner's rights --------------------------------------------------

def test_a_project_without_a_publisher_acl_runs_nothing(master, tmp_path):
    calls = Calls(service_of(master), ApiProject("demo"))
    res = calls.make({"function": "cmd.run", "args": ["touch /tmp/x"], "target": "*"})
    with pytest.raises(exception.JobRefused) as caught:
        drive(res, "CREATE")
    assert str(caught.value) == (
        "project demo may not run cmd.run on '*' (glob): this API publishes no job until "
        "[api] publisher_acl_file names the functions each project may run.")
    assert caught.value.error_type == "Forbidden"
    assert master.published == []


def test_a_project_runs_only_what_its_publisher_acl_allows(master, tmp_path):
    acl = "demo:\n  - test.ping\n  - 'web*':\n      - cmd.run\n"
    calls = Calls(service_of(master, tmp_path, acl), ApiProject("demo"))
    drive(calls.make({"function": "test.ping", "target": "*"}), "CREATE")
    assert master.published[0]["user"] == "demo"
    refused = calls.make({"function": "cmd.run", "args": ["id"], "target": "*"})
    with pytest.raises(exception.JobRefused) as caught:
        drive(refused, "CREATE")
    assert str(caught.value) == (
        "project demo may not run cmd.run on '*' (glob): its publisher_acl allows cmd.run "
        "only on agents selected by 'web*', and this target also selects db1.")
    assert len(master.published) == 1


def test_acl_targets_match_recorded_grains_not_reported_ones(master, tmp_path):
    acl = "demo:\n  - 'G@role:db':\n      - test.ping\n"
    master.agents["web1"].grains = {"role": "db"}           # what web1 claims about itself
    master.agents["db1"].recorded_grains = {"role": "db"}   # what the master holds true
    calls = Calls(service_of(master, tmp_path, acl), ApiProject("demo"))
    drive(calls.make({"function": "test.ping", "target": "db1"}), "CREATE")
    with pytest.raises(exception.JobRefused) as caught:
        drive(calls.make({"function": "test.ping", "target": "web1"}), "CREATE")
    assert "selects web1" in str(caught.value)


def test_a_project_may_not_run_on_the_engine_host(master):
    calls = Calls(service_of(master), ApiProject("demo"))
    res = calls.make({"function": "cmd.run", "args": ["touch /tmp/x"]})
    with pytest.raises(exception.JobRefused) as caught:
        res.handle_create()
    assert str(caught.value) == (
        "project demo may not run cmd.run on the engine's own host: running modules on the "
        "engine's own host is the local user's right; [api] engine_host_projects does not "
        "grant it to this project.")


def continued(res, action, *args):
    """Return the same resource as the engine taking the action over builds it (same store)."""
    again = make(ExecCall, dict(res.properties.data), stack=res.stack)
    again.uuid, again.action, again.status = res.uuid, action, "IN_PROGRESS"
    cookie = getattr(again, f"handle_{action.lower()}_continue")(*args)
    for _ in range(2000):
        if again.check_create_complete(cookie) is True:
            return again
        green_sleep(0.001)
    raise AssertionError("call did not finish")


def test_an_engine_taking_a_call_over_follows_its_job_and_never_publishes_again(call_type,
                                                                              master):
    master.polls_until_done = 5
    res = call_type.make({"function": "test.ping", "target": "web*"})
    res.state_set("CREATE", "IN_PROGRESS")
    cookie = res.handle_create()
    while res.progress() is None:  # the job id is stored once the master gave it
        assert res.check_create_complete(cookie) is not True
        green_sleep(0.001)
    [published] = master.published
    assert res.progress() == {"jid": published["jid"], "targeted": ["web1", "web2"]}
    # the engine dies here; another one continues the create from what was stored
    again = continued(res, "CREATE")
    assert master.published == [published]
    assert again.resource_id == published["jid"]
    assert again.FnGetAtt("returns") == {"web1": True, "web2": True}


def test_a_call_whose_job_id_was_never_stored_is_not_published_twice(call_type, master):
    res = call_type.make({"function": "test.ping", "target": "web*"})
    res.state_set("CREATE", "IN_PROGRESS")
    with pytest.raises(exception.ActionNotContinuable) as caught:
        continued(res, "CREATE")
    assert str(caught.value) == (
        "Engine went down during CREATE: the call of test.ping may have been published "
        "before the engine went down, and no job id was stored to follow it")
    assert master.published == []
