"""Read request bodies within Hearth's limits and pull templates out of them.

A body larger than ``CONF.max_json_body_size`` or a template larger than
``CONF.max_template_size`` is refused before any parsing; malformed JSON is
a 400 that says where the JSON broke, and so is JSON nested deeper than
:data:`hearth.common.document_bounds.MAX_DEPTH`.  Templates named by ``template_url``
are fetched only over http(s): the server never reads its own disk.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from typing import Any

from hearth.common import document_bounds, exception
from hearth.common.config import CONF
from hearth.engine import limits as engine_limits

ALLOWED_URL_SCHEMES = ("http", "https")
URL_FETCH_TIMEOUT = 10.0


def read_json(stream: Any, content_length: int | None,
              limit: int | None = None) -> Any:
    """Return the parsed JSON body (None when empty); enforce the size limit."""
    limit = CONF.max_json_body_size if limit is None else limit
    if content_length is not None and content_length > limit:
        raise _too_large(content_length, limit)
    data = stream.read(limit + 1) if stream is not None else b""
    if len(data) > limit:
        raise _too_large(len(data), limit)
    if not data.strip():
        return None
    try:
        return document_bounds.load_json(data)
    except document_bounds.DocumentTooComplex:
        raise exception.BadRequest(
            message=document_bounds.describe_too_deep("The request body")) from None
    except UnicodeDecodeError as exc:
        raise exception.BadRequest(message=f"The request body is not UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        raise exception.BadRequest(
            message=f"The request body is not valid JSON: {exc.msg} "
                    f"(line {exc.lineno}, column {exc.colno})") from None


def _too_large(actual: int, limit: int) -> exception.RequestLimitExceeded:
    return exception.RequestLimitExceeded(
        message=f"JSON body size ({actual} bytes) exceeds maximum allowed size "
                f"({limit} bytes).")


template_size = engine_limits.template_size
check_template_size = engine_limits.check_template_size


def fetch_template_url(url: str) -> str:
    """Return the text at an http(s) ``url``; other schemes are refused."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in ALLOWED_URL_SCHEMES:
        raise exception.BadRequest(
            message=f"Could not retrieve template: the URL scheme '{scheme}' is not "
                    f"allowed (allowed: {', '.join(ALLOWED_URL_SCHEMES)}).")
    # lazy: requests only when a template_url is fetched (not at the server's start)
    import requests
    try:
        with requests.get(url, timeout=URL_FETCH_TIMEOUT, stream=True) as response:
            response.raise_for_status()
            data = response.raw.read(CONF.max_template_size + 1, decode_content=True)
    except requests.RequestException as exc:
        raise exception.BadRequest(
            message=f"Could not retrieve template from {url}: {exc}") from None
    if len(data) > CONF.max_template_size:
        raise exception.TemplateSizeExceeded(actual=len(data), limit=CONF.max_template_size)
    return bytes(data).decode("utf-8", errors="replace")


def template_from_body(body: Mapping[str, Any], required: bool = True) -> Any:
    """Return the template of a create/update/validate body, within the size limit.

    ``template`` (a map or its text) wins over ``template_url``.  Without
    either, BadRequest when ``required`` else None.
    """
    template = body.get("template")
    if template is None and body.get("template_url"):
        template = fetch_template_url(body["template_url"])
    if template is None:
        if required:
            raise exception.BadRequest(message="No template specified")
        return None
    check_template_size(template)
    return template
