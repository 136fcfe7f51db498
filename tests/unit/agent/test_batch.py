"""Batch sizes against figures recorded from Salt 3008.3 (``salt.utils.batch_state``)."""

import pytest

from hearth.agent.batch import batch_rounds, batch_size
from hearth.common.exception import InvalidBatchSize

#: (spec, targeted agents, size Salt 3008.3 answered)
SALT_FIGURES = [
    ("10", 50, 10), ("1", 5, 1), ("0", 5, 1), ("-3", 5, 1), ("25%", 50, 12), ("25%", 10, 2),
    ("10%", 5, 1), ("1%", 50, 1), ("%10", 50, 5), ("33.3%", 10, 3), ("100%", 7, 7),
    ("150%", 4, 6), ("50%", 0, 1), ("3", 0, 3), (3, 10, 3), ("10 %", 20, 2),
]


@pytest.mark.parametrize(("spec", "total", "expected"), SALT_FIGURES)
def test_batch_size_agrees_with_salt(spec, total, expected):
    assert batch_size(spec, total) == expected


@pytest.mark.parametrize("spec", ["2.5", "abc", "", "%", None, True, [3]])
def test_invalid_spec_is_named(spec):
    with pytest.raises(InvalidBatchSize) as caught:
        batch_size(spec, 5)
    assert str(caught.value) == (
        f"Invalid batch size {spec!r}: use a number of agents (e.g. 10) or a percentage of "
        f"the targeted agents (e.g. 25%).")


@pytest.mark.parametrize(("spec", "total", "rounds"), [
    ("2", 5, 3), ("50%", 5, 3), ("10", 5, 1), ("1", 0, 0), ("34%", 3, 3)])
def test_batch_rounds(spec, total, rounds):
    assert batch_rounds(spec, total) == rounds
