"""Plugins package."""
