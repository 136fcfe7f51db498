"""Markers of the version tables for names that are not functions there."""

from __future__ import annotations


class Removed:
    """Marker: a version removed this function; using it is an error."""


class Invalid:
    """Marker: a normal function used where only condition functions may be."""
