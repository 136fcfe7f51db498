"""stackctl run against a real master and five agents: targets, formats, exit codes, jobs."""

import hashlib
import json
import time

from tests.fixtures.agents import run_json

from .conftest import FLEET_IDS


def test_glob_pings_every_agent(fleet):
    master, _ = fleet
    code, data = run_json(master, "*", "test.ping")
    assert code == 0
    assert data == {agent_id: True for agent_id in FLEET_IDS}


def test_list_and_pcre_targets(fleet):
    master, _ = fleet
    assert run_json(master, "-L", "web1,db2", "test.ping") == (0, {"web1": True, "db2": True})
    assert run_json(master, "-E", r"web[12]$", "test.ping") == (0, {"web1": True,
                                                                    "web2": True})


def test_arguments_and_keywords_reach_the_function(fleet):
    master, _ = fleet
    code, data = run_json(master, "db1", "test.arg", "1", "two", "flag=true")
    assert code == 0
    assert data == {"db1": {"args": [1, "two"], "kwargs": {"flag": True}}}


def test_cmd_run_on_agents(fleet):
    master, _ = fleet
    code, data = run_json(master, "web*", "cmd.run", "echo hi from $(hostname)")
    assert code == 0
    assert sorted(data) == ["web1", "web2", "web3"]
    assert all(value.startswith("hi from ") for value in data.values())


def test_grains_are_the_agents_own(fleet):
    master, _ = fleet
    code, data = run_json(master, "web1,db1", "-L", "grains.item", "role", "id")
    assert code == 0
    assert data == {"web1": {"role": "web", "id": "web1"}, "db1": {"role": "db", "id": "db1"}}


def test_failed_function_makes_the_exit_code_non_zero(fleet):
    master, _ = fleet
    result = master.stackctl("run", "db2", "test.retcode", "code=7", "--format", "json")
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"db2": True}
    assert "ERROR: Agents returned with non-zero exit code" in result.stderr
    passthrough = master.stackctl("run", "db2", "test.retcode", "code=7",
                                  "--retcode-passthrough")
    assert passthrough.returncode == 7


def test_missing_function_is_reported_per_agent(fleet):
    master, _ = fleet
    code, data = run_json(master, "web1", "test.no_such_function")
    assert code == 1
    assert data == {"web1": "'test.no_such_function' is not available."}


def test_no_match_sends_nothing_and_exits_2(fleet):
    master, _ = fleet
    result = master.stackctl("run", "nobody*", "test.ping")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == ("ERROR: No agents matched the target 'nobody*' (glob). No command "
                             "was sent, no jid was assigned.\n")


def test_output_formats(fleet):
    master, _ = fleet
    nested = master.stackctl("run", "web1", "test.echo", "hello")
    assert nested.stdout == "web1:\n    hello\n"
    value = master.stackctl("run", "-L", "web1,web2", "test.echo", "hi", "--format", "value")
    assert value.stdout == "hi\nhi\n"
    yaml_out = master.stackctl("run", "db1", "test.echo", "x", "--format", "yaml")
    assert yaml_out.stdout == "db1: x\n"
    table = master.stackctl("run", "db1", "test.echo", "x", "--format", "table")
    assert "| agent | return |" in table.stdout and "| db1   | x      |" in table.stdout


def test_async_prints_the_jid_and_job_show_has_every_return(fleet):
    master, _ = fleet
    result = master.stackctl("run", "--async", "db*", "test.sleep", "0.2")
    assert result.returncode == 0
    assert result.stdout.startswith("Executed command with job ID: ")
    jid = result.stdout.split()[-1]
    assert len(jid) == 20 and jid.isdigit()
    with master.client() as client:
        status = client.wait(jid, timeout=10)
    assert status.done and sorted(status.returns) == ["db1", "db2"]
    shown = json.loads(master.stackctl("job-show", jid, "--format", "json").stdout)
    assert shown["function"] == "test.sleep" and shown["args"] == [0.2]
    assert shown["targeted"] == ["db1", "db2"] and shown["missing"] == {}
    assert {a: r["return"] for a, r in shown["returns"].items()} == {"db1": True, "db2": True}
    listed = json.loads(master.stackctl("job-list", "--format", "json").stdout)
    assert jid in [job["jid"] for job in listed]


def test_job_list_and_job_show_agree_on_a_finished_jobs_outcome(fleet):
    master, _ = fleet
    assert master.stackctl("run", "db*", "test.ping").returncode == 0
    failing = master.stackctl("run", "db*", "cmd.run", "exit 3", "python_shell=true")
    assert failing.returncode == 1
    listed = json.loads(master.stackctl("job-list", "--limit", "2", "--format", "json").stdout)
    ran, ping = listed
    assert (ping["function"], ping["retcode"], ping["success"]) == ("test.ping", 0, True)
    assert (ran["function"], ran["retcode"], ran["success"]) == ("cmd.run", 3, False)
    for job in (ping, ran):
        shown = json.loads(master.stackctl("job-show", job["jid"], "--format", "json").stdout)
        assert (shown["retcode"], shown["success"]) == (job["retcode"], job["success"])
        assert shown["finished_at"] >= shown["started_at"]
    table = master.stackctl("job-list", "--limit", "2").stdout
    assert [[cell.strip() for cell in line.split("|")[2:6]] for line in table.splitlines()
            if line.startswith("| 2")] == [["cmd.run", "db*", "3", "False"],
                                          ["test.ping", "db*", "0", "True"]]


def test_batch_runs_a_few_agents_at_a_time(fleet):
    master, _ = fleet
    result = master.stackctl("run", "*", "cmd.run", "date +%s.%N; sleep 0.4; date +%s.%N",
                             "python_shell=true",
                             "--batch", "2", "--format", "json")
    assert result.returncode == 0, result.stderr
    spans = {agent: [float(line) for line in output.split()]
             for agent, output in json.loads(result.stdout).items()}
    assert sorted(spans) == sorted(FLEET_IDS)
    # never more than two agents ran the command at the same moment
    most = max(sum(1 for begin, end in spans.values() if begin <= moment < end)
               for moment, _ in spans.values())
    assert most == 2


def test_batch_percentage(fleet):
    master, _ = fleet
    code, data = run_json(master, "*", "test.ping", "--batch", "40%")
    assert code == 0 and data == {agent_id: True for agent_id in FLEET_IDS}


def test_several_jobs_run_at_once_on_one_agent(fleet):
    master, _ = fleet
    with master.client() as client:
        slow = master.publish("web3", "test.sleep", [1.5])
        running = master.run("web3", "saltutil.running", timeout=5)
        found = master.run("web3", "saltutil.find_job", [slow.jid], timeout=5)
        done = client.wait(slow.jid, timeout=10)
    jids = [job["jid"] for job in running.returns["web3"]["return"]]
    assert slow.jid in jids and running.jid in jids  # saltutil.running lists itself too
    assert found.returns["web3"]["return"]["fun"] == "test.sleep"
    assert done.returns["web3"]["return"] is True


def test_list_agents_has_grains_and_presence(fleet):
    master, _ = fleet
    with master.client() as client:
        agents = {agent["id"]: agent for agent in client.list_agents()}
    assert sorted(agents) == sorted(FLEET_IDS)
    assert all(agent["connected"] and agent["last_seen"] for agent in agents.values())
    assert agents["db1"]["grains"]["role"] == "db"


def test_every_target_type(fleet):
    master, _ = fleet
    webs = {"web1": True, "web2": True, "web3": True}
    dbs = {"db1": True, "db2": True}
    assert run_json(master, "-G", "role:web", "test.ping") == (0, webs)
    assert run_json(master, "-P", "role:^d.$", "test.ping") == (0, dbs)
    assert run_json(master, "-I", "dbname:main", "test.ping") == (0, dbs)
    assert run_json(master, "-C", "G@role:db and not db2 or web1", "test.ping") == (
        0, {"db1": True, "web1": True})
    assert run_json(master, "-N", "webs", "test.ping") == (0, webs)
    assert run_json(master, "-N", "dbs", "test.ping") == (0, dbs)


def test_agents_get_their_pillar(fleet):
    master, _ = fleet
    code, data = run_json(master, "-L", "db1,web1", "pillar.items", "unmask=true")
    assert code == 0
    assert data == {"db1": {"dbname": "main"}, "web1": {}}


def test_bad_target_expression_is_reported(fleet):
    master, _ = fleet
    result = master.stackctl("run", "-C", "web* and (", "test.ping")
    assert result.returncode == 1
    assert result.stderr.startswith("ERROR: ") and "web* and (" in result.stderr
    assert "Traceback" not in result.stderr


def test_term_job_stops_a_running_job_on_an_agent(fleet):
    master, _ = fleet
    with master.client() as client:
        slow = master.publish("db1", "cmd.run", ["sleep 30"])
        deadline = time.monotonic() + 10
        while not client.find_job(slow.jid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.find_job(slow.jid) == ["db1"]
        term = master.run("db1", "saltutil.term_job", [slow.jid], timeout=5)
        assert term.returns["db1"]["return"].startswith(f"Signal 15 sent to job {slow.jid}")
        done = client.wait(slow.jid, timeout=10)
    assert done.done and done.returns["db1"]["retcode"] != 0
    assert "terminated" in done.returns["db1"]["return"] or done.returns["db1"]["return"] == ""


def test_agent_list(fleet):
    master, _ = fleet
    listed = json.loads(master.stackctl("agent-list", "--format", "json").stdout)
    assert sorted(agent["id"] for agent in listed) == sorted(FLEET_IDS)
    assert all(agent["connected"] for agent in listed)
    table = master.stackctl("agent-list").stdout
    assert "| id " in table and "| web1 " in table and "True" in table


def test_file_and_sys_modules_on_agents(fleet, tmp_path):
    master, _ = fleet
    target = tmp_path / "written-by-web1.txt"
    code, data = run_json(master, "web1", "file.write", str(target), "line one", "line two")
    assert code == 0 and target.read_text() == "line one\nline two\n"
    assert run_json(master, "web1", "file.file_exists", str(target)) == (0, {"web1": True})
    code, data = run_json(master, "web1", "file.get_hash", str(target))
    assert data == {"web1": hashlib.sha256(target.read_bytes()).hexdigest()}
    code, data = run_json(master, "db1", "sys.list_functions", "test.p*")
    assert code == 0 and data == {"db1": ["test.ping"]}
    code, data = run_json(master, "db1", "sys.doc", "test.ping")
    assert code == 0 and "test.ping" in data["db1"]
