"""Launching a stack: a template file, then a form of its parameters, then create or preview.

Step one uploads the template (and an environment file); the API validates
it and its parameters make the form of step two (:mod:`.forms`).  The
uploaded files stay in the session (a draft), never in the page.  Errors are
the API's, located in the uploaded file as ``stackctl`` locates them
(``FILE:LINE: ...: property path: message``).
"""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.console.app import PREFIX, Redirect, View
from hearth.console.pages import forms
from hearth.console.render import url_part


def upload_form(view: View) -> str:
    """GET /launch: choose the template."""
    return view.page("launch.html", error=None)


def _upload(view: View, name: str) -> dict[str, str] | None:
    """Return an uploaded file (``filename``, ``text``), or the pasted text field's."""
    upload = view.form.get(f"{name}_file")
    if isinstance(upload, dict):
        return upload
    text = view.form.get(f"{name}_text")
    if isinstance(text, str) and text.strip():
        return {"filename": f"{name} text", "text": text}
    return None


def _validate(view: View, draft: dict[str, Any]) -> dict[str, Any]:
    """Return the API's validation of a draft, errors located in its files."""
    try:
        return view.calls.validate_template(draft["template"],
                                            environment=draft.get("environment"))
    except exception.StackValidationFailed as error:
        raise error.located(draft["filename"]) from None


def upload(view: View) -> Any:
    """POST /launch: validate the template; on to its parameters."""
    template = _upload(view, "template")
    if template is None:
        return view.page("launch.html", error="Choose a template file (or paste one).")
    environment = _upload(view, "environment")
    draft = {"template": template["text"], "filename": template["filename"],
             "environment": environment["text"] if environment else None}
    try:
        _validate(view, draft)
    except exception.HearthException as error:
        return view.page("launch.html", error=str(error))
    draft_id = view.session.keep_draft(draft)
    return Redirect(f"{PREFIX}/launch/{url_part(draft_id)}")


def _draft(view: View) -> dict[str, Any]:
    draft = view.session.drafts.get(view.params["draft"])
    if draft is None:
        raise exception.NotFound(message="This launch form has expired: choose the template "
                                         "again.")
    return draft


def parameters_form(view: View) -> str:
    """GET /launch/{draft}: the stack's name and options, and the template's parameters."""
    draft = _draft(view)
    return _form_page(view, draft, error=None, preview=None)


def _form_page(view: View, draft: dict[str, Any], error: str | None, preview: Any) -> str:
    validation = _validate(view, draft)
    fields = forms.parameter_fields(validation, {}, view.form)
    return view.page("launch_parameters.html", draft=draft, draft_id=view.params["draft"],
                     description=validation.get("Description") or "", fields=fields,
                     error=error, preview=preview, stack_name=view.field("stack_name"),
                     timeout=view.field("timeout_mins"),
                     rollback=view.field("rollback", "on" if not view.form else ""))


def launch(view: View) -> Any:
    """POST /launch/{draft}: preview the stack, or create it and show its page."""
    draft = _draft(view)
    name = view.field("stack_name")
    request: dict[str, Any] = {"params": forms.parameter_values(view.form),
                               "environment": draft.get("environment"),
                               "disable_rollback": view.field("rollback") != "on"}
    timeout = view.field("timeout_mins")
    if timeout:
        if not timeout.isdigit():
            return _form_page(view, draft, f"Timeout: {timeout!r} is not a whole number of "
                                           "minutes.", None)
        request["timeout_mins"] = int(timeout)
    try:
        if view.field("do") == "preview":
            preview = view.calls.preview_stack(name, draft["template"], **request)
            return _form_page(view, draft, None, preview)
        created = view.calls.create_stack(name, draft["template"], **request)
    except exception.StackValidationFailed as error:
        return _form_page(view, draft, str(error.located(draft["filename"])), None)
    except exception.HearthException as error:
        return _form_page(view, draft, str(error), None)
    view.session.drafts.pop(view.params["draft"], None)
    return Redirect(f"{PREFIX}/stacks/{url_part(created['stack_name'])}/"
                    f"{url_part(created['id'])}")
