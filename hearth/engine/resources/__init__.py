"""Driving one resource: its actions, stored data, shown attributes and validation."""
