"""stackctl's transport to its local engine: HTTP on a Unix socket, woken at an action's end.

The same :class:`~hearth.cli.backend_http.HttpTransport` (the same requests,
the same output), with one difference in following an action: between two
polls it waits in the engine (``GET /local/pause``), which answers as soon
as an action there ends, as an in-process engine wakes its follower.  So
polls can be far apart (a poll costs the engine a listing of the stack and
of its new events) and the final state is still printed at once.
"""

from __future__ import annotations

from hearth.cli.backend_http import HttpSession, HttpTransport

#: Seconds between two polls of an action followed on the local engine (at most: the
#: action's end answers the wait at once).
LOCAL_POLL_INTERVAL = 0.25


class LocalTransport(HttpTransport):
    """Talk to the local engine through ``session`` (a UnixSession)."""

    poll_interval = LOCAL_POLL_INTERVAL

    def __init__(self, url: str, session: HttpSession) -> None:
        super().__init__(url, session=session)
        self.engine_url = url.split("/v1/", 1)[0]

    def sleep(self, seconds: float) -> None:
        """Wait in the engine ``seconds``, or less: until an action there ends."""
        self._send("GET", f"{self.engine_url}/local/pause", {"seconds": seconds}, None)
