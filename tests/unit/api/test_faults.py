"""The exception -> HTTP status table and Heat's error body."""

import logging

import pytest

from hearth.api import faults
from hearth.common import exception


@pytest.mark.parametrize(("error", "status", "type_name"), [
    (exception.StackNotFound("s"), 404, "EntityNotFound"),
    (exception.StackExists(stack_name="s"), 409, "StackExists"),
    (exception.StackValidationFailed("bad"), 400, "StackValidationFailed"),
    (exception.InvalidTemplateReference("bad"), 400, "InvalidTemplateReference"),
    (exception.InvalidTenant("a", "b"), 403, "InvalidTenant"),
    (exception.Unauthorized(message="no"), 401, "Unauthorized"),
    (exception.RequestLimitExceeded(message="x"), 400, "RequestLimitExceeded"),
    (exception.ActionInProgress(stack_name="s", action="CREATE"), 409, "ActionInProgress"),
    (exception.CommandExecutionError("x"), 400, "CommandExecutionError"),
])
def test_status_table(error, status, type_name):
    code, body = faults.fault_for(error)
    assert code == status
    assert body["code"] == status
    assert body["error"] == {"type": type_name, "message": str(error), "traceback": None}
    assert body["title"] == faults.TITLES[status][0]


def test_unknown_exception_is_500_with_generic_message_and_logged(caplog):
    with caplog.at_level(logging.ERROR, logger="hearth.api.faults"):
        code, body = faults.fault_for(RuntimeError("secret internals"))
    assert code == 500
    assert body["error"]["message"] == faults.GENERIC_500_MESSAGE
    assert "secret" not in str(body)
    assert "secret internals" in caplog.text
