"""A read-only mapping keyed by a plug-in's schema: the base of Properties and Attributes.

A resource's properties and attributes are mappings whose keys are the
names its schema declares, whether or not the template gives a value.
Listing them, counting them and ``in`` read the schema alone; only
``[key]`` computes a value (a property resolved and checked, an attribute
asked of the resource), which each subclass defines.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import Any, Generic, TypeVar

#: the key type: a schema's names (str), or a LIST's item indices (int)
K = TypeVar("K", bound=Hashable)


class SchemaKeyed(Mapping[K, Any], Generic[K]):
    """A mapping whose keys are those of ``self.schema``."""

    schema: Mapping[K, Any]

    def __iter__(self) -> Iterator[K]:
        return iter(self.schema)

    def __len__(self) -> int:
        return len(self.schema)

    def __contains__(self, key: object) -> bool:
        return key in self.schema
