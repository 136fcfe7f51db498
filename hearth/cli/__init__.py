"""Cli package."""
