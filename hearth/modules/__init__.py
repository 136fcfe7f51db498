"""Modules package."""
