"""Common package."""
