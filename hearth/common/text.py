"""Decode text read from outside (files, request data) as UTF-8, saying where it is not.

Templates, environments and the files sent with them are UTF-8, as Heat's
are.  A file in another encoding (Latin-1, UTF-16, a binary) is refused by
:func:`decode_utf8` with an error naming the line and byte where decoding
failed, so the user can find the character and save the file as UTF-8.
"""

from __future__ import annotations

from typing import Any


class NotUtf8(ValueError):
    """Bytes that are not UTF-8 text; ``line`` (1-based) and ``offset`` say where."""

    def __init__(self, reason: str, offset: int, line: int) -> None:
        super().__init__(f"the file is not valid UTF-8 ({reason} at byte {offset}); "
                         "save it as UTF-8")
        self.reason = reason
        self.offset = offset
        self.line = line


def decode_utf8(data: bytes) -> str:
    """Return ``data`` decoded as UTF-8 (a leading byte order mark is dropped); else NotUtf8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise NotUtf8(str(exc.reason), exc.start, line) from None


def holds_nul(value: Any) -> bool:
    """Return whether a text in ``value`` (a JSON value: keys too) holds U+0000.

    PostgreSQL's text cannot hold that character; a text Hearth would store
    with one is refused before it reaches the database.
    """
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(holds_nul(key) or holds_nul(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return any(holds_nul(item) for item in value)
    return False
