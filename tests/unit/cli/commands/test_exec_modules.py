"""Argument handling of stackctl call: values, keywords, options after arguments."""

import argparse

import pytest

from hearth.cli.commands.exec_modules import parse_value, split_arguments, trailing_options


@pytest.mark.parametrize("text, value", [
    ("42", 42), ("-3", -3), ("1.5", 1.5), ("true", True), ("False", False), ("null", None),
    ("[1, a]", [1, "a"]), ("{a: 1}", {"a": 1}), ("hello world", "hello world"),
    ("[unclosed", "[unclosed"), ("", ""), ("0", 0), ("0.5", 0.5), ("1e3", 1000.0),
    # as YAML reads them: a leading zero keeps an account id or a mode as text
    ("099720109477", "099720109477"), ("0755", "0755"), ("1_000", "1_000"), ("nan", "nan"),
])
def test_parse_value(text, value):
    assert parse_value(text) == value


def test_split_arguments():
    assert split_arguments(["a", "n=2", "cmd=echo a=b", "x y=z"]) == (
        ["a", "x y=z"], {"n": 2, "cmd": "echo a=b"})


def test_trailing_options_are_taken_from_the_arguments():
    args = argparse.Namespace(arguments=["hi", "--format", "json", "--retcode-passthrough",
                                         "-m", "/d"], format=None, retcode_passthrough=False,
                              module_dir=["/c"], local=False, cache_job=False)
    trailing_options(args)
    assert args.arguments == ["hi"]
    assert (args.format, args.retcode_passthrough, args.module_dir) == ("json", True,
                                                                        ["/c", "/d"])
