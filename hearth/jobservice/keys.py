"""KeyService: who may list, accept, reject and delete the master's agent keys.

The master keeps agent keys as salt-key does, in four categories; this
service answers in Salt's names for them (:data:`SALT_CATEGORIES`: the keys
of ``salt-key -L --out json``) for ``stackctl key-*`` (locally, or ``--url``
through hearth-api's ``/keys`` routes) and the console's keys page.

* The local user, who holds the master's client key, may do everything, as
  root does with ``salt-key``.
* An API project may call a key operation only where its publisher_acl
  grants the matching wheel function (:data:`WHEEL_FUNCTIONS`, Salt's names)
  under a ``'@wheel'`` entry, as Salt's ``external_auth`` grants wheel
  functions; a key operation acts on the master's keys, not on a target,
  so a grant is for every key.  Recording grains at acceptance stays the
  local user's (recorded grains decide which pillar an agent gets).

Refusals are :class:`~hearth.common.exception.JobRefused` (HTTP 403) naming
the project, what it asked and the wheel function it lacks.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.jobservice.callers import ApiProject, Caller, LocalUser
from hearth.jobservice.publisher_acl import read_acl_file

if TYPE_CHECKING:
    from hearth.jobservice.service import JobService

LOG = logging.getLogger(__name__)

#: The master's key categories -> Salt's (``salt-key -L --out json``), in salt-key's order.
SALT_CATEGORIES = {"accepted": "minions", "denied": "minions_denied",
                   "pending": "minions_pre", "rejected": "minions_rejected"}
#: Salt's category -> how salt-key titles it (``Accepted Keys:``).
CATEGORY_TITLES = {"minions": "Accepted", "minions_denied": "Denied",
                   "minions_pre": "Unaccepted", "minions_rejected": "Rejected"}
#: The file name of the master's own public key, under ``local`` in a fingerprint listing.
MASTER_KEY_NAME = "master.key"
#: Key operation -> the wheel function (Salt's name) an API project must be granted.
WHEEL_FUNCTIONS = {"list": "key.list_all", "accept": "key.accept", "reject": "key.reject",
                   "delete": "key.delete", "finger": "key.finger",
                   "finger_master": "key.finger_master"}


def salt_listing(listing: Mapping[str, Any]) -> dict[str, Any]:
    """Return a master's per-category answer under Salt's category names, in salt-key's order."""
    return {salt: listing[category] for category, salt in SALT_CATEGORIES.items()}


class KeyService:
    """The master's agent keys, with the JobService's callers and master (``jobs.keys``)."""

    def __init__(self, jobs: JobService) -> None:
        self.jobs = jobs

    def list_keys(self, caller: Caller) -> dict[str, list[str]]:
        """Return the agent ids by Salt's key category (``salt-key -L``)."""
        self._authorize(caller, "list", "list the agent keys")
        with self.jobs.master_client() as client:
            return salt_listing(client.list_keys())

    def accept_keys(self, caller: Caller, match: str, include_rejected: bool = False,
                    grains: Mapping[str, Any] | None = None) -> list[str]:
        """Accept the pending keys whose ids match the glob ``match``; return the ids.

        ``include_rejected`` accepts matching rejected keys too; ``grains``
        are recorded master-side for each (the local user's right only).

        :raises AgentKeyNotFound: no key of that category matches.
        """
        match = _match(match)
        self._authorize(caller, "accept", f"accept the keys matching {match!r}", match)
        if grains and not isinstance(caller, LocalUser):
            raise exception.JobRefused(
                str(caller), f"record grains of the agents matching {match!r}",
                "recorded grains decide which pillar an agent gets; only the master's "
                "operator may set them.", target=match)
        with self.jobs.master_client() as client:
            ids = list(client.accept_key(match, include_rejected=include_rejected,
                                         grains=dict(grains or {})))
        return _acted(caller, "accepted", ids)

    def reject_keys(self, caller: Caller, match: str) -> list[str]:
        """Reject the pending and accepted keys matching ``match``; return the ids.

        Connected agents whose key is rejected are cut off at once.
        """
        match = _match(match)
        self._authorize(caller, "reject", f"reject the keys matching {match!r}", match)
        with self.jobs.master_client() as client:
            ids = list(client.reject_key(match))
        return _acted(caller, "rejected", ids)

    def delete_keys(self, caller: Caller, match: str) -> list[str]:
        """Delete the keys matching ``match`` in every category; return the ids."""
        match = _match(match)
        self._authorize(caller, "delete", f"delete the keys matching {match!r}", match)
        with self.jobs.master_client() as client:
            ids = list(client.delete_key(match))
        return _acted(caller, "deleted", ids)

    def key_fingers(self, caller: Caller, match: str = "*") -> dict[str, dict[str, str]]:
        """Return the fingerprints of the keys matching ``match`` (``salt-key -F``, ``-f``).

        By Salt's category, each ``{id: fingerprint}``, and ``local``: the
        master's own key (a ``'*'`` match only, as ``salt-key -F`` shows it).
        """
        match = _match(match)
        self._authorize(caller, "finger", f"read the fingerprints of the keys matching "
                                          f"{match!r}", match)
        with self.jobs.master_client() as client:
            answer = client.key_fingers(match)
        fingers = salt_listing(answer)
        if match == "*":
            return {"local": {MASTER_KEY_NAME: answer["local"]["fingerprint"]}, **fingers}
        return fingers

    def master_finger(self, caller: Caller) -> dict[str, str]:
        """Return the master's public key and its fingerprint (``[agent] master_finger``)."""
        self._authorize(caller, "finger_master", "read the master's key fingerprint")
        with self.jobs.master_client() as client:
            return dict(client.master_finger())

    def _authorize(self, caller: Caller, operation: str, action: str,
                   target: str = "") -> None:
        """Return if ``caller`` may do the key ``operation``; else raise JobRefused."""
        if not isinstance(caller, ApiProject):
            return
        function = WHEEL_FUNCTIONS[operation]
        if not self.jobs.settings.acl_file:
            raise exception.JobRefused(
                str(caller), action, "agent keys are the master operator's; no [api] "
                "publisher_acl_file grants a project any key function.", function=function,
                target=target)
        read_acl_file(self.jobs.settings.acl_file).check_wheel(caller.project_id, function,
                                                               action)


def _acted(caller: Caller, done: str, ids: list[str]) -> list[str]:
    """Log who changed which keys (the master logs what changed, not who asked); return ids."""
    LOG.info("%s %s the keys of %s", caller, done, ", ".join(ids))
    return ids


def _match(match: Any) -> str:
    """Return the glob of a key operation; an empty one is a BadRequest."""
    if not isinstance(match, str) or not match.strip():
        raise exception.BadRequest(message="Give an agent id or a glob of agent ids "
                                           "(match), e.g. 'web*'.")
    return match
