"""The engine's service: the entry points the CLI and the REST API call."""
