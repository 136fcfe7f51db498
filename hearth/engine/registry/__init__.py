"""Resource plug-ins: finding them and turning type names into classes."""
