"""Packaging shim: the metadata lives in setup.cfg."""

import setuptools

setuptools.setup()
