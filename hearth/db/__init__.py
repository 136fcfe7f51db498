"""Db package."""
