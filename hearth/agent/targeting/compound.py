"""Parse Salt's compound targets (``-C``) into one predicate on an agent.

Words are separated by whitespace (or given as a list).  A word is an
operator (``and``, ``or``, ``not``, ``(``, ``)``), a typed word such as
``G@os:Debian`` (the letters are :data:`~hearth.agent.targeting.matchers.COMPOUND_ENGINES`;
``G``, ``P``, ``I`` and ``J`` may name another delimiter: ``G;@ec2;tags;env;prod``),
``N@group`` (expanded in place, see :mod:`~hearth.agent.targeting.nodegroups`),
or anything else: a glob on the agent id.

Precedence is Salt's (Python's): ``not`` binds tightest, then ``and``, then
``or``; parentheses group.  As in Salt, ``not`` directly after a target or
``)`` means ``and not``, and ``not not`` is an error (write ``not ( not x )``).
Parentheses must be words of their own: Salt reads ``(web1`` as a glob that
matches nothing; Hearth says so instead.  Grammar::

    expression  := conjunction ("or" conjunction)*
    conjunction := negation (("and" negation) | negation-starting-with-"not")*
    negation    := "not" primary | primary
    primary     := "(" expression ")" | word
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.agent.targeting import matchers
from hearth.agent.targeting.facts import Predicate
from hearth.agent.targeting.nodegroups import OPERATORS, expand_nodegroup


def compile_compound(target: str | Sequence[str],
                     nodegroups: Mapping[str, Any] | None = None) -> Predicate:
    """Return the predicate of compound expression ``target`` (``ValueError`` when malformed)."""
    if isinstance(target, str):
        words = target.split()
    elif isinstance(target, (list, tuple)):
        words = [str(word) for word in target]
    else:
        raise ValueError(f"a compound target is a string or a list of words, "
                         f"not {type(target).__name__}")
    if not words:
        raise ValueError("the expression is empty")
    return _Parser(_expand_nodegroups(words, nodegroups)).parse()


def _expand_nodegroups(words: list[str], nodegroups: Mapping[str, Any] | None) -> list[str]:
    expanded: list[str] = []
    for word in words:
        if word.startswith("N@") and len(word) > 2:
            expanded.extend(expand_nodegroup(word[2:], nodegroups))
        else:
            expanded.append(word)
    return expanded


def compile_word(word: str) -> Predicate:
    """Return the predicate of one compound word (a typed ``X@pattern`` word or a glob)."""
    engine, delimiter, pattern = split_word(word)
    if engine is None:
        if word.startswith("(") or word.endswith(")"):
            raise ValueError(f"{word!r}: parentheses must be separate words, "
                             f"e.g. '( web1 or db1 )'")
        return matchers.compile_glob(word)
    target_type = matchers.COMPOUND_ENGINES[engine]
    if target_type is None:
        raise ValueError(f"{word!r}: the {engine}@ target type is not supported by Hearth")
    if not pattern:
        raise ValueError(f"{word!r}: {engine}@ needs a pattern after the '@'")
    try:
        return matchers.LEAF_COMPILERS[target_type](pattern, delimiter)
    except ValueError as error:
        raise ValueError(f"{word!r}: {error}") from None


def split_word(word: str) -> tuple[str | None, str, str]:
    """Split ``G@os:x`` or ``G;@os;x`` into (engine, delimiter, pattern); a glob has no engine."""
    letter = word[:1]
    if letter in matchers.COMPOUND_ENGINES:
        if word[1:2] == "@":
            return letter, matchers.DEFAULT_DELIMITER, word[2:]
        if letter in matchers.DELIMITED_ENGINES and len(word) > 2 and word[2] == "@":
            return letter, word[1], word[3:]
    return None, matchers.DEFAULT_DELIMITER, word


class _Parser:
    """Recursive descent over the words, building predicates (one instance per expression)."""

    def __init__(self, words: list[str]) -> None:
        self.words = words
        self.position = 0

    def parse(self) -> Predicate:
        predicate = self._expression()
        if self.position < len(self.words):
            raise ValueError(self._unexpected("'and' or 'or'"))
        return predicate

    def _peek(self) -> str | None:
        return self.words[self.position] if self.position < len(self.words) else None

    def _take(self) -> str:
        word = self.words[self.position]
        self.position += 1
        return word

    def _expression(self) -> Predicate:
        alternatives = [self._conjunction()]
        while self._peek() == "or":
            self._take()
            alternatives.append(self._conjunction())
        if len(alternatives) == 1:
            return alternatives[0]
        return lambda facts: any(p(facts) for p in alternatives)

    def _conjunction(self) -> Predicate:
        terms = [self._negation()]
        while self._peek() in ("and", "not"):
            if self._peek() == "and":
                self._take()
            terms.append(self._negation())
        if len(terms) == 1:
            return terms[0]
        return lambda facts: all(p(facts) for p in terms)

    def _negation(self) -> Predicate:
        if self._peek() != "not":
            return self._primary()
        self._take()
        if self._peek() == "not":
            raise ValueError(f"'not not' (word {self.position + 1}) is not valid compound "
                             f"syntax; write 'not ( not ... )'")
        operand = self._primary()
        return lambda facts: not operand(facts)

    def _primary(self) -> Predicate:
        word = self._peek()
        if word is None or (word in OPERATORS and word != "("):
            raise ValueError(self._unexpected("a target or '('"))
        self._take()
        if word != "(":
            return compile_word(word)
        opened_at = self.position
        inner = self._expression()
        if self._peek() != ")":
            if self._peek() is None:
                raise ValueError(f"'(' at word {opened_at} is never closed")
            raise ValueError(self._unexpected("'and', 'or' or ')'"))
        self._take()
        return inner

    def _unexpected(self, expected: str) -> str:
        word = self._peek()
        if word is None:
            previous = self.words[-1]
            return f"expected {expected} after {previous!r} at the end"
        return f"expected {expected} at word {self.position + 1}, found {word!r}"
