"""The test module: Salt's shapes for ping, echo, arg, fib, retcode, exception."""

import pytest

from hearth import __version__
from hearth.common import exception


def test_ping_echo_version(salt):
    assert salt["test.ping"]() is True
    assert salt["test.echo"]("hi") == "hi"
    assert salt["test.version"]() == __version__


def test_arg_returns_args_and_kwargs(salt):
    assert salt["test.arg"](1, "a", x=2) == {"args": [1, "a"], "kwargs": {"x": 2}}


def test_true_false_are_aliased(salt):
    assert salt["test.true"]() is True
    assert salt["test.false"]() is False
    assert "test.true_" not in salt


def test_fib(salt):
    numbers, seconds = salt["test.fib"](20)
    assert numbers == [0, 1, 1, 2, 3, 5, 8, 13]
    assert seconds >= 0


def test_retcode_sets_context(salt):
    assert salt["test.retcode"](7) is True
    assert salt.context["retcode"] == 7


def test_exception_raises_command_execution_error(salt):
    with pytest.raises(exception.CommandExecutionError, match="^boom$"):
        salt["test.exception"]("boom")


def test_sleep(salt):
    assert salt["test.sleep"](0) is True
