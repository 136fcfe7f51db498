"""Build a stack's pieces once: template, environment, parameters, context, definitions, graph.

Every stack action starts from a :class:`PreparedStack`:

- a request (create, preview, update, update preview) goes through
  :func:`prepare`, which validates it in full; the pieces validation built
  are then stored (:meth:`PreparedStack.stored`) and run
  (:meth:`PreparedStack.build`) as they are: nothing is parsed, resolved or
  graphed twice;
- a stored stack goes through :func:`rebuild` (its template passed
  validation when it was stored), by :mod:`hearth.engine.stacks.loader`.

The :class:`~hearth.engine.template.context.ResolutionContext` validation
used becomes the live stack's when the stack is built (it then knows the
resources), so definitions parsed once serve both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.engine.template.environment import Environment, parameter_types
from hearth.engine.template.pseudo_parameters import stack_arn
from hearth.engine.template.template import ResourceValidator, Template

if TYPE_CHECKING:
    import networkx as nx

    from hearth.db.session import Database
    from hearth.engine.registry.types import TypeRegistry
    from hearth.engine.stacks.stack import Stack
    from hearth.engine.template.context import ResolutionContext
    from hearth.engine.template.parameters import Parameters
    from hearth.engine.template.resource_definition import ResourceDefinition


@dataclasses.dataclass(frozen=True, slots=True)
class StackIdentity:
    """What a stack's pseudo parameters tell: its name, id and project."""

    name: str
    id: str | None
    project_id: str | None

    @classmethod
    def of(cls, row: Any) -> StackIdentity:
        """Return the identity of a stack record (anything with name, id, project_id)."""
        return cls(row.name, row.id, row.project_id)

    def knowledge(self) -> dict[str, Any]:
        """Return the identity as the keywords of parameters and contexts."""
        return {"stack_name": self.name, "stack_id": self.id, "project_id": self.project_id}

    def arn(self) -> str:
        """Return Heat's ARN of the stack: ``arn:openstack:heat::<project>:stacks/<name>/<id>``."""
        return stack_arn(self.project_id, self.name, self.id)


@dataclasses.dataclass(slots=True)
class PreparedStack:
    """A stack's template pieces, each built once.

    ``graph`` is the validated dependency graph (None for a stored stack
    until its walk asks: :attr:`Stack.graph <hearth.engine.stacks.stack.Stack.graph>`).
    """

    template: Template
    parameters: Parameters
    context: ResolutionContext
    definitions: dict[str, ResourceDefinition]
    graph: nx.DiGraph | None = None

    @property
    def env(self) -> Environment:
        """Return the stack's environment."""
        return self.template.env

    def stored(self) -> tuple[Any, dict[str, str], dict[str, Any]]:
        """Return what a stack stores: (template data, files, environment JSON)."""
        return self.template.data, dict(self.template.files), self.env.to_dict()

    def hidden_parameters(self) -> tuple[str, ...]:
        """Return the names of hidden parameters."""
        return self.parameters.hidden_names()

    def build(self, db: Database, row: Any, registry: TypeRegistry, **seams: Any) -> Stack:
        """Return the run-time Stack of record ``row`` (its resources without stored state).

        ``row`` is a stored :class:`hearth.db.models.Stack`, or a preview's
        stand-in holding the same fields (nothing of a preview is stored).
        """
        # lazy: eventlet, sqlalchemy: validation prepares stacks without them; a run builds one
        from hearth.engine.stacks.stack import Stack
        return Stack(db, row, self, registry, **seams)


def compose_environment(documents: list[tuple[str | None, Any]],
                        params: Mapping[str, Any] | None, template_data: Any) -> Environment:
    """Merge environment ``documents`` (in order) and the request's parameter values.

    Merging follows the environment's own rules (sections, merge strategies,
    by the parameter types ``template_data`` declares); parameters given on
    the request win over every document.
    """
    env = Environment.from_documents(documents, parameter_types(template_data))
    env.params.update(params or {})
    return env


def prepare(data: Any, files: Mapping[str, str] | None, env: Environment | Mapping[str, Any],
            identity: StackIdentity,
            resource_validator: ResourceValidator | None = None,
            facade: Callable[[str], Any] | None = None) -> PreparedStack:
    """Validate a requested stack in full and return the pieces validation built.

    Structure, parameters (values included), conditions, functions, the
    dependency graph, then every resource's type and properties through
    ``resource_validator``; raises the located error of the first problem.
    ``facade`` answers ``resource_facade`` (a nested stack's parent resource).
    """
    template = Template(data, files=files, env=env)
    parameters = template.parameters(**identity.knowledge())
    context = template.context(parameters, **identity.knowledge(),
                               resource_class=template.class_lookup(resource_validator),
                               facade=facade)
    checked = template.check(context, resource_validator)
    return PreparedStack(template, parameters, context, checked.definitions, checked.graph)


def stored_context(data: Any, files: Mapping[str, str] | None,
                   env: Mapping[str, Any] | None, identity: StackIdentity
                   ) -> ResolutionContext:
    """Return the resolution context of a stored template (parameters, no resources).

    Enough for what reads need without resources: parameters, output
    definitions, the resource definitions and their requirements.
    """
    template = Template(data, files=files, env=env or {}, checked=True)
    return template.context(template.parameters(**identity.knowledge()),
                            **identity.knowledge())


def rebuild(data: Any, files: Mapping[str, str] | None, env: Mapping[str, Any] | None,
            identity: StackIdentity) -> PreparedStack:
    """Return the pieces of a stored stack (its template was validated when stored)."""
    context = stored_context(data, files, env, identity)
    return PreparedStack(context.template, context.params, context,
                         context.template.resource_definitions(context))
