"""Pillar: per-agent data compiled from pillar files and ext_pillar modules, as Salt's.

Public names: :func:`compile_pillar` (the master calls it for each agent),
:func:`pillar_top`, :func:`master_opts` and :data:`ERRORS_KEY`.
"""

from __future__ import annotations

from hearth.pillar.compiler import ERRORS_KEY, compile_pillar, pillar_top
from hearth.pillar.settings import master_opts

__all__ = ["ERRORS_KEY", "compile_pillar", "master_opts", "pillar_top"]
