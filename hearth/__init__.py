"""Hearth: declarative resource orchestration in the style of OpenStack Heat."""

__version__ = "0.1.0"
