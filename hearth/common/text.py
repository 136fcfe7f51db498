"""Decode text read from outside (files, request data) as UTF-8, saying where it is not.

Templates, environments and the files sent with them are UTF-8, as Heat's
are.  A file in another encoding (Latin-1, UTF-16, a binary) is refused by
:func:`decode_utf8` with an error naming the line and byte where decoding
failed, so the user can find the character and save the file as UTF-8.
"""

from __future__ import annotations


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
