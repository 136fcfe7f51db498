"""Where a machine sends a resource's signals: the API's public base URL and signal URLs.

The base URL is, in order: ``[api] public_url`` from the configuration; the
address this process's ``hearth-api`` listens on (it calls
:func:`set_serving_url` once bound, so ``--port 0`` works); else
``http://<[api] bind_host>:<[api] bind_port>``.  A resource's signal URL is
``<base>/v1/<project>/stacks/<stack name>/<stack id>/resources/<name>/signal``,
the path of Heat's ``POST .../resources/{name}/signal``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from hearth.common import config

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView
    from hearth.engine.resources.stack_view import StackView

_serving_url: str | None = None


def set_serving_url(url: str | None) -> None:
    """Remember the URL this process's API server listens on (None forgets it)."""
    global _serving_url
    _serving_url = url.rstrip("/") if url else None


def base_url() -> str:
    """Return the API's public base URL (no trailing slash, no ``/v1``)."""
    config.register_opts()
    configured = config.CONF.api.public_url
    if configured:
        return str(configured).rstrip("/")
    if _serving_url:
        return _serving_url
    host = config.CONF.api.bind_host
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{config.CONF.api.bind_port}"


def stack_project(stack: StackView) -> str:
    """Return the project (tenant) a stack belongs to (its row's; a view's: its context's)."""
    project = getattr(getattr(stack, "row", None), "project_id", None)  # a stored Stack's
    if project is None and stack.context is not None:
        project = stack.context.project_id
    return str(project or "")


def resource_path(stack: StackView, resource_name: str) -> str:
    """Return ``/v1/<project>/stacks/<name>/<id>/resources/<resource>`` (quoted)."""
    parts = (stack_project(stack), "stacks", stack.name, str(stack.id), "resources",
             resource_name)
    return "/v1/" + "/".join(quote(str(part), safe="") for part in parts)


def signal_url(resource: ResourceView) -> str:
    """Return the URL a ``POST`` signals ``resource`` at."""
    return f"{base_url()}{resource_path(resource.stack, resource.name)}/signal"
