"""Template package."""
