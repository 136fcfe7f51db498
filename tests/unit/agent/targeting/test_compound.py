"""The compound parser: precedence, grouping and every malformed shape named."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.agent.targeting import select
from hearth.agent.targeting.compound import compile_compound, split_word
from tests.unit.agent.targeting.agents import AGENTS, ALL_IDS

ATOMS = ["web*", "db*", "*1", "G@os:Ubuntu", "G@roles:web", "I@env:prod", "L@web2,Web3",
         "E@.*e", "P@num_cpus:[12]", "S@10.0.0.0/24", "G;@ec2;tags;env;prod"]


def _ids(expression: str) -> set[str]:
    return set(select(expression, "compound", AGENTS))


expressions = st.recursive(
    st.sampled_from(ATOMS).map(lambda atom: [atom]),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(
            lambda t: [*t[0], t[1], *t[2]]),
        inner.map(lambda words: ["not", "(", *words, ")"]),
        inner.map(lambda words: ["(", *words, ")"]),
    ),
    max_leaves=8,
)


def _python_answer(words: list[str], agent) -> bool:
    """Evaluate the words as Python would, each atom replaced by its own answer."""
    operators = {"and", "or", "not", "(", ")"}
    rendered = " ".join(
        word if word in operators else str(agent.id in _ids(word)) for word in words)
    return eval(rendered)  # noqa: S307 - a test oracle over True/False/and/or/not only


@settings(max_examples=150, deadline=None)
@given(expressions)
def test_precedence_and_grouping_are_pythons(words):
    expected = {agent.id for agent in AGENTS if _python_answer(words, agent)}
    assert _ids(" ".join(words)) == expected


@settings(max_examples=60, deadline=None)
@given(expressions, expressions)
def test_and_is_intersection_or_is_union(left, right):
    a, b = " ".join(left), " ".join(right)
    assert _ids(f"( {a} ) and ( {b} )") == _ids(a) & _ids(b)
    assert _ids(f"( {a} ) or ( {b} )") == _ids(a) | _ids(b)


@settings(max_examples=60, deadline=None)
@given(expressions)
def test_not_is_complement_and_double_negation_is_identity(words):
    expression = " ".join(words)
    assert _ids(f"not ( {expression} )") == set(ALL_IDS) - _ids(expression)
    assert _ids(f"not ( not ( {expression} ) )") == _ids(expression)
    assert _ids(f"( {expression} )") == _ids(expression)


@pytest.mark.parametrize(("expression", "same_as"), [
    ("web* not G@os:Debian", "web* and not G@os:Debian"),
    ("( web* ) not ( web2 )", "( web* ) and not ( web2 )"),
    ("not web* and db*", "( not web* ) and db*"),
    ("web1 or db1 and G@os:CentOS", "web1 or ( db1 and G@os:CentOS )"),
    ("not web* or db1", "( not web* ) or db1"),
])
def test_salts_implicit_and_and_binding(expression, same_as):
    assert _ids(expression) == _ids(same_as)


def test_a_list_of_words_is_accepted():
    assert _ids("web1 or db1") == set(select(["web1", "or", "db1"], "compound", AGENTS))


@pytest.mark.parametrize(("expression", "reason"), [
    ("web1 and", "expected a target or '(' after 'and' at the end"),
    ("or web1", "expected a target or '(' at word 1, found 'or'"),
    ("( web1 or db1", "'(' at word 1 is never closed"),
    ("( web1 db1 )", "expected 'and', 'or' or ')' at word 3, found 'db1'"),
    ("web1 ) or ( db1", "expected 'and' or 'or' at word 2, found ')'"),
    ("not not web1", "'not not' (word 2) is not valid compound syntax; "
                     "write 'not ( not ... )'"),
    ("web1 and (db1)", "'(db1)': parentheses must be separate words, e.g. '( web1 or db1 )'"),
    ("G@", "'G@': G@ needs a pattern after the '@'"),
    ("M@x", "'M@x': the M@ target type is not supported by Hearth"),
    ("E@web(", "'E@web(': bad regular expression 'web(': missing ), unterminated subpattern "
               "at position 3"),
    ("S@300.1.1.1", "'S@300.1.1.1': not an IP address or CIDR network: '300.1.1.1' does not "
                    "appear to be an IPv4 or IPv6 network"),
])
def test_malformed_expressions_say_what_and_where(expression, reason):
    with pytest.raises(ValueError) as caught:
        compile_compound(expression)
    assert str(caught.value) == reason


@pytest.mark.parametrize(("word", "parts"), [
    ("G@os:Ubuntu", ("G", ":", "os:Ubuntu")),
    ("G;@a;b", ("G", ";", "a;b")),
    ("E;@x", (None, ":", "E;@x")),  # only G, P, I and J name a delimiter
    ("web*", (None, ":", "web*")),
    ("X@foo", (None, ":", "X@foo")),  # not an engine letter: a glob, as in Salt
])
def test_split_word(word, parts):
    assert split_word(word) == parts
