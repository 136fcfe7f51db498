"""Salt's outputters: the nested look, txt, json, yaml."""

import json

from hearth.cli.nested import OUTPUTTERS, render_nested


def test_nested_scalars_dicts_lists():
    text = render_nested("local", {"a": 1, "b": ["x", {"c": None}], "d": "two\nlines", "e": {}})
    assert text.splitlines() == [
        "local:",
        "    ----------",
        "    a:",
        "        1",
        "    b:",
        "        - x",
        "        |_",
        "          ----------",
        "          c:",
        "              None",
        "    d:",
        "        two",
        "        lines",
        "    e:",
        "        ----------",
    ]


def test_nested_bool_and_empty_string():
    assert render_nested("local", True) == "local:\n    True"
    assert render_nested("local", "") == "local:\n    "


def test_txt_json_yaml():
    assert OUTPUTTERS["txt"]("local", "a\nb") == "local: a\nlocal: b"
    assert OUTPUTTERS["txt"]("local", {"k": 1}) == 'local: {"k": 1}'
    assert json.loads(OUTPUTTERS["json"]("local", [1])) == {"local": [1]}
    assert OUTPUTTERS["yaml"]("local", {"k": [1]}) == "local:\n  k:\n  - 1"
