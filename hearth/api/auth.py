"""Who is asking: the token check, tenancy and request ids (Falcon middleware).

Every request under ``/v1/{tenant_id}`` carries ``X-Auth-Token``.  The
token is verified by a ``verify`` callable (normally
:func:`hearth.db.tokens.verify_token`); its project must equal the URL's
tenant, else 403.  In no-auth mode any token (or none) is accepted and the
caller is the admin of the URL's tenant, as Heat's ``noauth`` pipeline.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import falcon

from hearth.api.params import refuse_nul
from hearth.common import exception
from hearth.common.context import RequestContext
from hearth.db import api_stacks
from hearth.engine.resources import handle_tokens

REQUEST_ID_HEADER = "X-Openstack-Request-Id"

Verifier = Callable[[str], Any]  # token -> object with project_id, user, roles


class AuthMiddleware:
    """Put a :class:`RequestContext` on ``req.context.hearth`` for every routed request."""

    def __init__(self, verify: Verifier | None, noauth: bool = False) -> None:
        if verify is None and not noauth:
            raise ValueError("AuthMiddleware needs a token verifier unless noauth is on")
        self.verify = verify
        self.noauth = noauth

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Give the request its id (echoed on the response, even on errors)."""
        req.context.request_id = f"req-{uuid.uuid4()}"
        req.context.hearth = None

    def process_resource(self, req: falcon.Request, resp: falcon.Response,
                         resource: Any, params: dict[str, str]) -> None:
        """Authenticate the request when its operation needs it."""
        for key, value in params.items():  # before a signal token is looked up by them
            refuse_nul("path segment", key, value)
        operation = getattr(resource, "route", None)
        operation = operation.operation(req.method) if operation else None
        tenant = params.get("tenant_id")
        if operation is None or not operation.policy.authenticated or tenant is None:
            req.context.hearth = RequestContext(project_id=tenant or "", user="anonymous",
                                                request_id=req.context.request_id)
            return
        if operation.policy.signal_token and not self.noauth:
            signaller = self.signal_token_context(req, tenant, params,
                                                  getattr(resource, "service", None))
            if signaller is not None:
                req.context.hearth = signaller
                return
        req.context.hearth = self.authenticate(req, tenant)

    def signal_token_context(self, req: falcon.Request, tenant: str, params: dict[str, str],
                             service: Any) -> RequestContext | None:
        """Return a context when X-Auth-Token is the path's resource's own signal token.

        Such a token (:mod:`hearth.engine.resources.handle_tokens`) is good
        for signalling that one resource only; anything else is left to
        :meth:`authenticate`, where it is an unknown token.
        """
        secret = req.get_header("X-Auth-Token")
        db = getattr(service, "db", None)
        if not secret or db is None:
            return None
        digest = api_stacks.stack_resource_data(
            db, tenant, params.get("stack_id", ""), params.get("stack_name", ""),
            params.get("resource_name", ""), handle_tokens.DIGEST_KEY)
        if not handle_tokens.matches(digest, secret):
            return None
        return RequestContext(project_id=tenant,
                              user=f"signal:{params.get('resource_name', '')}",
                              request_id=req.context.request_id)

    def authenticate(self, req: falcon.Request, tenant: str) -> RequestContext:
        """Return the caller's context for the URL's tenant, or raise 401/403."""
        if self.noauth:
            return RequestContext(project_id=tenant, user=req.get_header("X-Auth-User") or "admin",
                                  roles=("admin",), request_id=req.context.request_id)
        secret = req.get_header("X-Auth-Token")
        if not secret:
            raise exception.Unauthorized(message="Authentication required: send X-Auth-Token.")
        assert self.verify is not None  # set unless noauth (the constructor checks)
        token = self.verify(secret)
        if token.project_id != tenant:
            raise exception.InvalidTenant(target=tenant, actual=token.project_id)
        return RequestContext(project_id=token.project_id, user=token.user,
                              roles=tuple(token.roles), request_id=req.context.request_id)

    def process_response(self, req: falcon.Request, resp: falcon.Response,
                         resource: Any, req_succeeded: bool) -> None:
        """Echo the request id on every response."""
        request_id = getattr(req.context, "request_id", None)
        if request_id:
            resp.set_header(REQUEST_ID_HEADER, request_id)
