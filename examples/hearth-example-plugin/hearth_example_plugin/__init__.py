"""A sample third-party Hearth resource plug-in package."""
