"""Run the drivers of the configured providers: Salt Cloud's client.

:class:`Cloud` holds the cloud ``__opts__`` (see :mod:`hearth.clouds.config`)
and one loader of the ``clouds`` family per provider, with
``__active_provider_name__`` set to ``alias:driver``.  It applies the
calling conventions (an *action* takes a node name, a *function* a
provider), turns SDK errors into :class:`CloudExecutionFailure`, and hides
secrets in every answer.  Query answers have Salt's shape:
``{alias: {driver: {...}}}``.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hearth.clouds import agent_master, config, deploy, utils
from hearth.clouds.salt_names import utils_for
from hearth.common import config as hearth_config
from hearth.common import exception
from hearth.loader import CLOUD, Loader

LOG = logging.getLogger(__name__)

QUERIES = ("list_nodes", "list_nodes_full", "list_nodes_select")
NOT_ARGUMENTS = ("call", "kwargs")


def cloud_opts_from_conf(conf: Any = None) -> dict[str, Any]:
    """Build the cloud ``__opts__`` from Hearth's configuration and ``[cloud] config_dir``.

    Besides the providers and profiles, the options Salt's own drivers read
    on every call are always there: ``sock_dir`` (the directory of the event
    bus's socket), ``transport``, ``cachedir``, ``pki_dir`` (the master's
    keys) and ``conf_file`` (see :data:`hearth.clouds.config.DEFAULT_OPTS`).
    """
    conf = conf if conf is not None else hearth_config.CONF
    hearth_config.register_opts(conf)
    base = {"state_path": conf.state_path, "cachedir": f"{conf.state_path}/cache",
            "cloud_dirs": list(conf.cloud_dirs), "enable_zip_modules": conf.enable_zip_modules,
            "sock_dir": os.path.dirname(conf.bus.publish_socket) or ".",
            "pki_dir": conf.master.pki_dir}
    return config.load_cloud_opts(conf.cloud.config_dir, base)


def _required_positional(function: Callable[..., Any]) -> list[str]:
    parameters = inspect.signature(function).parameters.values()
    return [p.name for p in parameters if p.default is p.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            and p.name not in NOT_ARGUMENTS]


class Cloud:
    """The configured providers and their drivers.

    ``opts`` is the cloud ``__opts__`` (:func:`cloud_opts_from_conf`).
    """

    def __init__(self, opts: Mapping[str, Any]) -> None:
        self.opts = dict(opts)
        self._loaders: dict[str, Any] = {}

    @classmethod
    def from_conf(cls, conf: Any = None) -> Cloud:
        """Return a Cloud over Hearth's configuration."""
        return cls(cloud_opts_from_conf(conf))

    # --- configuration ---------------------------------------------------

    @property
    def provider_refs(self) -> list[str]:
        """Return every configured provider as ``alias:driver``, sorted."""
        return sorted(f"{alias}:{driver}" for alias, drivers in self.opts["providers"].items()
                      for driver in drivers)

    def secret_values(self) -> list[str]:
        """Return the credential values of every provider (hidden wherever they appear)."""
        return [str(value) for drivers in self.opts["providers"].values()
                for conf in drivers.values() for key, value in conf.items()
                if utils.is_secret_key(key) and isinstance(value, (str, int))]

    def scrub(self, value: Any) -> Any:
        """Return ``value`` with secrets and known credentials hidden."""
        return utils.scrub(value, self.secret_values())

    def providers(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Return the providers' configuration, secrets hidden."""
        return self.scrub(self.opts["providers"])

    def profiles(self) -> dict[str, dict[str, Any]]:
        """Return the profiles, secrets hidden."""
        return self.scrub(self.opts["profiles"])

    def resolve(self, reference: str) -> tuple[str, str]:
        """Return ``(alias, driver)`` of ``alias`` or ``alias:driver``."""
        return config.split_provider(reference, self.opts["providers"])

    def profile_vm(self, profile: str, name: str,
                   overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return the ``vm_`` of a node ``name`` made from ``profile`` (and ``overrides``)."""
        profiles = self.opts["profiles"]
        if profile not in profiles:
            known = ", ".join(sorted(profiles)) or "none"
            raise exception.CloudConfigError(
                f"Unknown cloud profile '{profile}' (configured: {known})."
                f"{exception.did_you_mean(profile, profiles)}")
        vm_ = config.merge(profiles[profile], overrides or {})
        return self.provider_vm(vm_["provider"], name, vm_)

    def provider_vm(self, reference: str, name: str,
                    settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return the ``vm_`` of a node ``name`` on provider ``reference``.

        As Salt Cloud's: the provider's configuration with ``settings`` (the
        profile and its overrides) on top, then ``name``, ``profile`` (None
        without one), ``provider`` and ``driver`` (both ``alias:driver``).
        """
        if not name:
            raise exception.CloudSystemExit("A node needs a name.")
        alias, driver = self.resolve(reference)
        provider = self.opts["providers"][alias][driver]
        vm_ = config.merge({"profile": None, **provider}, settings or {})
        return {**vm_, "name": name, "provider": f"{alias}:{driver}",
                "driver": f"{alias}:{driver}"}

    # --- drivers ---------------------------------------------------------

    def loader(self, alias: str, driver: str) -> Any:
        """Return the loader of provider ``alias:driver`` (made once)."""
        key = f"{alias}:{driver}"
        if key not in self._loaders:
            self._loaders[key] = Loader(CLOUD, self.opts, pack={
                "__active_provider_name__": key, "__utils__": utils_for(self.opts)})
        return self._loaders[key]

    def driver_function(self, alias: str, driver: str, name: str) -> Callable[..., Any]:
        """Return ``<driver>.<name>`` of a provider; raise why it is not available."""
        loader = self.loader(alias, driver)
        try:
            return loader[f"{driver}.{name}"]
        except exception.FunctionNotFound as error:
            drivers = sorted({*loader.modules, *loader.failures})
            if driver not in drivers:
                raise exception.CloudConfigError(
                    f"Cloud provider '{alias}' names the driver '{driver}', which no cloud "
                    f"driver module provides (drivers: {', '.join(drivers) or 'none'})."
                    f"{exception.did_you_mean(driver, drivers)}") from error
            raise exception.CloudSystemExit(
                f"The '{driver}' cloud driver (provider {alias}) has no '{name}' "
                "function.") from error

    def supports(self, reference: str, name: str) -> bool:
        """Return whether provider ``reference``'s driver has function ``name``."""
        alias, driver = self.resolve(reference)
        return f"{driver}.{name}" in self.loader(alias, driver)

    def load_failure(self, reference: str) -> exception.HearthException | None:
        """Return why the driver of ``reference`` does not load, or None when it does."""
        alias, driver = self.resolve(reference)
        try:
            self.driver_function(alias, driver, "list_nodes")
        except exception.HearthException as error:
            return error
        return None

    def _invoke(self, alias: str, driver: str, name: str, function: Callable[..., Any],
                *args: Any, **kwargs: Any) -> Any:
        """Call a driver function; SDK errors become CloudExecutionFailure, secrets hidden."""
        try:
            inspect.signature(function).bind(*args, **kwargs)
        except TypeError as error:
            raise exception.InvalidArguments(name=f"{driver}.{name}", message=str(error)) \
                from error
        try:
            return self.scrub(utils.simple_types(function(*args, **kwargs)))
        except exception.HearthException:
            raise
        except Exception as error:  # noqa: BLE001 - any SDK error is the provider's failure
            LOG.debug("cloud %s:%s %s failed", alias, driver, name, exc_info=True)
            raise exception.CloudExecutionFailure(self.scrub(
                f"{alias}:{driver} {name} failed: {type(error).__name__}: {error}")) from error

    def call_function(self, reference: str, name: str,
                      kwargs: Mapping[str, Any] | None = None) -> Any:
        """Call provider function ``name`` (``-f``) with ``kwargs``."""
        alias, driver = self.resolve(reference)
        function = self.driver_function(alias, driver, name)
        if _required_positional(function):
            raise exception.CloudSystemExit(utils.action_only_message(name))
        if utils.takes_argument(function, "kwargs"):
            return self._invoke(alias, driver, name, function, call="function",
                                kwargs=dict(kwargs or {}))
        if kwargs:
            raise exception.CloudSystemExit(f"The {name} function takes no KEY=VALUE arguments.")
        return self._invoke(alias, driver, name, function, call="function")

    def call_action(self, reference: str, name: str, node: str,
                    kwargs: Mapping[str, Any] | None = None) -> Any:
        """Call action ``name`` (``-a``) on ``node`` of provider ``reference``."""
        alias, driver = self.resolve(reference)
        function = self.driver_function(alias, driver, name)
        if not _required_positional(function):
            raise exception.CloudSystemExit(utils.function_only_message(name))
        if utils.takes_argument(function, "kwargs"):
            return self._invoke(alias, driver, name, function, node, kwargs=dict(kwargs or {}),
                                call="action")
        if kwargs:
            raise exception.CloudSystemExit(f"The {name} action takes no KEY=VALUE arguments.")
        return self._invoke(alias, driver, name, function, node, call="action")

    # --- node life cycle -------------------------------------------------

    def create(self, vm_: Mapping[str, Any]) -> dict[str, Any]:
        """Create the node ``vm_`` describes (see :meth:`profile_vm`); return its details.

        A node whose agent could not be deployed is destroyed (and its key
        at the master deleted) unless ``keep_on_failure`` says otherwise;
        the error says which.
        """
        alias, driver = self.resolve(vm_["driver"])
        function = self.driver_function(alias, driver, "create")
        vm_ = deploy.prepare_user_data(vm_, self.opts)
        try:
            return self._invoke(alias, driver, "create", function, dict(vm_))
        except exception.CloudDeployFailed as failure:
            raise self._after_failed_deploy(vm_, failure) from failure

    def _after_failed_deploy(self, vm_: Mapping[str, Any],
                             failure: exception.CloudDeployFailed) -> exception.CloudDeployFailed:
        """Destroy the node of a failed deploy (unless kept); return the error to raise."""
        name = str(vm_["name"])
        try:
            node_id = self.call_function(vm_["driver"], "list_nodes").get(name, {}).get("id")
        except exception.HearthException:
            node_id = None
        node = f"the node {node_id}" if node_id else "the node"
        if utils.keep_on_failure(vm_, self.opts):
            note = (f"{node} is kept (keep_on_failure): destroy it with 'stackctl "
                    f"cloud-destroy {name}'")
        else:
            try:
                self.destroy_and_wait(vm_["driver"], name, 60, node_id=node_id)
                note = f"{node} was destroyed"
            except exception.HearthException as error:
                note = f"destroying {node} failed too: {error}"
            agent_master.forget(agent_master.settings_for(vm_, self.opts), name)
        return exception.CloudDeployFailed(failure.node, failure.stage,
                                           f"{failure.reason} ({note})", failure.output)

    def run_profile(self, profile: str, names: Sequence[str],
                    overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Create nodes ``names`` from ``profile``, as ``salt-cloud -p``: ``{name: node}``.

        A name some provider already has is not created again: its entry is
        ``{"Error": "<name> already exists under <alias:driver>"}``.  With
        several names a failed create is recorded the same way and the
        others go on; a single name's failure is raised.
        """
        vms = [self.profile_vm(profile, name, overrides) for name in names]
        owners = self.node_owners()
        answer: dict[str, Any] = {}
        for vm_ in vms:
            name = vm_["name"]
            if name in owners:
                answer[name] = {"Error": f"{name} already exists under {owners[name]}"}
                continue
            try:
                answer[name] = self.create(vm_)
            except exception.HearthException as error:
                if len(vms) == 1:
                    raise
                answer[name] = {"Error": str(error)}
            owners[name] = vm_["driver"]
        return answer

    def query(self, kind: str = "list_nodes",
              selection: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        """Return ``{alias: {driver: nodes}}`` over every provider that answers.

        A provider whose driver does not load, or whose query fails (bad
        credentials, a dead endpoint), is logged and skipped, as Salt Cloud
        does: one broken provider never hides the others' nodes.
        """
        if kind not in QUERIES:
            raise exception.CloudSystemExit(f"Unknown query {kind!r} (one of {', '.join(QUERIES)})")
        if selection is not None:
            self.opts["query.selection"] = list(selection)
            self._loaders.clear()
        answer: dict[str, dict[str, Any]] = {}
        for reference in self.provider_refs:
            alias, driver = reference.split(":")
            try:
                nodes = self._query_one(reference, kind)
            except exception.HearthException as error:
                LOG.warning("cloud provider %s skipped: %s", reference, error)
                continue
            answer.setdefault(alias, {})[driver] = nodes
        return answer

    def node_owners(self) -> dict[str, str]:
        """Return ``{node name: alias:driver}`` over every provider that answers."""
        return {name: f"{alias}:{driver}" for alias, drivers in self.query("list_nodes").items()
                for driver, nodes in drivers.items() for name in nodes}

    def _query_one(self, reference: str, kind: str) -> dict[str, Any]:
        """Run query ``kind``; a driver without it answers from the plainer listing."""
        if kind == "list_nodes" or self.supports(reference, kind):
            return self.call_function(reference, kind)
        if kind == "list_nodes_select":
            return utils.list_nodes_select(self._query_one(reference, "list_nodes_full"),
                                           self.opts.get("query.selection"))
        return self.call_function(reference, "list_nodes")

    def locate(self, name: str, owners: Mapping[str, str] | None = None) -> str:
        """Return the ``alias:driver`` of the provider that has node ``name``."""
        owner = (self.node_owners() if owners is None else owners).get(name)
        if owner is None:
            raise exception.CloudNodeNotFound(name)
        return owner

    def run_action(self, name: str, nodes: Sequence[str],
                   kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run action ``name`` on each node (found by listing): ``{alias: {driver: ...}}``."""
        answer: dict[str, Any] = {}
        owners = self.node_owners()
        for node in nodes:
            reference = self.locate(node, owners)
            alias, driver = reference.split(":")
            result = self.call_action(reference, name, node, kwargs)
            answer.setdefault(alias, {}).setdefault(driver, {})[node] = result
        return answer

    def destroy(self, nodes: Sequence[str]) -> dict[str, Any]:
        """Destroy each node; answer ``{alias: {driver: {node: result}}}``."""
        return self.run_action("destroy", nodes)

    # --- what a server resource does (on its worker thread) -----------------

    def has_node(self, reference: str, name: str) -> bool:
        """Return whether provider ``reference`` lists node ``name`` (Salt's test of existence)."""
        return name in self.call_function(reference, "list_nodes")

    def create_or_adopt(self, vm_: Mapping[str, Any], adopt: bool) -> dict[str, Any]:
        """Create node ``vm_``; one already under its name is adopted when ``adopt``.

        A server's stack-unique name is only ever its own, so a node found
        under it was left by an engine that died mid-create: adopt it.  A
        name the template chose may be another's: refuse it.
        """
        if not self.has_node(vm_["driver"], vm_["name"]):
            return self.create(vm_)
        if not adopt:
            raise exception.CloudNodeExists(vm_["name"], vm_["driver"])
        found = self.call_action(vm_["driver"], "show_instance", vm_["name"])
        return {**found, "adopted": True}

    def destroy_and_wait(self, reference: str, name: str, timeout: float,
                         forget_agent: bool = False, node_id: str | None = None) -> None:
        """Destroy node ``name`` and wait until it is gone (already gone is success).

        With ``forget_agent`` (a deployed node) its agent's key at the master
        is deleted too, as ``salt-cloud -d`` deletes the minion's key.  With
        ``node_id`` (the id the caller made), a node of that name with another
        id is someone else's and is left alone, its agent too.
        """
        if not self._may_destroy(reference, name, node_id):
            return
        if forget_agent:

            settings = agent_master.settings_for({"name": name, "driver": reference}, self.opts)
            try:
                self._destroy_and_wait(reference, name, timeout)
            finally:
                agent_master.forget(settings, name)
            return
        self._destroy_and_wait(reference, name, timeout)

    def _may_destroy(self, reference: str, name: str, node_id: str | None) -> bool:
        """Return False when the node listed under ``name`` has an id other than ``node_id``."""
        if not node_id:
            return True
        found = self.call_function(reference, "list_nodes").get(name)
        if found is None or str(found.get("id") or "") in ("", str(node_id)):
            return True
        LOG.warning("cloud node %s on %s is %s, not %s: not destroyed", name, reference,
                    found.get("id"), node_id)
        return False

    def _destroy_and_wait(self, reference: str, name: str, timeout: float) -> None:
        try:
            self.call_action(reference, "destroy", name)
        except (exception.CloudNodeNotFound, exception.CloudNotFound):
            return

        def gone() -> Any:
            return True if not self.has_node(reference, name) else None

        utils.wait_for_ip(gone, timeout=timeout, interval=0.2)

    def make_room(self, reference: str, name: str, new_name: str, timeout: float,
                  node_id: str | None = None, forget_agent: bool = False) -> dict[str, Any]:
        """Free ``name`` for another node: rename the node ``new_name``, else destroy it.

        Answer ``{"renamed": new_name}``, ``{"destroyed": True}`` (its agent's
        key forgotten with ``forget_agent``), or ``{}`` when no node of ours
        has the name.
        """
        if not self.has_node(reference, name) or not self._may_destroy(reference, name, node_id):
            return {}
        if self.supports(reference, "rename"):
            self.call_action(reference, "rename", name, {"newname": new_name})
            return {"renamed": new_name}
        self.destroy_and_wait(reference, name, timeout, forget_agent, node_id)
        return {"destroyed": True}

    def act_and_show(self, reference: str, name: str, action: str,
                     kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run ``action`` on node ``name`` (none: only show it); return its details after."""
        if action:
            self.call_action(reference, action, name, kwargs)
        return self.call_action(reference, "show_instance", name)
