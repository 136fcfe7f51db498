"""Setuptools shim; all metadata lives in setup.cfg."""
import setuptools

setuptools.setup()
