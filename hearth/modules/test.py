"""Functions for testing the execution layer: ping, echo, retcodes, exceptions."""

from __future__ import annotations

import time
from typing import Any

from hearth import __version__
from hearth.common.exception import CommandExecutionError

__func_alias__ = {"true_": "true", "false_": "false"}


def ping() -> bool:
    """Return True: the host is up and answers.

    CLI Example: ``stackctl call test.ping``
    """
    return True


def echo(text: str) -> str:
    """Return ``text`` unchanged."""
    return text


def sleep(length: float) -> bool:
    """Sleep ``length`` seconds, then return True."""
    time.sleep(float(length))
    return True


def version() -> str:
    """Return the version of Hearth."""
    return __version__


def arg(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """Return the positional and keyword arguments it was given."""
    return {"args": list(args), "kwargs": kwargs}


def fib(num: int) -> list[Any]:
    """Return the Fibonacci numbers below ``num`` and the seconds it took to compute them."""
    start = time.perf_counter()
    numbers, a, b = [], 0, 1
    while a < int(num):
        numbers.append(a)
        a, b = b, a + b
    return [numbers, time.perf_counter() - start]


def exception(message: str = "Test Exception") -> None:
    """Raise CommandExecutionError with ``message`` (to exercise error paths)."""
    raise CommandExecutionError(message)


def retcode(code: int = 42) -> bool:
    """Set the job's retcode to ``code`` and return True."""
    __context__["retcode"] = int(code)  # noqa: F821 - injected by the loader
    return True


def true_() -> bool:
    """Return True."""
    return True


def false_() -> bool:
    """Return False."""
    return False
