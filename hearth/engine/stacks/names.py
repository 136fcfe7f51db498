"""Which names a new stack may have: Heat's rule, with Heat's message.

A stack's name is part of every URL that reaches it and of its resources'
physical names, so it is held to Heat's pattern when the stack is created,
previewed or adopted: a letter, then letters, digits, ``_``, ``.`` or
``-``, 255 characters at most.  A nested stack's name is made by the
engine, not given, and is not checked here.  (Resource names follow
Heat's own rule, no ``/``, in the template's structure schema.)
"""

from __future__ import annotations

import re
from typing import Any

from hearth.common import exception

#: Heat's stack name rule (``heat.engine.stack``), matched against the whole name.
STACK_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_.-]{0,254}")


def check_stack_name(name: Any) -> None:
    """Raise InvalidStackName (Heat's words) unless ``name`` is a valid stack name."""
    if not isinstance(name, str):
        raise exception.InvalidStackName(message=f"Invalid stack name {name}, must be a string")
    if STACK_NAME.fullmatch(name) is None:
        raise exception.InvalidStackName(message=(
            f'Invalid stack name {name} must contain only alphanumeric or "_-." characters, '
            "must start with alpha and must be 255 characters or less."))
