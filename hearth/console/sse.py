"""Server-sent events: the wire form of one event, and the keep-alive comment.

An event is ``event: NAME`` and one ``data:`` line per line of its text,
then a blank line (the HTML Living Standard's ``text/event-stream``); the
browser's EventSource joins the data lines back with newlines.
"""

from __future__ import annotations

#: Seconds a stream stays silent at most before it sends a comment (proxies close idle ones).
KEEPALIVE = 15.0


def event(name: str, data: str, event_id: str | None = None) -> bytes:
    """Return the encoded event ``name`` carrying ``data``.

    ``event_id`` is what the browser sends back as ``Last-Event-ID`` when it
    reconnects, so that a stream resumes after the last event it got.
    """
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    head = f"event: {name}\n"
    if event_id is not None:
        head += "id: " + event_id.replace("\n", "").replace("\r", "") + "\n"
    return (head + "".join(f"data: {line}\n" for line in lines) + "\n").encode()


def comment(text: str = "") -> bytes:
    """Return an encoded comment (ignored by the browser; keeps the connection alive)."""
    return f": {text}\n\n".encode()


def retry(milliseconds: int) -> bytes:
    """Return the field telling the browser how long to wait before reconnecting."""
    return f"retry: {milliseconds}\n\n".encode()
