"""Who is asking: the request context passed to every EngineService call."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RequestContext:
    """The caller's identity and rights for one request.

    ``project_id`` scopes every stack lookup: a project never sees another
    project's stacks.  ``is_admin`` allows listing across projects
    (``global_tenant``).
    """

    project_id: str = "admin"
    user: str = "admin"
    roles: tuple[str, ...] = field(default_factory=tuple)
    auth_token: str | None = None
    request_id: str | None = None

    @property
    def is_admin(self) -> bool:
        """Return whether the caller holds the admin role."""
        return "admin" in self.roles

    @classmethod
    def local(cls, project_id: str = "admin") -> RequestContext:
        """Return the context of the embedded CLI (the local admin)."""
        return cls(project_id=project_id, user="admin", roles=("admin",))
