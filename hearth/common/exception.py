"""The one exception hierarchy of Hearth.

Every user-facing error is a :class:`HearthException` built from a message
template (``msg_fmt``) and keyword fields, so the message is data and the
fields stay inspectable.  Validation errors carry a location (template file,
line and a path of keys such as ``resources.web.properties.port``) that grows
as the error passes upward: each level that knows its own name prepends it
with :meth:`StackValidationFailed.prefixed`.

The REST layer maps exception class names to HTTP status codes in one table
(``hearth/api/faults.py``); nothing else decides a status code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from hearth.common.located import line_at


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return a ' Did you mean "x"?' suffix for the closest candidate, or ''."""
    import difflib  # lazy: only errors need it; the daemons start without it (stackctl loads it)

    matches = difflib.get_close_matches(str(name), [str(c) for c in candidates], n=1, cutoff=0.6)
    return f' Did you mean "{matches[0]}"?' if matches else ""


def format_path(path: Sequence[Any]) -> str:
    """Render a key path as Heat does: ``resources.web.properties.port``."""
    return ".".join(str(p) for p in path)


class HearthException(Exception):
    """Base class of every error Hearth reports to a user.

    Subclasses set ``msg_fmt``; the keyword arguments fill it in.  A missing
    field never hides the real error: the template is shown with the fields
    that were given.
    """

    msg_fmt = "An unknown exception occurred."

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        try:
            self.message = self.msg_fmt % kwargs
        except (KeyError, TypeError, ValueError):
            self.message = f"{self.msg_fmt} {kwargs!r}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    @property
    def error_type(self) -> str:
        """Return the name clients see in ``error.type`` of Heat's error body."""
        return type(self).__name__


# --- lookups ---------------------------------------------------------------

class NotFound(HearthException):
    """Something named in a request does not exist."""

    msg_fmt = "%(message)s"


class EntityNotFound(NotFound):
    """A stack, resource, event, snapshot or type does not exist."""

    msg_fmt = "The %(entity)s (%(name)s) could not be found."


class StackNotFound(EntityNotFound):
    """A stack named in a request does not exist (in this project)."""

    def __init__(self, stack_name: str) -> None:
        super().__init__(entity="Stack", name=stack_name)

    @property
    def error_type(self) -> str:
        """Heat reports this as EntityNotFound."""
        return "EntityNotFound"


class ResourceNotFound(EntityNotFound):
    """A resource named in a request does not exist in its stack."""

    msg_fmt = "The Resource (%(resource_name)s) could not be found in Stack %(stack_name)s."


class ResourceEventsNotFound(NotFound):
    """A resource's events were asked for and there are none (Heat: HTTPNotFound)."""

    msg_fmt = "No events found for resource %(resource_name)s"

    @property
    def error_type(self) -> str:
        """Heat reports this as HTTPNotFound."""
        return "HTTPNotFound"


class ResourceTypeNotFound(EntityNotFound):
    """No plug-in or template provides the requested resource type."""

    msg_fmt = 'The Resource Type (%(type_name)s) could not be found.%(hint)s'

    def __init__(self, type_name: str, hint: str = "") -> None:
        super().__init__(type_name=type_name, hint=hint, entity="Resource Type", name=type_name)


# --- templates and validation ---------------------------------------------


class InvalidTemplateSection(HearthException):
    """A top-level key is not a section of this template version."""

    msg_fmt = 'The template section is invalid: %(section)s'


class StackValidationFailed(HearthException):
    """A template, parameter or property is invalid; says where.

    ``path`` is a list of keys from the template root, ``line`` the 1-based
    line in ``filename`` where the offending key or value starts (and
    ``column``, 1-based, where the parser knows it: ``FILE:LINE:COLUMN:``).
    ``error`` is a short category such as "Property error".
    """

    msg_fmt = "%(text)s"

    def __init__(
        self,
        message: str = "",
        *,
        error: str | None = None,
        path: Sequence[Any] | None = None,
        line: int | None = None,
        filename: str | None = None,
        column: int | None = None,
    ) -> None:
        self.error = error
        self.path = list(path or [])
        self.line = line
        self.column = column if line else None
        self.filename = filename
        self.error_message = message
        super().__init__(text=self._render())

    def _render(self) -> str:
        parts = []
        if self.filename or self.line:
            where = self.filename or "template"
            column = f":{self.column}" if self.column else ""
            parts.append(f"{where}:{self.line}{column}: " if self.line else f"{where}: ")
        if self.error:
            parts.append(f"{self.error}: ")
        if self.path:
            parts.append(f"{format_path(self.path)}: ")
        parts.append(self.error_message)
        return "".join(parts)

    def _line_in(self, document: Any, line: int | None) -> int | None:
        """Return ``line``, or the line of this error's path in ``document`` if it has none."""
        if line is None and document is not None and self.line is None and not self.filename:
            return line_at(document, self.path)
        return line

    def _copy(self, **changes: Any) -> StackValidationFailed:
        """Return a copy of this error with some of path, line, filename changed."""
        fields = {"error": self.error, "path": self.path, "line": self.line,
                  "filename": self.filename, "column": self.column, **changes}
        return type(self)(self.error_message, **fields)

    def prefixed(self, *segments: Any, line: int | None = None) -> StackValidationFailed:
        """Return this error with ``segments`` put in front of its path.

        The innermost known line wins: ``line`` only fills a missing one.
        """
        return self._copy(path=[*segments, *self.path],
                          line=self.line if self.line is not None else line)

    def at_path(self, path: Sequence[Any]) -> StackValidationFailed:
        """Return this error located at ``path`` instead (the same place, spelled anew)."""
        return self._copy(path=list(path))

    def located(self, filename: str | None, line: int | None = None,
                document: Any = None) -> StackValidationFailed:
        """Return this error with the file name (and a line if it has none) set.

        ``document``: the parsed (located) template of ``filename``; an error
        in it that lost its line (it came over HTTP as data) gets it back
        from its path.
        """
        line = self._line_in(document, line)
        return self._copy(line=self.line if self.line is not None else line,
                          filename=self.filename or filename)


class InvalidTemplateVersion(StackValidationFailed):
    """The template's version key or value is missing or unknown.

    A located error, so that stackctl names the template file; the text is Heat's.
    """

    def __init__(self, explanation: str = "", **kwargs: Any) -> None:
        self.explanation = explanation
        message = kwargs.pop("message", None) or \
            f"The template version is invalid: {explanation}"
        super().__init__(message, **kwargs)

    def _copy(self, **changes: Any) -> StackValidationFailed:
        """Keep the explanation when the location changes."""
        fields = {"error": self.error, "path": self.path, "line": self.line,
                  "filename": self.filename, "column": self.column, **changes}
        return type(self)(self.explanation, message=self.error_message, **fields)


class InvalidStackName(HearthException):
    """A new stack's name breaks Heat's rule: an error of the request, not of its template."""

    msg_fmt = "%(message)s"

    @property
    def error_type(self) -> str:
        """Heat reports this as StackValidationFailed."""
        return "StackValidationFailed"


class InvalidTemplateReference(StackValidationFailed):
    """A function names a resource or parameter the template does not have."""


class InvalidTemplateAttribute(StackValidationFailed):
    """``get_attr`` names an attribute the resource type does not have."""

    @classmethod
    def named(cls, resource: str, attribute: str, known: Iterable[str] = (),
              detail: str = "") -> InvalidTemplateAttribute:
        """Return Heat's error for ``get_attr: [resource, attribute]``.

        ``known``: the attributes the resource has (the closest is suggested);
        ``detail``: why the attribute has no value, said after Heat's text.
        """
        text = f"The Referenced Attribute ({resource} {attribute}) is incorrect"
        return cls(f"{text}: {detail}" if detail else
                   f"{text}.{did_you_mean(attribute, known)}")


class CircularDependencyException(StackValidationFailed):
    """The dependency graph has a cycle; the message lists it in order."""

    def __init__(self, cycle: Sequence[str], **kwargs: Any) -> None:
        self.cycle = list(cycle)
        text = kwargs.pop("message", None) or (
            "Circular Dependency Found: " + " -> ".join(self.cycle))
        super().__init__(text, **kwargs)

    def _copy(self, **changes: Any) -> StackValidationFailed:
        """Keep the cycle when the location changes."""
        fields = {"error": self.error, "path": self.path, "line": self.line,
                  "filename": self.filename, "column": self.column, **changes}
        return type(self)(self.cycle, message=self.error_message, **fields)


class InvalidSchemaError(HearthException):
    """A plug-in's own schema declaration is wrong (a bug in the plug-in)."""

    msg_fmt = "%(message)s"


class InvalidEnvironment(StackValidationFailed):
    """An environment file is malformed."""


# --- parameters ------------------------------------------------------------

class UserParameterMissing(HearthException):
    """A parameter without a default was not given a value."""

    msg_fmt = "The Parameter (%(key)s) was not provided."


class UnknownUserParameter(HearthException):
    """A value was given for a parameter the template does not declare."""

    msg_fmt = "The Parameter (%(key)s) was not defined in template.%(hint)s"

    def __init__(self, key: str, hint: str = "") -> None:
        super().__init__(key=key, hint=hint)


class InvalidParameterValue(StackValidationFailed):
    """A parameter value does not match its type or constraints."""


class ImmutableParameterModified(HearthException):
    """An update changes a parameter declared immutable."""

    msg_fmt = "The following parameters are immutable and may not be updated: %(keys)s"

    def __init__(self, *keys: str) -> None:
        super().__init__(keys=", ".join(keys))


# --- stacks and actions ----------------------------------------------------

class StackExists(HearthException):
    """A stack of that name already exists in the project."""

    msg_fmt = "The Stack (%(stack_name)s) already exists."


class ActionInProgress(HearthException):
    """Another action holds the stack."""

    msg_fmt = "Stack %(stack_name)s already has an action (%(action)s) in progress."


class ActionNotComplete(HearthException):
    """An action needs the stack to be in a settled state first."""

    msg_fmt = "Stack %(stack_name)s has an action (%(action)s) in progress or failed to complete."


class NotSupported(HearthException):
    """The requested operation is not supported in the current state."""

    msg_fmt = "%(feature)s is not supported."


class RequestLimitExceeded(HearthException):
    """A configured limit (stacks, resources, body size...) is exceeded."""

    msg_fmt = "Request limit exceeded: %(message)s"


class TemplateSizeExceeded(RequestLimitExceeded):
    """A template is larger than ``max_template_size`` (Heat's RequestLimitExceeded).

    ``expanded``: the size is the YAML document's with its aliases written
    out (billion laughs); ``filename`` names the file of ``files`` it is.
    """

    msg_fmt = ("Request limit exceeded: %(where)sTemplate size (%(actual)d bytes%(how)s) "
               "exceeds maximum allowed size (%(limit)d bytes).")

    def __init__(self, actual: int, limit: int, filename: str | None = None,
                 expanded: bool = False) -> None:
        HearthException.__init__(
            self, actual=actual, limit=limit, where=f"{filename}: " if filename else "",
            how=" with its YAML aliases expanded" if expanded else "")

    @property
    def error_type(self) -> str:
        """Heat reports this as RequestLimitExceeded."""
        return "RequestLimitExceeded"


class Forbidden(HearthException):
    """The caller may not do this."""

    msg_fmt = "%(message)s"

    def __init__(self, message: str = "You are not authorized to complete this action.") -> None:
        super().__init__(message=message)


class JobRefused(Forbidden):
    """The JobService refused a caller a job or a pillar read.

    The message names the caller (a project, or the local user), what it
    asked (the function and the target, or whose pillar) and why; the
    fields ``caller``, ``function``, ``target`` and ``reason`` stay readable.
    Clients see it as Heat's ``Forbidden``.
    """

    msg_fmt = "%(caller)s may not %(action)s: %(reason)s"

    def __init__(self, caller: str, action: str, reason: str, function: str = "",
                 target: str = "") -> None:
        HearthException.__init__(self, caller=caller, action=action, reason=reason,
                                 function=function, target=target)

    @property
    def error_type(self) -> str:
        """Heat's clients know this as Forbidden."""
        return "Forbidden"


class InvalidTenant(Forbidden):
    """The token's project does not match the URL's tenant."""

    def __init__(self, target: str, actual: str) -> None:
        super().__init__(f"Searching Tenant {target} from Tenant {actual} forbidden.")


class Unauthorized(HearthException):
    """The request carries no valid token."""

    msg_fmt = "%(message)s"


class DirectoryUnusable(HearthException):
    """A directory Hearth needs cannot be made (a file in its place, no permission)."""

    msg_fmt = "Cannot use %(path)s as %(purpose)s: %(reason)s"


class BadRequest(HearthException):
    """A request is malformed (bad JSON, wrong type, unknown key)."""

    msg_fmt = "%(message)s"


class StackLockError(HearthException):
    """The stack lock could not be taken."""

    msg_fmt = "Stack %(stack_name)s is locked by engine %(engine_id)s."


class ForcedCancel(BaseException):
    """Thrown into a running task to cancel it (not an error of the task).

    ``preempted``: a new update takes the stack over at once; the stopped
    action neither rolls back nor records an end of its own.  ``handed_over``:
    another engine goes on with the same action (this one stops, or lost
    the stack's lock); nothing more is recorded here, not even the running
    resources' ends, and no plug-in cancels what it started.
    """

    def __init__(self, with_rollback: bool = True, preempted: bool = False,
                 handed_over: bool = False) -> None:
        self.handed_over = handed_over
        preempted = preempted or handed_over
        self.with_rollback = with_rollback and not preempted
        self.preempted = preempted
        super().__init__("Stack action cancelled" + ("" if with_rollback else " (no rollback)"))


class StackTimeout(BaseException):
    """Thrown into a running task when the stack's action times out."""


# --- resources -------------------------------------------------------------

class ResourceFailure(HearthException):
    """A resource's action failed; wraps the original exception."""

    msg_fmt = "%(exc_type)s: %(message)s"

    def __init__(self, exception: BaseException, resource: Any = None,
                 action: str | None = None) -> None:
        self.exc = exception
        self.resource = resource
        self.action = action
        path = []
        if resource is not None:
            path = ["resources", getattr(resource, "name", str(resource))]
        self.path = path
        inner = exception.exc if isinstance(exception, ResourceFailure) else exception
        exc_type = type(inner).__name__
        message = str(inner)
        if isinstance(inner, NestedStackFailure):  # as Heat: one path through the stacks
            exc_type, message = inner.error_type_name, inner.reason
            path = [*path, *inner.path] if inner.error_type_name else path
        self.path = path
        if path:
            message = f"{format_path(path)}: {message}"
        super().__init__(exc_type=exc_type, message=message)
        if not exc_type:  # a nested reason with no error name reads as it is
            self.message = message
            self.args = (message,)


class ActionNotContinuable(HearthException):
    """An action a dead engine left in progress cannot be continued by another engine.

    Raised by a plug-in's ``handle_<action>_continue`` with its reason, or by
    the engine for a type that declares no way to continue the action.
    """

    msg_fmt = "Engine went down during %(action)s: %(reason)s"

    def __init__(self, reason: str, action: str = "the action") -> None:
        super().__init__(reason=reason, action=action)
        self.reason = reason


class EngineFenced(HearthException):
    """An engine's write after another engine took its action over (it was taken for dead).

    Nothing is written: the engine that holds the lock now acts on the stack.
    """

    msg_fmt = ("Engine %(engine_id)s no longer holds the lock of stack %(stack_id)s (engine "
               "%(holder)s does): it was taken for dead, and the action goes on there")


class ResourceFailedBefore(HearthException):
    """A resource failed before its engine died; the walk another engine continues fails on it.

    The message is the failure's stored reason, so the stack's reason reads
    as the dead engine would have written it.
    """

    msg_fmt = "%(reason)s"


class NestedStackFailure(HearthException):
    """A nested stack's action failed; built from its status reason, as Heat reads it.

    A reason ``"Resource CREATE failed: ValueError: resources.bad: oops"``
    gives ``error_type_name`` "ValueError", ``path`` ["resources", "bad"] and
    ``reason`` "oops", so the parent resource's failure reads
    ``ValueError: resources.<parent>.resources.bad: oops``.  Any other reason
    (a cancel, a timeout) is kept whole.
    """

    msg_fmt = "%(status_reason)s"

    def __init__(self, status_reason: str, action: str) -> None:
        super().__init__(status_reason=status_reason)
        self.error_type_name, self.path, self.reason = "", [], status_reason
        head = f"Resource {action} failed: "
        if status_reason.startswith(head):
            parts = [part.strip() for part in status_reason[len(head):].split(":")]
            if len(parts) >= 3 and parts[1].startswith("resources."):
                self.error_type_name = parts[0]
                self.path = parts[1].split(".")
                self.reason = ": ".join(parts[2:])

    @property
    def error_type(self) -> str:
        """Return the nested failure's own error name when it has one."""
        return self.error_type_name or type(self).__name__


class ResourceInError(HearthException):
    """The physical resource reports an error state."""

    msg_fmt = "Went to status %(resource_status)s due to \"%(status_reason)s\""


class UpdateReplace(Exception):
    """Raised by a resource's update to ask the engine for a replacement."""

    def __init__(self, resource_name: str = "Unknown") -> None:
        super().__init__(f"The Resource {resource_name} requires replacement.")


class UpdateInProgress(HearthException):
    """A resource update is already running."""

    msg_fmt = "The resource %(resource_name)s is already being updated."


class ResourceActionRestricted(HearthException):
    """The environment's restricted_actions forbid this update or replacement."""

    msg_fmt = "%(action)s is restricted for resource."


class ResourceActionNotSupported(HearthException):
    """The resource type does not implement the requested action."""

    msg_fmt = "%(action)s is not supported for resource."


class ResourcePropertyConflict(StackValidationFailed):
    """Two properties that exclude each other were both given."""


class InvalidBreakPointHook(HearthException):
    """A hook name in the environment is not one of Heat's hook types."""

    msg_fmt = "%(message)s"


class SignalNotSupported(NotSupported):
    """The resource type cannot take signals, or not in this state."""


class NoActionRequired(HearthException):
    """A signal asked for nothing to do now (a scaling group in cooldown): it is ignored.

    Raised from ``handle_signal``; as in Heat, the signal records no event.
    """

    msg_fmt = "The resource %(res_name)s could not perform scaling action: %(reason)s"

    def __init__(self, res_name: str = "Unknown", reason: str = "") -> None:
        super().__init__(res_name=res_name, reason=reason)


class ResourcePropertyValueDependency(StackValidationFailed):
    """A property was given that only goes with another property's particular value."""


class WaitConditionFailure(HearthException):
    """A wait condition's handle got a FAILURE signal (the message: the reasons, ';'-joined)."""

    msg_fmt = "%(reasons)s"


class WaitConditionTimeout(HearthException):
    """A wait condition did not get enough SUCCESS signals in its timeout."""

    msg_fmt = "%(message)s"


class GraphvizNotAvailable(NotSupported):
    """Drawing a graph as SVG or PNG needs Graphviz's ``dot`` program, which is missing."""

    msg_fmt = ("Drawing a graph as %(format)s needs Graphviz's 'dot' program, which was not "
               "found: install Debian's graphviz package, or ask for the DOT text "
               "(--format dot).")


class GraphRenderFailed(HearthException):
    """Graphviz's ``dot`` refused or failed to draw a graph."""

    msg_fmt = "Graphviz could not draw the graph as %(format)s: %(reason)s"


class PluginLoadError(HearthException):
    """A resource plug-in module could not be imported or gave a bad mapping."""

    msg_fmt = "Failed to load resource plug-in %(module)s: %(reason)s"


class ResourceTypeConflict(HearthException):
    """Two plug-in modules claim the same resource type name."""

    msg_fmt = ("Resource type %(type_name)s is provided by both %(first)s and %(second)s; "
               "%(second)s is ignored for it.")


class ResourceTypeUnavailable(HearthException):
    """A resource type exists but may not be used here (hidden for new stacks)."""

    msg_fmt = "%(message)s"


# --- the Salt-style layer --------------------------------------------------

class CommandExecutionError(HearthException):
    """An execution module function failed (Salt's CommandExecutionError)."""

    msg_fmt = "%(message)s"

    def __init__(self, message: str, info: Any = None) -> None:
        self.info = info
        super().__init__(message=message)


class ModuleNotAvailable(HearthException):
    """A module failed to import or its ``__virtual__`` refused it."""

    msg_fmt = "'%(name)s' __virtual__ returned False: %(reason)s"


class FunctionNotFound(HearthException):
    """No loaded module provides the requested function."""

    msg_fmt = "'%(name)s' is not available."


class AuthenticationError(HearthException):
    """An agent or client failed to authenticate."""

    msg_fmt = "%(message)s"


class ModuleRefused(ModuleNotAvailable):
    """A module's ``__virtual__`` returned False without giving a reason."""

    msg_fmt = "'%(name)s' __virtual__ returned False"


class InvalidArguments(HearthException):
    """An execution function was called with arguments it does not accept."""

    msg_fmt = "Passed invalid arguments to %(name)s: %(message)s"


class JobNotFound(EntityNotFound):
    """No job with that JID is in the job cache."""

    def __init__(self, jid: str) -> None:
        super().__init__(entity="Job", name=jid)


# --- pillar ------------------------------------------------------------------

class PillarConfigError(HearthException):
    """The pillar configuration (roots, ext_pillar list, strategy) is wrong; says where."""

    msg_fmt = "%(message)s"


class PillarRenderError(HearthException):
    """A pillar SLS or top file failed to render; names the file and the cause."""

    msg_fmt = "Rendering SLS '%(sls)s' (%(path)s) failed: %(reason)s"


class ExtPillarError(HearthException):
    """An ext_pillar module failed, is missing or returned data that is not a mapping."""

    msg_fmt = "Failed to load ext_pillar %(name)s: %(reason)s"


class PillarHasErrors(HearthException):
    """A consumer of an agent's pillar refuses it because compiling it reported errors."""

    msg_fmt = "The pillar of %(agent)s has errors: %(errors)s"

    def __init__(self, agent: str, errors: Sequence[str]) -> None:
        self.errors = list(errors)
        super().__init__(agent=agent, errors="; ".join(str(e) for e in errors))


# --- cloud drivers -----------------------------------------------------------

class CloudError(HearthException):
    """Any error of a cloud driver or its configuration (SaltCloudException)."""

    msg_fmt = "%(message)s"

    def __init__(self, message: str) -> None:
        super().__init__(message=message)


class CloudSystemExit(CloudError):
    """A cloud call cannot go on: wrong calling convention, missing input (SaltCloudSystemExit).

    ``exit_code`` is the exit status Salt's command would end with.
    """

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class CloudNodeExists(CloudSystemExit):
    """A node of the requested name already exists (and is not ours to adopt)."""

    def __init__(self, name: str, provider: str) -> None:
        super().__init__(f"A node named {name} already exists on {provider}.")


class CloudExecutionFailure(CloudError):
    """A cloud provider's API failed (SaltCloudExecutionFailure)."""


class CloudExecutionTimeout(CloudExecutionFailure):
    """A cloud node did not reach the awaited state in time (SaltCloudExecutionTimeout)."""


class AgentNotAnswering(CloudExecutionTimeout):
    """A new machine's agent did not answer test.ping through the master in time."""

    msg_fmt = ("agent %(agent)s did not answer test.ping through the master within "
               "%(timeout)g seconds%(reason)s")

    def __init__(self, agent: str, timeout: float, reason: str = "") -> None:
        HearthException.__init__(self, agent=agent, timeout=timeout,
                                 reason=f" ({reason})" if reason else "")


class CloudDeployFailed(CloudExecutionFailure):
    """Putting an agent on a new node failed at one stage (address, port, login, ...)."""

    def __init__(self, node: str, stage: str, reason: str, output: str = "") -> None:
        tail = f"\nLast output of the remote side:\n{output}" if output.strip() else ""
        super().__init__(f"Deploying the agent of node {node} failed at the {stage} stage: "
                         f"{reason}{tail}")
        self.node, self.stage, self.reason, self.output = node, stage, reason, output


class CloudConfigError(CloudError):
    """The cloud configuration (providers, profiles) is wrong; says which file and key."""


class CloudNotFound(NotFound, CloudError):
    """Something a cloud driver looked for does not exist (SaltCloudNotFound)."""

    msg_fmt = "%(message)s"

    def __init__(self, message: str) -> None:
        HearthException.__init__(self, message=message)


class CloudNodeNotFound(EntityNotFound):
    """No configured provider has a node of that name."""

    def __init__(self, name: str, where: str = "any configured cloud provider") -> None:
        super().__init__(entity="Cloud node", name=f"{name} in {where}")


# --- the database ------------------------------------------------------------

class DatabaseSchemaTooNew(HearthException):
    """The database was migrated by a newer Hearth than this one."""

    msg_fmt = ("The database schema revision %(revision)s is newer than this Hearth "
               "knows (newest known: %(head)s). Upgrade Hearth, or use another database.")


class DatabaseNotMigrated(HearthException):
    """The schema is older than the code and automatic migration is off."""

    msg_fmt = ("The database schema is at revision %(revision)s but this Hearth needs "
               "%(head)s. Run 'hearth-manage db-sync'.")


class TextWithNul(BadRequest):
    """A text Hearth would store holds U+0000, which PostgreSQL's text cannot hold."""

    def __init__(self, what: str) -> None:
        super().__init__(message=f"Invalid {what}: it may not contain a NUL character "
                                 "(U+0000).")


class InvalidSortKey(BadRequest):
    """A list request names a sort key that is not allowed."""

    def __init__(self, key: str, allowed: Sequence[str]) -> None:
        super().__init__(message=f'Invalid sort key "{key}". Allowed: '
                                 f'{", ".join(allowed)}.{did_you_mean(key, allowed)}')


class InvalidFilter(BadRequest):
    """A list request names a filter that is not allowed."""

    def __init__(self, key: str, allowed: Sequence[str]) -> None:
        super().__init__(message=f'Invalid filter "{key}". Allowed: '
                                 f'{", ".join(allowed)}.{did_you_mean(key, allowed)}')


def prefix_validation_error(
    exc: StackValidationFailed, segments: Sequence[Any], line: int | None = None
) -> StackValidationFailed:
    """Return ``exc`` with ``segments`` prepended to its path (helper for ``raise ... from``)."""
    return exc.prefixed(*segments, line=line)


# --- remote execution: master, agents, keys ----------------------------------

class NoAgentsMatched(HearthException):
    """A publish matched no accepted agent, so nothing was sent (Salt's exit 2)."""

    msg_fmt = ("No agents matched the target %(target)r (%(target_type)s). No command was "
               "sent, no jid was assigned.")


class MasterUnreachable(HearthException):
    """The master did not answer a client (not running, wrong address or keys)."""

    msg_fmt = ("The master at %(address)s did not answer within %(timeout)s s: %(hint)s")


class MasterLostDuringJob(HearthException):
    """The master stopped answering while a client waited for a job's returns."""

    msg_fmt = ("The master at %(address)s stopped answering while job %(jid)s ran. The "
               "agents keep their returns until a master stores them in the job cache (a "
               "master sharing its database takes the job over): 'stackctl job-show "
               "%(jid)s' shows them.")


class MasterLostDuringPublish(HearthException):
    """The master stopped answering between a publish and its answer (the job's id)."""

    msg_fmt = ("The master at %(address)s did not answer the publish of %(function)s within "
               "%(timeout)s s: it may have published the job before it stopped (another "
               "master sharing its database then runs it). 'stackctl job-list' shows the "
               "jobs; publishing it again could run it twice.")


class MasterKeyMismatch(HearthException):
    """The master's public key does not match the pinned fingerprint or cached key."""

    msg_fmt = ("Refusing to connect to the master at %(address)s: its public key has "
               "fingerprint %(actual)s but %(expected)s was expected (%(source)s).")


class MasterUnresolvable(HearthException):
    """The master's host name does not resolve, and the agent is to stop trying."""

    msg_fmt = ("The master's host name %(host)s does not resolve (%(reason)s); the agent "
               "stops, as [agent] retry_dns and retry_dns_count say.")


class KeyFileError(HearthException):
    """A CURVE key file is missing, unreadable or not a key."""

    msg_fmt = "Cannot read the key file %(path)s: %(reason)s"


class AgentKeyNotFound(EntityNotFound):
    """No agent key of that id (or matching that glob) is known to the master."""

    def __init__(self, name: str, where: str = "") -> None:
        super().__init__(entity="Agent key", name=f"{name}{where}")


class MasterRequestFailed(HearthException):
    """The master refused or failed a client request; the message says why."""

    msg_fmt = "%(message)s"


class MessageRefused(HearthException):
    """A protocol message was dropped before any handler saw it.

    ``kind`` names the check that refused it (``not-json``, ``too-deep``,
    ``unknown-type``, ``invalid``, ...): the key it is counted under.
    """

    msg_fmt = "%(reason)s"

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(kind=kind, reason=reason)
        self.kind = kind
        self.decoded: dict[str, Any] | None = None


class DaemonStartFailed(HearthException):
    """A daemon could not start: a port, key, database or pid file is not usable."""

    msg_fmt = "%(reason)s"


# --- targeting and batches -----------------------------------------------------

class InvalidTarget(BadRequest):
    """A target expression cannot select agents: bad syntax, type or nodegroup."""

    msg_fmt = "Invalid target %(target)r (%(target_type)s): %(reason)s"

    def __init__(self, target: Any, target_type: str, reason: str) -> None:
        HearthException.__init__(self, target=target, target_type=target_type, reason=reason)


class InvalidBatchSize(BadRequest):
    """A ``--batch`` / ``batch`` value is neither ``N`` nor ``P%``."""

    msg_fmt = ("Invalid batch size %(spec)r: use a number of agents (e.g. 10) or a "
               "percentage of the targeted agents (e.g. 25%%).")

    def __init__(self, spec: Any) -> None:
        HearthException.__init__(self, spec=spec)


class InvalidPublisherAcl(HearthException):
    """The publisher_acl configuration is not Salt's shape (the message says where)."""

    msg_fmt = "Invalid publisher_acl in %(source)s, %(where)s: %(reason)s"
