"""What the engine service reads of stored templates: descriptions, parameters, requirements.

A stored template never changes (an update stores a new one), so what is
read of one is kept per raw template id.  It is the catalog's
(:attr:`Catalog.stored <hearth.engine.service.catalog.Catalog.stored>`):
the template side of the engine service, which the service loads at the
first template it validates or reads, never for a listing (``stackctl
--in-process stack-list``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.engine.stacks.prepare import StackIdentity, stored_context
from hearth.engine.template.resource_definition import required_by
from hearth.engine.template.template import DEFAULT_DESCRIPTION
from hearth.engine.template.versions import hidden_parameters, section_of

if TYPE_CHECKING:
    from hearth.db import models
    from hearth.engine.template.context import ResolutionContext


#: most raw templates whose description and requirements are kept
DESCRIPTION_CACHE_SIZE = 10000


class StoredTemplates:
    """The reads of stored templates, each kept for up to ``cache_size`` raw templates."""

    def __init__(self, cache_size: int = DESCRIPTION_CACHE_SIZE) -> None:
        self._cache_size = cache_size
        #: raw template id -> description
        self._descriptions: dict[int, Any] = {}
        #: raw template id -> ``{resource: names requiring it}``
        self._required: dict[int, dict[str, list[str]]] = {}

    @staticmethod
    def context(row: models.Stack, raw: models.RawTemplate) -> ResolutionContext:
        """Return the context of stack ``row``'s stored template ``raw`` (no resources built)."""
        return stored_context(raw.template, raw.files, raw.environment, StackIdentity.of(row))

    @staticmethod
    def hidden_parameters(template: Any) -> set[str]:
        """Return the names of a template's hidden parameters."""
        return set(hidden_parameters(template))

    def description(self, row: models.Stack, read: Callable[[], models.RawTemplate]) -> Any:
        """Return the description of ``row``'s stored template (Heat's default without one).

        ``read()`` reads the stored template (only when it is not kept already).
        """
        cached = self._descriptions.get(row.raw_template_id)
        if cached is None:
            template: Mapping[str, Any] = read().template
            cached = section_of(template, "description", "") or DEFAULT_DESCRIPTION
            self._keep(self._descriptions, row.raw_template_id, cached)
        return cached

    def required_by(self, row: models.Stack, read: Callable[[], models.RawTemplate]
                    ) -> dict[str, list[str]]:
        """Return ``{resource: names that require it}`` from the stored definitions alone."""
        cached = self._required.get(row.raw_template_id)
        if cached is None:
            context = self.context(row, read())
            cached = required_by(context.template.resource_definitions(context))
            self._keep(self._required, row.raw_template_id, cached)
        return {name: list(users) for name, users in cached.items()}

    def _keep(self, cache: dict[int, Any], key: int, value: Any) -> None:
        if len(cache) >= self._cache_size:
            cache.clear()
        cache[key] = value
