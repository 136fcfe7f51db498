"""Render DOT text as SVG or PNG with Graphviz's ``dot`` program.

Only the rendering needs Graphviz (Debian's ``graphviz`` package;
``tools/ensure-graphviz.sh`` installs it); DOT text is written by Hearth's
own code.  A missing program is a :class:`~hearth.common.exception.GraphvizNotAvailable`
that says how to get it or to ask for DOT instead.
"""

from __future__ import annotations

import shutil
import subprocess

from hearth.common import exception

#: Output format -> (dot's -T value, media type).
FORMATS: dict[str, tuple[str, str]] = {
    "svg": ("svg", "image/svg+xml"),
    "png": ("png", "image/png"),
}

#: Seconds a rendering may take (a graph of a few thousand nodes takes a few seconds).
RENDER_TIMEOUT = 120.0


def dot_program() -> str | None:
    """Return the path of Graphviz's ``dot``, or None when it is not installed."""
    return shutil.which("dot")


def render(dot_text: str, output_format: str, timeout: float = RENDER_TIMEOUT) -> bytes:
    """Return ``dot_text`` drawn as ``output_format`` (``svg`` or ``png``)."""
    if output_format not in FORMATS:
        raise exception.BadRequest(
            message=f"Unknown graph format {output_format!r}; choose one of "
                    f"{', '.join(['dot', *FORMATS])}.")
    program = dot_program()
    if program is None:
        raise exception.GraphvizNotAvailable(format=output_format.upper())
    try:
        result = subprocess.run([program, f"-T{FORMATS[output_format][0]}"],
                                input=dot_text.encode("utf-8"), capture_output=True,
                                timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise exception.GraphRenderFailed(format=output_format.upper(),
                                          reason=f"no answer within {timeout:g} s") from None
    if result.returncode != 0 or not result.stdout:
        reason = result.stderr.decode("utf-8", "replace").strip() or f"exit {result.returncode}"
        raise exception.GraphRenderFailed(format=output_format.upper(), reason=reason)
    return result.stdout
