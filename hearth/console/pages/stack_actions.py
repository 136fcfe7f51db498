"""A stack's actions: delete, suspend, resume, check, cancel and update, each confirmed first.

Each action is one operation of the API (:mod:`hearth.console.calls`),
asked with the same confirmation ``stackctl`` asks; its errors are the
API's, shown as ``stackctl`` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hearth.common import exception
from hearth.console.app import PREFIX, Redirect, View
from hearth.console.pages import forms
from hearth.console.pages.stack import identity
from hearth.console.render import url_part


@dataclass(frozen=True)
class StackVerb:
    """One confirmed action of the stack page."""

    title: str
    question: str
    #: the API's action (``POST .../actions``), or None for a delete
    action: str | None
    danger: bool = False


VERBS = {
    "delete": StackVerb("Delete", "Are you sure you want to delete stack {name}? Its "
                        "resources are deleted with it.", None, danger=True),
    "suspend": StackVerb("Suspend", "Suspend stack {name}?", "suspend"),
    "resume": StackVerb("Resume", "Resume stack {name}?", "resume"),
    "check": StackVerb("Check", "Check the resources of stack {name}?", "check"),
    "cancel": StackVerb("Cancel update", "Cancel the update of stack {name} (its resources "
                        "are rolled back)?", "cancel_update"),
    "cancel-create": StackVerb("Cancel", "Cancel the action of stack {name} without "
                               "rollback?", "cancel_without_rollback", danger=True),
}


def stack_page(view: View) -> str:
    """Return the URL of the stack page of the request."""
    return (f"{PREFIX}/stacks/{url_part(view.params['stack_name'])}/"
            f"{url_part(view.params['stack_id'])}")


def _verb(view: View) -> StackVerb:
    verb = VERBS.get(view.params["verb"])
    if verb is None:
        raise exception.NotFound(message=f"No stack action {view.params['verb']!r}: one of "
                                 f"{', '.join(sorted(VERBS))}.")
    return verb


def confirm(view: View) -> str:
    """GET /stacks/{name}/{id}/{verb}: ask before acting."""
    verb = _verb(view)
    stack = view.calls.stack_summary(identity(view))
    return view.page("confirm.html", stack=stack, verb=verb, verb_name=view.params["verb"],
                     question=verb.question.format(name=stack["stack_name"]),
                     back=stack_page(view))


def perform(view: View) -> Redirect:
    """POST /stacks/{name}/{id}/{verb}: act, then show the stack (its events arrive live)."""
    verb = _verb(view)
    if verb.action is None:
        view.calls.delete_stack(identity(view))
    else:
        view.calls.stack_action(identity(view), verb.action)
    return Redirect(stack_page(view))


def update_form(view: View) -> str:
    """GET /stacks/{name}/{id}/update: a new template (optional) and the parameters."""
    stack = view.calls.stack_summary(identity(view))
    return _update_page(view, stack, None, None)


def _update_page(view: View, stack: dict[str, Any], error: str | None,
                 preview: Any) -> str:
    template = view.calls.get_template(identity(view))
    validation = view.calls.validate_template(template)
    fields = forms.parameter_fields(validation, stack.get("parameters") or {}, view.form)
    return view.page("update.html", stack=stack, fields=fields, error=error, preview=preview,
                     back=stack_page(view))


def update(view: View) -> Any:
    """POST /stacks/{name}/{id}/update: preview or update, keeping what is not given."""
    stack_identity = identity(view)
    stack = view.calls.stack_summary(stack_identity)
    upload = view.form.get("template_file")
    request: dict[str, Any] = {"existing": True, "params": forms.parameter_values(view.form)}
    if isinstance(upload, dict):
        request["template"] = upload["text"]
    try:
        if view.field("do") == "preview":
            preview = view.calls.preview_update(stack_identity, **request)
            return _update_page(view, stack, None, preview)
        view.calls.update_stack(stack_identity, **request)
    except exception.StackValidationFailed as error:
        filename = upload["filename"] if isinstance(upload, dict) else None
        return _update_page(view, stack, str(error.located(filename)), None)
    except exception.HearthException as error:
        return _update_page(view, stack, str(error), None)
    return Redirect(stack_page(view))
