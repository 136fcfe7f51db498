"""What a resource may ask of its stack: the :class:`StackView` protocol (and the recorder).

The engine's :class:`~hearth.engine.stacks.stack.Stack` provides it while a
stack acts; :class:`~hearth.engine.resources.validation.DefinitionChecker`
gives a plug-in's ``validate()`` one before any stack exists.  It lives
under both users (the plug-in base class in :mod:`hearth.engine.resource`
and the resource actions here), so that neither imports the other's layer
for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from hearth.engine.resources.store import ResourceStore

if TYPE_CHECKING:
    from hearth.engine.registry.types import TypeRegistry
    from hearth.engine.resources.resource_view import ResourceView
    from hearth.engine.template.context import ResolutionContext
    from hearth.engine.template.environment import Environment
    from hearth.jobservice.caller_jobs import CallerJobs


@runtime_checkable
class StackView(Protocol):
    """What a resource may ask of its stack (every member read-only).

    ``clock`` is the injected time source (``time.monotonic`` by default):
    waiting plug-ins compare it against a deadline instead of sleeping.
    ``jobs`` is the JobService bound to the stack's owner (None where no
    job may run): every job and pillar read of a resource goes through it.
    ``context`` is None while the template is validated (before any stack
    exists); ``registry`` and ``files`` (the provider templates) name the
    types a resource's update may change to; ``secrets()`` are the values
    (hidden parameters, what its resources keep secret) nothing may show.
    ``start_thread`` is the engine's way to run blocking work apart (the
    plug-ins import no green-thread library).
    """

    @property
    def name(self) -> str:
        """Return the stack's name."""

    @property
    def id(self) -> str | None:
        """Return the stack's id (None before the stack is stored)."""

    @property
    def context(self) -> ResolutionContext | None:
        """Return the resolution context the resources' functions ask."""

    @property
    def store(self) -> ResourceStore:
        """Return where the resources keep their data, metadata and ids."""

    @property
    def env(self) -> Environment | None:
        """Return the stack's environment."""

    @property
    def clock(self) -> Callable[[], float]:
        """Return the time source."""

    @property
    def jobs(self) -> CallerJobs | None:
        """Return the jobs as the stack's owner (None: no job may run)."""

    @property
    def registry(self) -> TypeRegistry:
        """Return the plug-in registry the stack's types resolve in."""

    @property
    def files(self) -> Mapping[str, str] | None:
        """Return the stack's files map (provider templates)."""

    def secrets(self) -> list[str]:
        """Return the values no event, output or preview may show."""

    def start_thread(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on a new real OS thread: blocking work a plug-in polls.

        Never on a green thread, even where threading is green-patched; ``fn``
        reports through plain attributes (:mod:`hearth.plugins._blocking`).
        """


class StackRecorder(StackView, Protocol):
    """A stack that also records its resources' states and events: a running Stack."""

    def record_resource_state(self, resource: ResourceView, starting: bool = False) -> None:
        """Persist a resource's state, its event and its held-back data in one write."""

    def record_event(self, resource: ResourceView, action: str, status: str,
                     reason: str) -> None:
        """Store and publish an event of ``resource`` that does not change its state."""


def recorder(resource: ResourceView) -> StackRecorder:
    """Return the stack that records ``resource``'s states.

    The resource actions run only in a running Stack (a validation view
    never acts), so this is the resource's own stack, read as what it is.
    """
    return cast("StackRecorder", resource.stack)
