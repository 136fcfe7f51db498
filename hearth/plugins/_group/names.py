"""A resource group's member names and its skip-list of removed names.

Members are named by their index, "0", "1", ..., skipping every name on
the group's skip-list: names removed through ``removal_policies`` are never
given to a member again.  The skip-list is kept in the group's resource
data under :data:`SKIPLIST_KEY` as a sorted, comma-separated string (Heat's
key and format, so stored groups read the same).  ``removal_policies_mode``
says whether new removals add to it (``append``) or replace it
(``update``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from typing import Any

#: The resource data key of the skip-list (Heat's).
SKIPLIST_KEY = "name_blacklist"
REMOVAL_POLICY_MODES = (APPEND, UPDATE) = ("append", "update")
#: The key of one removal policy listing what to remove.
RESOURCE_LIST = "resource_list"


def parse_skiplist(stored: str | None) -> list[str]:
    """Return the names of a stored skip-list (empty when none is stored)."""
    return stored.split(",") if stored else []


def format_skiplist(names: Iterable[str]) -> str:
    """Return the stored form of a skip-list: its names sorted and comma-separated."""
    return ",".join(sorted(names))


def member_names(size: int, skipped: Container[str] = ()) -> list[str]:
    """Return the first ``size`` names "0", "1", ... that are not ``skipped``."""
    candidates = (str(index) for index in itertools.count())
    return list(itertools.islice((name for name in candidates if name not in skipped), size))


def removal_entries(policies: Iterable[Mapping[str, Any]] | None) -> Iterator[Any]:
    """Yield every item of every policy's ``resource_list``, in order."""
    for policy in policies or ():
        yield from (policy or {}).get(RESOURCE_LIST) or ()


def removed_names(policies: Iterable[Mapping[str, Any]] | None, skiplist: Container[str],
                  members: Container[str] | None,
                  refs_map: Callable[[], Mapping[str, Any]]) -> Iterator[str]:
    """Yield the member names the removal policies name.

    An item is taken as a name (numbers too) when it is on the skip-list,
    when the group has no nested stack yet (``members`` is None) or when a
    member has that name; otherwise a string is looked up among the
    members' reference ids (``refs_map()``: name -> id, read only then) and
    yields the name holding it.  Anything else names nothing.
    """
    refs: Mapping[str, Any] | None = None
    for item in removal_entries(policies):
        name = str(item)
        if members is None or name in skiplist or name in members:
            yield name
        elif isinstance(item, str):
            if refs is None:
                refs = refs_map() or {}
            yield from itertools.islice(
                (member for member, ref in refs.items() if ref == item), 1)


def next_skiplist(stored: Iterable[str], mode: str | None, removed: Iterable[str]) -> set[str]:
    """Return the skip-list after an action: ``removed`` added to it, or replacing it."""
    base = set() if mode == UPDATE else set(stored)
    return base | set(removed)


def count_skipped(skiplist: Iterable[str], existing: Iterable[str]) -> int:
    """Return how many existing members are on the skip-list."""
    return len(set(skiplist) & set(existing))
