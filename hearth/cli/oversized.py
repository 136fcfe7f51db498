"""Say which local files made a template request too large for the server.

The server checks the sizes (``max_template_size`` for each template and
environment, ``max_json_body_size`` for the whole request) and names what
it knows: a file of the ``files`` map by its ``file://`` URL, the template
itself not at all (it has no name there).  stackctl knows which local file
each came from: :func:`naming_files` rewrites such a refusal to name them,
the way a template error names its file and line.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from typing import Any

from hearth.cli.command import CommandError
from hearth.common import exception
from hearth.engine.limits import template_size

#: The refusal's type (Heat's, for every size limit) and the prefix of its message.
LIMIT_TYPE = "RequestLimitExceeded"
PREFIX = "Request limit exceeded: "
#: How the server words the two size limits.
TEMPLATE_SIZE = "Template size ("
BODY_SIZE = "JSON body size ("
#: At most this many files are named for a request that is too large as a whole.
LISTED = 3


def local_name(url: str) -> str:
    """Return the path of a ``file://`` URL as the user would write it (relative if below)."""
    path = url.removeprefix("file://")
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def sent_sizes(template_file: str | None, request: Mapping[str, Any]) -> dict[str, int]:
    """Return the bytes each local file takes in the request, by the name to show."""
    sizes = {local_name(url): template_size(text)
             for url, text in (request.get("files") or {}).items()}
    if template_file and request.get("template") is not None:
        sizes[template_file] = template_size(request["template"])
    return sizes


def described(message: str, template_file: str | None, request: Mapping[str, Any]) -> str:
    """Return the server's size refusal ``message`` naming the local file(s) at fault."""
    for url in request.get("files") or {}:
        message = message.replace(f"{url}: ", f"{local_name(url)}: ")
    detail = message.removeprefix(PREFIX)
    if detail.startswith(TEMPLATE_SIZE) and template_file:
        return f"{PREFIX}{template_file}: {detail}"
    if detail.startswith(BODY_SIZE):
        largest = sorted(sent_sizes(template_file, request).items(),
                         key=lambda item: (-item[1], item[0]))[:LISTED]
        if largest:
            files = ", ".join(f"{name} ({size} bytes)" for name, size in largest)
            return f"{message.rstrip('.')}; the largest files sent: {files}."
    return message


@contextlib.contextmanager
def naming_files(template_file: str | None, request: Mapping[str, Any]) -> Iterator[None]:
    """Turn a size refusal of the request made inside into one naming its local files."""
    try:
        yield
    except exception.HearthException as error:
        if error.error_type != LIMIT_TYPE:
            raise
        raise CommandError(described(str(error), template_file, request)) from None
