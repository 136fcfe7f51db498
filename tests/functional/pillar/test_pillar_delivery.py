"""Pillar delivered by a real hearth-master to real agents, and used by a stack.

The master compiles each agent's pillar (files and an ext_pillar) and sends
it only to that agent.  A stack made through stackctl (configured with the
master's file) starts a ``local`` server (a real hearth-agent), reads that
agent's pillar with Hearth::Pillar::Data and hands a value to a
Hearth::Exec::Call that runs on the server's agent.
"""

from __future__ import annotations

import json
import time

import pytest
import yaml

from tests.fixtures.agents import MasterProcess, run_json, start_agents, stop_all, wait_answering
from tests.fixtures.clouds import kill_agents, write_cloud_config

pytestmark = pytest.mark.slow

TOP = """\
base:
  'web1':
    - web
  'db1':
    - db
  'pd-server-*':
    - served
"""

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  server:
    type: Hearth::Cloud::Server
    properties: {profile: agent}
  settings:
    type: Hearth::Pillar::Data
    properties:
      agent: {get_attr: [server, agent_id]}
      path: app
      secret_keys: ["app:token"]
  write:
    type: Hearth::Exec::Call
    properties:
      function: cmd.run_all
      args:
        - str_replace:
            template: "echo port=PORT"
            params: {PORT: {get_attr: [settings, data, port]}}
      target: {get_attr: [server, agent_id]}
  overridden:
    type: Hearth::Exec::Call
    properties:
      function: pillar.item
      args: [app]
      kwargs: {unmask: true}
      target: {get_attr: [server, agent_id]}
  fresh_with_override:
    type: Hearth::Exec::Call
    properties:
      function: pillar.items
      kwargs: {pillar: {app: {port: 9090}}, unmask: true}
      target: {get_attr: [server, agent_id]}
  token_user:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [settings, data, token]}
outputs:
  said: {value: {get_attr: [write, stdout]}}
  app: {value: {get_attr: [settings, data]}}
  held: {value: {get_attr: [overridden, return]}}
  with_override: {value: {get_attr: [fresh_with_override, return]}}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A master whose pillar differs per agent, two agents, a local cloud provider."""
    base = tmp_path_factory.mktemp("pillar-delivery")
    master = MasterProcess(base / "master", auto_accept=True)
    state = master.directory
    (state / "pillar").mkdir()
    (state / "pillar" / "top.sls").write_text(TOP)
    (state / "pillar" / "web.sls").write_text("role: web\nsecret: web-only-s3cret\n")
    (state / "pillar" / "db.sls").write_text("role: db\nsecret: db-only-s3cret\n")
    (state / "pillar" / "served.sls").write_text("app: {port: 8080, token: tok-4711}\n")
    (state / "data").mkdir()
    for agent in ("web1", "db1"):
        (state / "data" / f"{agent}.json").write_text(json.dumps({"cmdb": {"host": agent}}))
    (state / "pillar.yaml").write_text(yaml.safe_dump(
        {"ext_pillar": [{"cmd_yaml": f"cat {state}/data/%s.json 2>/dev/null || echo '{{}}'"}]}))
    cloud = write_cloud_config(base / "cloud", {"here": {"driver": "local",
                                                         "master_config": str(master.config)}},
                               {"agent": {"provider": "here"}})
    with open(master.config, "a", encoding="utf-8") as stream:
        stream.write(f"[cloud]\nconfig_dir = {cloud}\n")
    master.start()
    agents = []
    try:
        master.wait_ready()
        agents = start_agents(master, base, ("web1", "db1"))
        wait_answering(master, ("web1", "db1"))
        yield master, base
    finally:
        kill_agents(base)
        stop_all([*agents, master])


def test_each_agent_gets_only_its_own_pillar(site):
    master, _ = site
    code, fresh = run_json(master, "-L", "web1,db1", "pillar.items", "unmask=True")
    assert code == 0, fresh
    assert fresh == {"web1": {"role": "web", "secret": "web-only-s3cret",
                              "cmdb": {"host": "web1"}},
                     "db1": {"role": "db", "secret": "db-only-s3cret", "cmdb": {"host": "db1"}}}
    # The pillar each agent holds since it connected (fetched on connect, on a thread).
    deadline = time.monotonic() + 10
    while True:
        held = run_json(master, "-L", "web1,db1", "pillar.raw")[1]
        if all(held.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert held == fresh
    code, overridden = run_json(master, "web1", "pillar.items", "unmask=True",
                                'pillar={"secret": "for-this-call", "extra": 1}')
    assert overridden == {"web1": {**fresh["web1"], "secret": "for-this-call", "extra": 1}}
    assert run_json(master, "web1", "pillar.raw")[1] == {"web1": fresh["web1"]}  # not kept
    code, masked = run_json(master, "web1", "pillar.get", "secret")
    assert masked == {"web1": "**********"}
    shown = master.stackctl("pillar-show", "db1", "--format", "json", "--unmask")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == {"db1": fresh["db1"]}
    top = master.stackctl("pillar-top", "web1", "--format", "json")
    assert json.loads(top.stdout) == {"base": [{
        "target": "web1", "match": "compound", "sls": ["web"],
        "files": {"web": str(master.directory / "pillar" / "web.sls")}}]}


def test_refresh_pillar_takes_new_data_and_fires_its_event(site):
    master, _ = site
    assert run_json(master, "db1", "saltutil.refresh_pillar")[1] == {"db1": True}
    sls = master.directory / "pillar" / "db.sls"
    sls.write_text(sls.read_text() + "added: later\n")
    assert run_json(master, "db1", "pillar.raw", "added")[1] == {"db1": None}
    with master.client() as listener:
        events = listener.events("hearth/agent/pillar_refresh_complete", timeout=10)
        done = master.run("db1", "saltutil.refresh_pillar", timeout=10)
        assert done.returns["db1"]["return"] is True
        tag, data = next(events)
        events.close()
    assert (tag, data["id"], data["complete"]) == (
        "hearth/agent/pillar_refresh_complete", "db1", True)
    assert run_json(master, "db1", "pillar.raw", "added")[1] == {"db1": "later"}


def test_pillar_flows_into_a_call_on_a_local_server(site):
    master, base = site
    template = base / "pd.yaml"
    template.write_text(TEMPLATE)
    created = master.stackctl("stack-create", "-f", str(template), "pd", timeout=240)
    assert "Stack pd CREATE_COMPLETE" in created.stdout, created.stdout + created.stderr
    shown = json.loads(master.stackctl("stack-show", "pd", "--format", "json").stdout)
    outputs = {o["output_key"]: o.get("output_value") for o in shown["outputs"]}
    # A remote call's return is {agent: return}; the token stays hidden there too.
    (held,) = outputs.pop("held").values()
    (with_override,) = outputs.pop("with_override").values()
    assert outputs == {"said": "port=8080", "app": {"port": 8080, "token": "******"}}
    assert held == {"app": {"port": 8080, "token": "******"}}
    assert with_override["app"] == {"port": 9090, "token": "******"}
    events = master.stackctl("event-list", "pd", "--format", "json").stdout
    assert "tok-4711" not in events and "tok-4711" not in created.stdout
    deleted = master.stackctl("stack-delete", "-y", "pd", timeout=240)
    assert "Stack pd DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
