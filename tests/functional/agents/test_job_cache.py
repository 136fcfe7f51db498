"""The master's job cache on SQLite and on PostgreSQL: jobs, who was targeted, returns."""

import json

import pytest

from tests.fixtures.agents import MasterProcess, start_agents, stop_all, wait_answering


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def cache_master(request, tmp_path):
    """A master whose job cache is on SQLite (its own file) or on PostgreSQL, with two agents."""
    database = request.getfixturevalue(f"{request.param}_url")
    master = MasterProcess(tmp_path / "master", database=database)
    master.start()
    agents = []
    try:
        master.wait_ready()
        agents = start_agents(master, tmp_path, ["c1", "c2"])
        wait_answering(master, ["c1", "c2"])
        yield master
    finally:
        stop_all([*agents, master])


@pytest.mark.slow
def test_job_cache_keeps_jobs_targets_and_returns(cache_master):
    master = cache_master
    ran = master.stackctl("run", "*", "test.arg", "a", "k=v", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    listed = json.loads(master.stackctl("job-list", "--format", "json").stdout)
    job = next(job for job in listed if job["function"] == "test.arg")
    shown = json.loads(master.stackctl("job-show", job["jid"], "--format", "json").stdout)
    assert shown["target"] == "*" and shown["target_type"] == "glob"
    assert shown["targeted"] == ["c1", "c2"] and shown["missing"] == {}
    assert shown["args"] == ["a"] and shown["kwargs"] == {"k": "v"}
    assert {agent: ret["return"] for agent, ret in shown["returns"].items()} == {
        agent: {"args": ["a"], "kwargs": {"k": "v"}} for agent in ("c1", "c2")}
    with master.client() as client:
        status = client.job_status(job["jid"])
        assert sorted(status.returns) == ["c1", "c2"] and status.done
        assert job["jid"] in [j["jid"] for j in client.list_jobs()]
    missing = master.stackctl("job-show", "20000101000000000000")
    assert missing.returncode == 1
    assert missing.stderr == "ERROR: The Job (20000101000000000000) could not be found.\n"
