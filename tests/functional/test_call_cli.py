"""stackctl call / module-list / doc / job-list / job-show, run as a user would."""

import json
import os
import subprocess
import sys
import textwrap

import pytest


@pytest.fixture
def stackctl(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HEARTH_HOME": str(home)}
    env.pop("HEARTH_CONFIG", None)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "hearth.cli.main", *args],
                              capture_output=True, text=True, env=env, timeout=60)
    return run


@pytest.fixture
def extra_modules(tmp_path):
    directory = tmp_path / "mods"
    directory.mkdir()
    (directory / "fancy.py").write_text(textwrap.dedent("""
        def __virtual__():
            return (False, "fancylib is not installed")

        def go():
            return 1
    """))
    (directory / "demo.py").write_text(textwrap.dedent('''
        __outputter__ = {"plain": "txt"}

        def plain():
            """Return a plain line."""
            return "one line"

        def failing():
            return {"result": False, "comment": "nope"}
    '''))
    return str(directory)


def test_ping_nested(stackctl):
    result = stackctl("call", "--local", "test.ping")
    assert (result.returncode, result.stdout, result.stderr) == (0, "local:\n    True\n", "")


def test_json_wraps_in_local(stackctl):
    result = stackctl("call", "test.arg", "a", "2", "flag=true", "--format", "json")
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"local": {"args": ["a", 2],
                                                   "kwargs": {"flag": True}}}


def test_yaml_output(stackctl):
    result = stackctl("call", "--format", "yaml", "test.echo", "hi")
    assert result.stdout == "local: hi\n"


def test_nested_dict_output(stackctl):
    result = stackctl("call", "cmd.run_all", "echo hi")
    lines = result.stdout.splitlines()
    assert lines[:2] == ["local:", "    ----------"]
    assert "    stdout:" in lines and "        hi" in lines


def test_missing_function_exits_255_with_reason(stackctl):
    result = stackctl("call", "test.nope")
    assert (result.returncode, result.stdout) == (255, "")
    assert result.stderr == "'test.nope' is not available.\n"


def test_refused_module_exits_255_with_virtual_reason(stackctl, extra_modules):
    result = stackctl("call", "-m", extra_modules, "fancy.go")
    assert result.returncode == 255
    assert result.stderr == "'fancy' __virtual__ returned False: fancylib is not installed\n"


def test_retcodes(stackctl):
    assert stackctl("call", "test.retcode").returncode == 1
    assert stackctl("call", "test.retcode", "--retcode-passthrough").returncode == 42
    failed = stackctl("call", "cmd.run_all", "sh -c 'exit 3'", "--retcode-passthrough")
    assert failed.returncode == 3


def test_false_result_fails_and_function_outputter(stackctl, extra_modules):
    assert stackctl("call", "-m", extra_modules, "demo.failing").returncode == 1
    plain = stackctl("call", "-m", extra_modules, "demo.plain")
    assert plain.stdout == "local: one line\n"


def test_exception_is_an_error_line_not_a_traceback(stackctl):
    result = stackctl("call", "test.exception", "boom")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "Error running 'test.exception': boom\n"


def test_invalid_arguments(stackctl):
    result = stackctl("call", "test.echo")
    assert result.returncode == 1
    assert result.stderr == ("Error running 'test.echo': Passed invalid arguments to test.echo: "
                             "missing a required argument: 'text'\n")


def test_module_list_all_shows_refusals(stackctl, extra_modules):
    result = stackctl("module-list", "--all", "-m", extra_modules, "--format", "json")
    rows = {row["module"]: row for row in json.loads(result.stdout)}
    assert rows["test"]["status"] == "loaded"
    assert rows["fancy"] == {"module": "fancy", "status": "refused", "functions": 0,
                             "reason": "'fancy' __virtual__ returned False: "
                                       "fancylib is not installed"}
    plain = json.loads(stackctl("module-list", "--format", "json").stdout)
    assert "fancy" not in {row["module"] for row in plain}


def test_doc(stackctl):
    result = stackctl("doc", "test.echo")
    assert result.stdout == "test.echo:\n\n    Return ``text`` unchanged.\n\n"
    module = json.loads(stackctl("doc", "test", "--format", "json").stdout)
    assert "test.ping" in module and "cmd.run" not in module
    missing = stackctl("doc", "nope")
    assert (missing.returncode, missing.stderr) == (1, "ERROR: 'nope' is not available.\n")


def test_job_cache_via_cli(stackctl):
    call = stackctl("call", "--cache-job", "test.echo", "cached", "--format", "json")
    assert call.returncode == 0
    listed = json.loads(stackctl("job-list", "--format", "json").stdout)
    assert [job["function"] for job in listed] == ["test.echo"]
    jid = listed[0]["jid"]
    assert len(jid) == 20 and jid.isdigit()
    shown = json.loads(stackctl("job-show", jid, "--format", "json").stdout)
    assert shown["return"] == "cached" and shown["success"] is True
    missing = stackctl("job-show", "20000101000000000000")
    assert missing.returncode == 1
    assert missing.stderr == "ERROR: The Job (20000101000000000000) could not be found.\n"


def test_uncached_call_leaves_no_job(stackctl):
    stackctl("call", "test.ping")
    assert json.loads(stackctl("job-list", "--format", "json").stdout) == []
