"""Turn exceptions into HTTP status codes and Heat's error body.

One table (:data:`STATUS_BY_ERROR`) maps exception class names to status
codes; an exception's class hierarchy is walked until a name in the table
is found, so a new subclass inherits its parent's status.  The error body
is Heat's::

    {"code": 404, "title": "Not Found", "explanation": "...",
     "error": {"type": "EntityNotFound", "message": "...", "traceback": null}}
"""

from __future__ import annotations

import json
import logging
from typing import Any

from hearth.common import exception

LOG = logging.getLogger(__name__)

#: Exception class name -> HTTP status (Heat's fault middleware map, plus Hearth's own names).
STATUS_BY_ERROR: dict[str, int] = {
    "BadRequest": 400,
    "StackValidationFailed": 400,
    "InvalidTemplateVersion": 400,
    "InvalidTemplateSection": 400,
    "TemplateSizeExceeded": 400,
    "InvalidSchemaError": 400,
    "UserParameterMissing": 400,
    "UnknownUserParameter": 400,
    "ImmutableParameterModified": 400,
    "RequestLimitExceeded": 400,
    "NotSupported": 400,
    "ResourceActionNotSupported": 400,
    "ResourceActionRestricted": 400,
    "InvalidBreakPointHook": 400,
    "ResourceFailure": 400,
    "ResourceInError": 400,
    "CommandExecutionError": 400,
    "ModuleNotAvailable": 400,
    "FunctionNotFound": 400,
    "Unauthorized": 401,
    "AuthenticationError": 401,
    "Forbidden": 403,
    "NotFound": 404,
    "MethodNotAllowed": 405,
    "StackExists": 409,
    "ActionInProgress": 409,
    "ActionNotComplete": 409,
    "StackLockError": 409,
    "UpdateInProgress": 409,
    "PayloadTooLarge": 413,
    "ServiceUnavailable": 503,
    "MasterUnreachable": 503,
    "MasterLostDuringJob": 503,
    "MasterLostDuringPublish": 503,
    # Any other error a user can cause is still the user's: never a 5xx.
    "HearthException": 400,
    "UpdateReplace": 400,
}

#: Status -> (title, explanation), worded as Heat's (webob's) answers.
TITLES: dict[int, tuple[str, str]] = {
    400: ("Bad Request", "The server could not comply with the request since it is either "
                         "malformed or otherwise incorrect."),
    401: ("Unauthorized", "This server could not verify that you are authorized to access "
                          "the document you requested."),
    403: ("Forbidden", "Access was denied to this resource."),
    404: ("Not Found", "The resource could not be found."),
    405: ("Method Not Allowed", "The method specified is not allowed for this resource."),
    409: ("Conflict", "There was a conflict when trying to complete your request."),
    413: ("Request Entity Too Large", "The request is larger than the server is willing or "
                                      "able to process."),
    500: ("Internal Server Error", "The server has either erred or is incapable of "
                                   "performing the requested operation."),
    503: ("Service Unavailable", "The server is currently unavailable. Please try again "
                                 "at a later time."),
}

GENERIC_500_MESSAGE = "An internal error occurred; the server log has the details."


def status_for(error: BaseException) -> int:
    """Return the HTTP status for ``error`` by walking its class hierarchy."""
    for cls in type(error).__mro__:
        status = STATUS_BY_ERROR.get(cls.__name__)
        if status is not None:
            return status
    return 500


def error_type(error: BaseException) -> str:
    """Return the name clients see in ``error.type``."""
    if isinstance(error, exception.HearthException):
        return error.error_type
    return type(error).__name__


def error_body(status: int, error_type_name: str, message: str) -> dict[str, Any]:
    """Return Heat's error body for a status, an error type and a message."""
    title, explanation = TITLES.get(status, TITLES[500])
    return {
        "code": status,
        "title": title,
        "explanation": explanation,
        "error": {"type": error_type_name, "message": message, "traceback": None},
    }


def fault_for(error: BaseException) -> tuple[int, dict[str, Any]]:
    """Return ``(status, body)`` for an exception raised while serving a request.

    Unknown exceptions (Hearth's own bugs) get a generic message; their
    traceback goes to the log only.
    """
    status = status_for(error)
    if status >= 500 and not isinstance(error, exception.HearthException):
        LOG.error("Unexpected error while serving a request: %s", error, exc_info=error)
        return status, error_body(status, error_type(error), GENERIC_500_MESSAGE)
    return status, error_body(status, error_type(error), str(error))


#: Response header giving a validation error's location as JSON (see :func:`location_of`).
LOCATION_HEADER = "X-Hearth-Error-Location"


def location_of(error: BaseException) -> str | None:
    """Return where a validation error is, as JSON (None for other errors).

    Sent in :data:`LOCATION_HEADER` beside Heat's error body, which stays
    exactly Heat's: stackctl names the template file and line from it, as
    it does in-process; other clients ignore the header.
    """
    if not isinstance(error, exception.StackValidationFailed):
        return None
    return json.dumps({"error": error.error, "message": error.error_message,
                       "path": [item if isinstance(item, (str, int)) else str(item)
                                for item in error.path],
                       "line": error.line, "column": error.column,
                       "filename": error.filename})
