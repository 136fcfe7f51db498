"""The built-in cloud drivers; each file's name is its driver (virtual) name."""
