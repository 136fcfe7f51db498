"""Engine package."""
