"""cmd.*: output shapes, retcodes in __context__, shells, env, cwd, timeouts, scripts."""

import os

import pytest

from hearth.common import exception


def test_run_returns_stripped_output_and_sets_retcode(salt):
    assert salt["cmd.run"]("echo hi") == "hi"
    assert salt.context["retcode"] == 0


def test_run_combines_stderr_and_records_failure(salt):
    out = salt["cmd.run"]("echo out; echo err >&2; exit 3", python_shell=True)
    assert out == "out\nerr"
    assert salt.context["retcode"] == 3


def test_run_all_shape(salt):
    result = salt["cmd.run_all"]("sh -c 'echo a; echo b >&2; exit 4'")
    assert set(result) == {"pid", "retcode", "stdout", "stderr"}
    assert (result["retcode"], result["stdout"], result["stderr"]) == (4, "a", "b")


def test_without_python_shell_no_shell_features(salt):
    assert salt["cmd.run_stdout"]("echo $HOME") == "$HOME"
    assert salt["cmd.run_stdout"]("echo $HOME", python_shell=True) == os.environ["HOME"]


def test_run_stderr_and_retcode(salt):
    assert salt["cmd.run_stderr"]("sh -c 'echo e >&2'") == "e"
    assert salt["cmd.retcode"]("false") == 1


def test_env_is_used_and_never_mutated(salt):
    env = {"GREETING": "hello"}
    assert salt["cmd.run"]("echo $GREETING", python_shell=True, env=env) == "hello"
    assert env == {"GREETING": "hello"}


def test_clean_env(salt):
    out = salt["cmd.run"]("env", clean_env=True, env={"ONLY": "1"})
    assert out.splitlines() == ["ONLY=1"]


def test_cwd_and_stdin(salt, tmp_path):
    assert salt["cmd.run"]("pwd", cwd=str(tmp_path)) == str(tmp_path)
    assert salt["cmd.run"]("cat", stdin="fed\n") == "fed"


def test_timeout_kills_like_salt(salt):
    result = salt["cmd.run_all"]("sleep 5", timeout=0.2)
    assert result["retcode"] == 1
    assert result["stdout"].endswith("'5'] : Timed out after 0.2 seconds")


def test_success_retcodes(salt):
    salt["cmd.run"]("sh -c 'exit 2'", success_retcodes=[2])
    assert salt.context["retcode"] == 0


def test_missing_program(salt):
    with pytest.raises(exception.CommandExecutionError, match="Unable to run command"):
        salt["cmd.run"]("no-such-program-xyz")


def test_empty_command(salt):
    with pytest.raises(exception.CommandExecutionError, match="^No command given to run.$"):
        salt["cmd.run"]("")


def test_runas_needs_root(salt):
    if os.geteuid() == 0:
        pytest.skip("running as root")
    with pytest.raises(exception.CommandExecutionError, match="runas needs root"):
        salt["cmd.run"]("true", runas="nobody")


def test_script(salt, tmp_path):
    script = tmp_path / "s.sh"
    script.write_text("echo args:$1\n")
    assert salt["cmd.script"](str(script), args="one")["stdout"] == "args:one"
    with pytest.raises(exception.CommandExecutionError,
                       match=r"^Only local script paths are supported, not 'salt://x'.$"):
        salt["cmd.script"]("salt://x")
    with pytest.raises(exception.CommandExecutionError, match="does not exist"):
        salt["cmd.script"](str(tmp_path / "missing"))


def test_which(salt):
    assert salt["cmd.which"]("sh").endswith("/sh")
    assert salt["cmd.has_exec"]("no-such-program-xyz") is False
