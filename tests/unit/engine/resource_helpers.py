"""Small real implementations of what a resource needs, for plug-in tests.

``FakeStack`` implements the StackView protocol with an in-memory store and
a clock the test advances; ``Definition`` carries the ResourceDefinition
fields a resource reads; ``GetAttr`` is a function whose value is not known
until its resource exists.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any

from hearth.engine.resources.store import InMemoryResourceStore
from hearth.engine.template import function


class Clock:
    """A clock that only moves when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class FakeStack:
    """A StackView: name, id, context, store, env, clock, jobs, registry, files."""

    name: str = "demo"
    id: str | None = "stack-id"
    context: Any = None
    store: InMemoryResourceStore = field(default_factory=InMemoryResourceStore)
    env: Any = None
    clock: Clock = field(default_factory=Clock)
    jobs: Any = None
    registry: Any = None
    files: Any = None

    def secrets(self) -> list[str]:
        """Return no secret (the tests' stacks hide no parameter)."""
        return []

    def start_thread(self, fn: Any, *args: Any) -> None:
        """Run ``fn(*args)`` on a daemon thread (nothing is green-patched in the tests)."""
        threading.Thread(target=fn, args=args, daemon=True).start()


@dataclass
class Definition:
    """The fields of a ResourceDefinition that resources read."""

    name: str
    type: str
    properties: Any = None
    metadata: Any = None
    depends_on: list[str] = field(default_factory=list)
    deletion_policy: str = "Delete"
    update_policy: Any = None
    external_id: Any = None
    condition: Any = None
    description: str = ""
    line: int | None = None

    def freeze(self, **overrides: Any) -> Definition:
        """Return a copy with fields set to plain values (as ResourceDefinition.freeze)."""
        return dataclasses.replace(self, **overrides)


class GetAttr(function.Function):
    """``get_attr`` of a resource that does not exist yet (or of one that does)."""

    def __init__(self, resource_name: str, value: Any = None) -> None:
        super().__init__(None, "get_attr", [resource_name, "value"])
        self.value = value

    def result(self) -> Any:
        return self.value

    def dependencies(self):
        yield self.args[0]


def make(resource_class: type, properties: Any = None, name: str = "web",
         stack: FakeStack | None = None, type_name: str = "Test::Type", **kwargs: Any) -> Any:
    """Return a ``resource_class`` resource of ``properties`` on a FakeStack."""
    definition = Definition(name, type_name, properties, **kwargs)
    return resource_class(name, definition, stack or FakeStack())
