"""Server information: versions, build info, engines (services), the OpenAPI document."""

from __future__ import annotations

from typing import Any

from hearth import __version__
from hearth.api.routing import ApiRequest, Reply


def versions(request: ApiRequest) -> Reply:
    """GET /: the API versions (300 Multiple Choices, as Heat)."""
    href = f"{request.raw.prefix}/v1/"
    return Reply(status=300, body={"versions": [
        {"id": "v1.0", "status": "CURRENT", "links": [{"rel": "self", "href": href}]}]})


def build_info(request: ApiRequest) -> dict[str, Any]:
    """GET /build_info: the revisions of the API and the engine."""
    return {"api": {"revision": __version__}, "engine": {"revision": __version__}}


def index(request: ApiRequest) -> dict[str, Any]:
    """GET /services: the engines and whether they are up."""
    return {"services": request.service.list_services(request.ctx)}


def openapi(request: ApiRequest) -> Any:
    """GET /v1/openapi.json: this API's OpenAPI 3 document."""
    from hearth.api import openapi as document
    return document.load_document()
