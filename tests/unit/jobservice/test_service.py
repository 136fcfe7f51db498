"""JobService's rules, against an in-process fake of the master's client.

The real master, agents and hearth-api are in tests/functional/agents
(test_job_authority.py, test_trusted_grains.py); here each rule is checked
alone: one resolution per job, the ACL on exactly the resolved agents, the
batched wait, a project's own jobs only, pillar reads, recorded grains and
the bootstrap wait.
"""

from __future__ import annotations

import pytest

from hearth.common import exception
from hearth.jobservice.callers import ApiProject, LocalUser
from hearth.jobservice.request import JobRequest
from hearth.jobservice.service import JobService
from hearth.jobservice.settings import JobSettings
from tests.unit.plugins.fake_master import FakeAgent, FakeMaster

ACL = """
demo:
  - '*':
      - test.ping
web:
  - 'G@role:web':
      - pillar.items
      - cmd.run
"""


@pytest.fixture
def master():
    return FakeMaster([FakeAgent("web1", {"role": "web"}, recorded_grains={"role": "web"}),
                       FakeAgent("web2", {"role": "web"}),
                       FakeAgent("db1", {"role": "db"}, recorded_grains={"role": "db"})],
                      polls_until_done=1)


@pytest.fixture
def service(master, tmp_path):
    acl = tmp_path / "acl.yaml"
    acl.write_text(ACL)
    return JobService(client_factory=master.client,
                      settings=JobSettings(acl_file=str(acl), timeout=5.0))


OWNER = LocalUser("alice")


def test_the_master_gets_the_agents_the_target_resolved_to(service, master):
    published = service.publish(OWNER, JobRequest("test.ping", target="web*"))
    assert published.targeted == ["web1", "web2"]
    assert master.published[0]["target"] == "web*" and master.published[0]["user"] is None


def test_job_targets_match_reported_grains_with_recorded_ones_over_them(service, master):
    master.agents["db1"].grains = {"role": "web"}  # db1 says web; the master recorded db
    published = service.publish(OWNER, JobRequest("test.ping", target="role:web",
                                                  target_type="grain"))
    assert published.targeted == ["web1", "web2"]


def test_the_acl_judges_exactly_the_resolved_agents_on_recorded_grains(service, master):
    web = ApiProject("web")
    assert service.publish(web, JobRequest("cmd.run", ["id"], target="web1")).targeted == [
        "web1"]
    with pytest.raises(exception.JobRefused) as caught:  # web2 says web; nothing recorded
        service.publish(web, JobRequest("cmd.run", ["id"], target="web*"))
    assert str(caught.value) == (
        "project web may not run cmd.run on 'web*' (glob): its publisher_acl allows cmd.run "
        "only on agents selected by 'G@role:web', and this target also selects web2.")
    assert len(master.published) == 1


def test_the_local_user_needs_no_acl(master):
    service = JobService(client_factory=master.client, settings=JobSettings())
    assert service.publish(OWNER, JobRequest("cmd.run", target="*")).targeted == [
        "db1", "web1", "web2"]
    with pytest.raises(exception.JobRefused):
        service.publish(ApiProject("demo"), JobRequest("test.ping", target="*"))


def test_nothing_matched_and_bad_batches_send_nothing(service, master):
    with pytest.raises(exception.NoAgentsMatched):
        service.publish(OWNER, JobRequest("test.ping", target="nosuch*"))
    with pytest.raises(exception.InvalidBatchSize):
        service.publish(OWNER, JobRequest("test.ping", target="*", batch="ten"))
    assert master.published == []


@pytest.mark.parametrize(("request_", "wait"), [
    (JobRequest("test.ping", target="*"), 5.0),
    (JobRequest("test.ping", target="*", timeout=2), 2.0),
    (JobRequest("test.ping", target="*", timeout=2, batch=1), 8.0),       # 3 rounds + 1
    (JobRequest("test.ping", target="*", timeout=2, batch="67%"), 6.0),   # 2 rounds + 1
])
def test_run_waits_the_timeout_once_per_batch_and_once_more(service, master, request_, wait):
    status = service.run(OWNER, request_)
    assert status.done and set(status.returns) == {"db1", "web1", "web2"}
    assert master.waits == [wait]


def test_a_project_sees_its_own_jobs_only(service, master):
    jid = service.publish(ApiProject("demo"), JobRequest("test.ping", target="*")).jid
    assert service.job_status(ApiProject("demo"), jid).jid == jid
    assert [job["jid"] for job in service.list_jobs(ApiProject("demo"))] == [jid]
    assert service.list_jobs(ApiProject("web")) == []
    with pytest.raises(exception.JobNotFound) as caught:
        service.show_job(ApiProject("web"), jid)
    assert str(caught.value) == f"The Job ({jid}) could not be found."


def test_reading_a_pillar_needs_the_right_to_run_pillar_items(service, master):
    master.pillars = {"web1": {"app": 1}, "db1": {"password": "s3cret"}}
    assert service.pillar.agent_pillar(ApiProject("web"), "web1") == {"app": 1}
    assert service.pillar.agent_pillar(OWNER, "db1") == {"password": "s3cret"}
    for project, agent in (("web", "db1"), ("demo", "web1"), ("nobody", "web1")):
        with pytest.raises(exception.JobRefused) as caught:
            service.pillar.agent_pillar(ApiProject(project), agent)
        assert str(caught.value).startswith(f"project {project} may not read the pillar of "
                                            f"agent {agent}: reading an agent's pillar needs "
                                            "the right to run pillar.items on it")


def test_a_pillar_compiled_here_is_the_engine_host_right(tmp_path):
    service = JobService(has_master=lambda: False,
                         settings=JobSettings(engine_host_projects=("ops-*",)))
    with pytest.raises(exception.JobRefused) as caught:
        service.pillar.agent_pillar(ApiProject("demo"), "db1", grains={"role": "db"})
    assert str(caught.value) == (
        "project demo may not compile the pillar of agent db1 on the engine's own host: "
        "running modules on the engine's own host is the local user's right; [api] "
        "engine_host_projects does not grant it to this project.")


def test_only_the_local_user_records_grains(service, master):
    assert service.record_grains(OWNER, "web2", {"role": "web"}) == {"role": "web"}
    with pytest.raises(exception.JobRefused):
        service.record_grains(ApiProject("web"), "web2", {"role": "db"})
    configured, given = {"tier": 1}, {"role": "db"}
    assert service.recordable_grains(OWNER, configured, given) == {"tier": 1, "role": "db"}
    assert service.recordable_grains(ApiProject("web"), configured, given) == {"tier": 1}


def test_a_stack_acts_as_its_owner():
    assert JobService().caller_for("demo") == ApiProject("demo")
    assert JobService(OWNER).caller_for("demo") == OWNER
    bound = JobService(OWNER).acting_as(ApiProject("p"))
    assert bound.caller == ApiProject("p")


def test_waiting_for_a_new_agent(master):
    service = JobService(client_factory=master.client, settings=JobSettings())
    service.wait_for_agent("web1", timeout=5, sleep=lambda s: None)
    master.agents["web2"].connected = False
    now = [0.0]

    def sleep(seconds):
        now[0] += seconds

    with pytest.raises(exception.AgentNotAnswering) as caught:
        service.wait_for_agent("web2", timeout=3, interval=1, clock=lambda: now[0],
                               sleep=sleep)
    assert str(caught.value) == (
        "agent web2 did not answer test.ping through the master within 3 seconds")
    assert isinstance(caught.value, exception.CloudExecutionTimeout)
    with pytest.raises(exception.AgentNotAnswering) as caught:
        service.wait_for_agent("web2", timeout=3, alive=lambda: False)
    assert str(caught.value).endswith("within 3 seconds (its machine stopped)")


def test_a_projects_stack_outputs_enter_only_pillars_it_may_read(service):
    service.pillar.check_pillar_feed("web", "web1", {"role": "web"})   # recorded role web: allowed
    with pytest.raises(exception.JobRefused) as caught:
        service.pillar.check_pillar_feed("web", "db-secrets", {"role": "db"})
    assert str(caught.value).startswith(
        "project web may not read the pillar of agent db-secrets: ")
    JobService(settings=JobSettings()).pillar.check_pillar_feed("web", "db-secrets", {})  # no ACL


def test_only_targets_that_look_past_ids_ask_the_master_for_grains():
    from hearth.jobservice.agents import needs_grains

    assert not needs_grains([("*", "glob"), (["web1", "db1"], "list"), ("web[0-9]", "pcre")])
    assert needs_grains([("*", "glob"), ("os:Debian", "grain")])
    assert needs_grains([("G@role:web or web1", "compound")])
    assert needs_grains([("webs", "nodegroup")])
