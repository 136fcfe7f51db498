"""A small in-memory EngineService stand-in for the API's unit tests."""

from __future__ import annotations

from typing import Any

from hearth.common import exception

TIME = "2026-01-01T00:00:00Z"


class FakeService:
    """Keeps stacks per project in a dict and records every call."""

    def __init__(self) -> None:
        self.stacks: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, tuple, dict]] = []

    @property
    def catalog(self) -> FakeService:
        """Serve the catalog's operations too (an EngineService has its catalog)."""
        return self

    def _record(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.calls.append((name, args, kwargs))

    def _find(self, ctx: Any, identity: str) -> dict[str, Any]:
        key = identity.split("/")[-1]
        for stack in self.stacks.values():
            if stack["project"] == ctx.project_id and key in (stack["id"], stack["stack_name"]):
                return stack
        raise exception.StackNotFound(identity)

    def create_stack(self, ctx: Any, stack_name: str, template: Any, **kwargs: Any) -> dict:
        self._record("create_stack", stack_name, template, **kwargs)
        if any(s["stack_name"] == stack_name and s["project"] == ctx.project_id
               for s in self.stacks.values()):
            raise exception.StackExists(stack_name=stack_name)
        stack_id = f"id-{len(self.stacks) + 1}"
        self.stacks[stack_id] = {"id": stack_id, "stack_name": stack_name,
                                 "project": ctx.project_id, "stack_status": "CREATE_COMPLETE",
                                 "creation_time": TIME}
        return {"id": stack_id, "stack_name": stack_name}

    def count_stacks(self, ctx: Any, **filters: Any) -> int:
        return sum(1 for s in self.stacks.values() if s["project"] == ctx.project_id)

    def list_stacks(self, ctx: Any, **kwargs: Any) -> list[dict]:
        self._record("list_stacks", **kwargs)
        stacks = [dict(s) for s in self.stacks.values()
                  if kwargs.get("global_tenant") or s["project"] == ctx.project_id]
        if kwargs.get("marker"):
            ids = [s["id"] for s in stacks]
            stacks = stacks[ids.index(kwargs["marker"]) + 1:]
        if kwargs.get("limit"):
            stacks = stacks[:kwargs["limit"]]
        return stacks

    def identify_stack(self, ctx: Any, stack_identity: str) -> dict:
        stack = self._find(ctx, stack_identity)
        return {"stack_name": stack["stack_name"], "id": stack["id"], "tenant": ctx.project_id}

    def show_stack(self, ctx: Any, stack_identity: str, resolve_outputs: bool = True) -> dict:
        self._record("show_stack", stack_identity, resolve_outputs=resolve_outputs)
        return {**self._find(ctx, stack_identity), "parameters": {}, "disable_rollback": True,
                "outputs": []}

    def update_stack(self, ctx: Any, stack_identity: str, **kwargs: Any) -> dict:
        self._record("update_stack", stack_identity, **kwargs)
        return self.identify_stack(ctx, stack_identity)

    def delete_stack(self, ctx: Any, stack_identity: str) -> None:
        self._record("delete_stack", stack_identity)
        del self.stacks[self._find(ctx, stack_identity)["id"]]

    def stack_action(self, ctx: Any, stack_identity: str, action: str) -> None:
        self._find(ctx, stack_identity)
        self._record("stack_action", stack_identity, action)

    def list_resources(self, ctx: Any, stack_identity: str, **kwargs: Any) -> list[dict]:
        self._find(ctx, stack_identity)
        self._record("list_resources", stack_identity, **kwargs)
        return [{"resource_name": "r", "logical_resource_id": "r", "physical_resource_id": "",
                 "resource_type": "OS::Heat::None", "resource_status": "CREATE_COMPLETE",
                 "resource_status_reason": "", "creation_time": TIME, "updated_time": None,
                 "required_by": []}]

    def list_events(self, ctx: Any, stack_identity: str, **kwargs: Any) -> list[dict]:
        self._find(ctx, stack_identity)
        self._record("list_events", stack_identity, **kwargs)
        return [{"id": "e1", "event_time": TIME, "resource_name": "r",
                 "logical_resource_id": "r", "physical_resource_id": "",
                 "resource_status": "CREATE_COMPLETE", "resource_status_reason": ""}]

    def list_resource_types(self, ctx: Any, **kwargs: Any) -> list[str]:
        self._record("list_resource_types", **kwargs)
        return ["OS::Heat::None"]

    def resource_schema(self, ctx: Any, type_name: str, **kwargs: Any) -> dict:
        if type_name != "OS::Heat::None":
            raise exception.ResourceTypeNotFound(type_name)
        return {"resource_type": type_name, "properties": {}, "attributes": {}}

    def resource_mark_unhealthy(self, ctx: Any, stack_identity: str, resource_name: str,
                                mark_unhealthy: bool, reason: str | None = None) -> None:
        self._record("resource_mark_unhealthy", stack_identity, resource_name, mark_unhealthy,
                     reason)

    def validate_template(self, ctx: Any, template: Any, **kwargs: Any) -> dict:
        self._record("validate_template", template, **kwargs)
        return {"Description": "", "Parameters": {}}

    def explode(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("secret internals")
