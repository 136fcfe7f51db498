"""Api package."""
