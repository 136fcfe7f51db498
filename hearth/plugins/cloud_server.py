"""Hearth::Cloud::Server: a node made by a cloud driver (``hearth.clouds``).

Every driver call (create, destroy, stop/start, resize, show) runs on a
worker thread (:class:`~hearth.plugins._blocking.BlockingCall`), so a
blocking SDK never stalls the engine; ``check_<action>_complete`` polls it.
The driver's events (``hearth/cloud/<name>/<stage>``) are captured from
the worker thread, published on the engine's bus and written to the
stack's event stream as status reasons.

The node's name is stack-unique by default (``<stack>-<resource>-<short
id>``), which is how a node survives an engine crash: the engine that
takes the create over (or the next create of the same resource) adopts the
node found under that name, and a delete destroys it even when the crash
came before its id was recorded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hearth import bus
from hearth.clouds import config, utils
from hearth.common import config as hearth_config
from hearth.common import exception
from hearth.engine import attributes, properties, resource, support
from hearth.plugins._blocking import RUNNING, BlockingCall
from hearth.plugins.exec_call import stack_jobs

DATA_KEY = "cloud"
#: What a node's deploy reported, kept across later show_instance answers.
DEPLOY_KEYS = frozenset({"deployed", "agent_id", "deploy_kwargs", "deploy_seconds",
                         "ssh_host_key", "deploy_user"})
#: Seconds between two polls of a running driver call.
POLL_DELAY = 0.05


def node_timeout() -> float:
    """Return ``[cloud] node_timeout``."""
    hearth_config.register_opts()
    return hearth_config.CONF.cloud.node_timeout


def new_cloud() -> Any:
    """Return a Cloud over the configuration (providers and profiles read afresh)."""
    # lazy: the cloud runtime (drivers, deploy, keys, psutil: 45 ms) only when a node is made
    from hearth.clouds.cloud import Cloud

    return Cloud.from_conf()


class CloudServer(resource.Resource):
    """A server (node) on a cloud provider, made by one of Hearth's cloud drivers.

    Name a ``profile`` (from ``cloud.profiles.d``) or a ``provider`` (from
    ``cloud.providers.d``) and the node's ``image``, ``size`` and
    ``location``.  ``size`` changes in place where the driver can resize;
    other changes replace the server (the new one is created first).
    Suspend and resume stop and start the node.  With the ``local`` driver
    the node is a hearth-agent process, ready once its agent answers.
    """

    support_status = support.SupportStatus(version="2026.1")

    PROPERTIES = (PROVIDER, PROFILE, IMAGE, SIZE, LOCATION, NAME, AGENT, TAGS, USER_DATA) = (
        "provider", "profile", "image", "size", "location", "name", "agent", "tags",
        "user_data")
    ATTRIBUTES = (ID, NAME_ATTR, STATE, PUBLIC_IPS, PRIVATE_IPS, AGENT_ID, EXTRA) = (
        "id", "name", "state", "public_ips", "private_ips", "agent_id", "extra")

    properties_schema = {
        PROVIDER: properties.Schema(properties.Schema.STRING,
                                    "The cloud provider, as alias or alias:driver."),
        PROFILE: properties.Schema(properties.Schema.STRING,
                                   "The cloud profile (its provider, image, size...)."),
        IMAGE: properties.Schema(properties.Schema.STRING, "The image, by id or name."),
        SIZE: properties.Schema(properties.Schema.STRING,
                                "The size; changed in place where the driver can resize.",
                                update_allowed=True),
        LOCATION: properties.Schema(properties.Schema.STRING, "The location (region, zone)."),
        NAME: properties.Schema(properties.Schema.STRING,
                                "The node's name. Default: <stack>-<resource>-<short id>."),
        AGENT: properties.Schema(properties.Schema.MAP,
                                 "Agent configuration of the node; its 'grains' key sets "
                                 "the agent's grains (local driver)."),
        TAGS: properties.Schema(properties.Schema.MAP, "Tags (metadata) of the node."),
        USER_DATA: properties.Schema(properties.Schema.STRING, "User data of the node."),
    }

    attributes_schema = {
        ID: attributes.Schema("The node's id at the provider.", attributes.Schema.STRING),
        NAME_ATTR: attributes.Schema("The node's name.", attributes.Schema.STRING),
        STATE: attributes.Schema("The node's state (RUNNING, STOPPED...) at the last action.",
                                 attributes.Schema.STRING),
        PUBLIC_IPS: attributes.Schema("The node's public IP addresses.",
                                      attributes.Schema.LIST),
        PRIVATE_IPS: attributes.Schema("The node's private IP addresses.",
                                       attributes.Schema.LIST),
        AGENT_ID: attributes.Schema("The id of the node's agent (for Hearth::Exec::Call "
                                    "targets), when it has one.", attributes.Schema.STRING),
        EXTRA: attributes.Schema("Provider-specific details of the node.",
                                 attributes.Schema.MAP),
    }

    #: builds the Cloud client (a seam for tests).
    cloud_factory = staticmethod(new_cloud)

    # --- validation and names ----------------------------------------------

    def validate(self) -> None:
        """Check the properties: exactly one of provider and profile, and that it exists."""
        super().validate()
        given = [key for key in (self.PROVIDER, self.PROFILE) if self.properties[key]]
        if len(given) != 1:
            raise exception.StackValidationFailed(
                f"Exactly one of {self.PROVIDER} and {self.PROFILE} must be given "
                f"(got {', '.join(given) or 'neither'}).", path=[self.name, "properties"])
        key = given[0]
        try:
            cloud = self.cloud_factory()
            if key == self.PROFILE:
                cloud.profile_vm(self.properties[key], "validation")
            else:
                cloud.resolve(self.properties[key])
        except exception.CloudConfigError as error:
            raise exception.StackValidationFailed(
                str(error), path=[self.name, "properties", key]) from error

    def node_name(self) -> str:
        """Return the node's name: as stored, else the ``name`` property, else stack-unique.

        The stored name differs from the property once the node was renamed
        to make room for its replacement (:meth:`prepare_for_replace`).
        """
        return (self._stored().get("name") or self.properties[self.NAME]
                or str(self.physical_resource_name()))

    def _vm(self, cloud: Any, props: properties.Properties) -> dict[str, Any]:
        settings = {key: props[key] for key in (self.IMAGE, self.SIZE, self.LOCATION,
                                                self.TAGS, self.USER_DATA)
                    if props[key] is not None}
        agent = dict(props[self.AGENT] or {})
        given = agent.pop("grains", None)
        if given is not None:
            settings["grains"] = given
        if agent:
            settings["agent"] = agent
        if props[self.PROFILE]:
            vm_ = cloud.profile_vm(props[self.PROFILE], self.node_name(), settings)
        else:
            vm_ = cloud.provider_vm(props[self.PROVIDER], self.node_name(), settings)
        return self._with_recorded_grains(cloud, vm_, dict(given or {}))

    def _with_recorded_grains(self, cloud: Any, vm_: dict[str, Any],
                              given: dict[str, Any]) -> dict[str, Any]:
        """Say which grains the master records as true: the stack owner's JobService decides."""
        configured = config.get_cloud_config_value(
            "grains", {key: value for key, value in vm_.items() if key != "grains"},
            cloud.opts) or {}
        jobs = stack_jobs(self.stack, self.name)
        return {**vm_, "recorded_grains": jobs.recordable_grains(dict(configured), given)}

    # --- what is stored --------------------------------------------------------

    def _stored(self) -> dict[str, Any]:
        raw = self.data_get().get(DATA_KEY)
        if not raw:
            return {}
        return json.loads(raw) if isinstance(raw, str) else dict(raw)

    def _store(self, reference: str, node: Mapping[str, Any] | None,
               expected_state: str | None = None) -> None:
        stored = self._stored()
        stored.update(provider=reference, name=self.node_name())
        if node is not None:
            # a later show_instance knows nothing of the deploy: keep what it reported
            kept = {key: value for key, value in (stored.get("node") or {}).items()
                    if key in DEPLOY_KEYS}
            stored["node"] = {**kept, **dict(node)}
        if expected_state is not None:
            stored["expected_state"] = expected_state
        self.data_set(DATA_KEY, json.dumps(stored, default=str))

    def _reference(self, cloud: Any) -> str:
        """Return the node's provider as ``alias:driver`` (stored, else from the properties)."""
        stored = self._stored().get("provider")
        if stored:
            return stored
        if self.properties[self.PROFILE]:
            return cloud.profile_vm(self.properties[self.PROFILE], self.node_name())["driver"]
        alias, driver = cloud.resolve(self.properties[self.PROVIDER])
        return f"{alias}:{driver}"

    # --- driver calls and their events ------------------------------------------

    def _start(self, what: str, fn: Any, *args: Any) -> BlockingCall:
        """Run ``fn(*args)`` on a worker thread, capturing the node's driver events."""
        queue = utils.capture_events(self._event_prefix())
        call = BlockingCall.start(self.stack, f"{what} of node {self.node_name()}",
                                  node_timeout(), fn, *args)
        call.context = queue
        return call

    def _event_prefix(self) -> str:
        return f"hearth/cloud/{self.node_name()}/"

    def _relay_events(self, queue: Any) -> None:
        """Publish the captured driver events and record each as a status reason."""
        while queue:
            event = queue.popleft()
            bus.publish(event.tag, event.data)
            stage = event.tag.rsplit("/", 1)[-1]
            self.status_reason = f"Cloud node {self.node_name()}: {stage}"
            self.stack.record_resource_state(self)

    def _poll(self, call: BlockingCall | None) -> Any:
        """Relay events; return RUNNING while ``call`` runs, else its result (or raise)."""
        if call is None:
            return None
        self._relay_events(call.context)
        try:
            result = call.poll(self.stack)
        except Exception:
            utils.release_events(self._event_prefix())
            self._relay_events(call.context)
            raise
        if result is not RUNNING:
            utils.release_events(self._event_prefix())
            self._relay_events(call.context)
        return result

    def _finished(self, call: BlockingCall | None, reference: str | None = None,
                  expected_state: str | None = None) -> Any:
        """Return a poll delay while ``call`` runs, else True, storing the node it returned."""
        result = self._poll(call)
        if result is RUNNING:
            return POLL_DELAY
        if isinstance(result, Mapping) and reference is not None:
            self._store(reference, result, expected_state)
        return True

    # --- the plug-in contract ---------------------------------------------------

    def handle_create(self) -> tuple[BlockingCall, str]:
        """Start creating the node (or adopting the one a crashed engine left)."""
        return self._create(adopt=not self.properties[self.NAME])

    def _create(self, adopt: bool) -> tuple[BlockingCall, str]:
        cloud = self.cloud_factory()
        vm_ = self._vm(cloud, self.properties)
        self._store(vm_["driver"], None)
        return self._start("create", cloud.create_or_adopt, vm_, adopt), vm_["driver"]

    def handle_create_continue(self) -> tuple[BlockingCall, str]:
        """Continue a create another engine began: adopt the node it made, else make it.

        A node under the stack-unique name is this resource's; under a
        ``name`` given in the template, it is only when the dead engine had
        stored that its create started (else the name may be another's node,
        and the create fails as a fresh one would).
        """
        return self._create(adopt=not self.properties[self.NAME]
                            or bool(self._stored().get("provider")))

    # stopping a stopped node, starting a started one, resizing to the size it has: the
    # driver's call again brings the node where the action was taking it
    def handle_suspend_continue(self) -> Any:
        """Continue a suspend another engine began (stop the node again)."""
        return self.handle_suspend()

    def handle_resume_continue(self) -> Any:
        """Continue a resume another engine began (start the node again)."""
        return self.handle_resume()

    def check_create_complete(self, cookie: tuple[BlockingCall, str]) -> Any:
        """Return True once the node runs (and, for local, its agent answers)."""
        call, reference = cookie
        try:
            done = self._finished(call, reference, "RUNNING")
        except exception.CloudNodeExists:
            self._disown()
            raise
        if done is True:
            node = self._stored().get("node") or {}
            self.resource_id_set(node.get("id") or self.node_name())
        return done

    def _disown(self) -> None:
        """Record that the node under this resource's name is another's: never destroy it."""
        stored = self._stored()
        stored["owns_node"] = False
        self.data_set(DATA_KEY, json.dumps(stored, default=str))

    def handle_delete(self) -> BlockingCall | None:
        """Destroy the node and wait until it is gone (found by name, id or not).

        A resource whose create found the name taken by another node owns
        nothing and destroys nothing; nor does one whose chosen name never
        got a node id recorded (the name may be another resource's node,
        such as its replacement's); a node under the name with another id
        than the recorded one is left alone.
        """
        stored = self._stored()
        node_id = (stored.get("node") or {}).get("id")
        if stored.get("owns_node") is False or stored.get("node_destroyed") or \
                (self.properties[self.NAME] and not node_id):
            return None
        cloud = self.cloud_factory()
        reference = self._reference(cloud)
        return self._start("delete", cloud.destroy_and_wait, reference, self.node_name(),
                           node_timeout(), self._has_remote_agent(stored, reference), node_id)

    @staticmethod
    def _has_remote_agent(stored: Mapping[str, Any], reference: str) -> bool:
        """Return whether the node got an agent by deploy (its key goes with the node)."""
        return bool((stored.get("node") or {}).get("agent_id")) and \
            not reference.endswith(":local")

    def check_delete_complete(self, call: BlockingCall | None) -> Any:
        """Return True once the node is gone."""
        return self._finished(call)

    def _node_action(self, action: str, kwargs: Mapping[str, Any] | None = None) -> Any:
        cloud = self.cloud_factory()
        reference = self._reference(cloud)
        if action and not cloud.supports(reference, action):
            raise exception.NotSupported(
                feature=f"The {action} action of the {reference.split(':')[1]} cloud driver "
                        f"(server {self.name})")
        return self._start(action or "show", cloud.act_and_show, reference, self.node_name(),
                           action, kwargs), reference

    def handle_suspend(self) -> Any:
        """Stop the node."""
        return self._node_action("stop")

    def check_suspend_complete(self, cookie: Any) -> Any:
        """Return True once the node is stopped."""
        return self._finished(*cookie, "STOPPED")

    def handle_resume(self) -> Any:
        """Start the node again."""
        return self._node_action("start")

    def check_resume_complete(self, cookie: Any) -> Any:
        """Return True once the node runs again."""
        return self._finished(*cookie, "RUNNING")

    def handle_check(self) -> Any:
        """Ask the driver for the node (show_instance)."""
        return self._node_action("")

    def check_check_complete(self, cookie: Any) -> Any:
        """Compare the node with what the resource expects; raise on a difference."""
        done = self._finished(*cookie)
        if done is not True:
            return done
        stored = self._stored()
        node = stored.get("node") or {}
        expected = stored.get("expected_state") or "RUNNING"
        problems = []
        if node.get("state") != expected:
            problems.append(f"state is {node.get('state')}, expected {expected}")
        size = self.properties[self.SIZE]
        if size and size not in (node.get("size"), node.get("size_id")):
            problems.append(f"size is {node.get('size')}, expected {size}")
        if problems:
            raise exception.ResourceInError(resource_status=node.get("state"),
                                            status_reason="; ".join(problems))
        return True

    def needs_replace_with_prop_diff(self, changed_properties: set[str],
                                     after_props: properties.Properties,
                                     before_props: properties.Properties) -> bool:
        """Replace on a size change when the driver cannot resize in place."""
        if self.SIZE not in changed_properties:
            return False
        cloud = self.cloud_factory()
        reference = self._reference(cloud)
        if not cloud.supports(reference, "resize"):
            return True
        if cloud.supports(reference, "capabilities"):
            return "resize" not in cloud.call_function(reference, "capabilities")
        return False

    def needs_replace_failed(self) -> bool:
        """Replace a failed server only when its node is gone or unwell (as Heat's servers).

        A failed resize or stop leaves a node that runs (the drivers start
        it again): the next update keeps it, and with it its disk.
        """
        if self.action not in (self.UPDATE, self.SUSPEND, self.RESUME) or not self.resource_id:
            return True
        stored = self._stored()
        if stored.get("owns_node") is False or stored.get("node_destroyed"):
            return True
        cloud = self.cloud_factory()
        try:
            node = cloud.call_action(self._reference(cloud), "show_instance", self.node_name())
        except exception.HearthException:
            return True
        return node.get("state") not in ("RUNNING", "STOPPED")

    def needs_replace(self, after_props: properties.Properties) -> bool:
        """Replace a server whose node was destroyed to make room (a rollback builds it again)."""
        return bool(self._stored().get("node_destroyed"))

    def prepare_for_replace(self, after: Any = None) -> Any:
        """Free the node's name for the replacement when both have the name the template chose.

        The replacement is created first, under that name: the node is
        renamed ``<name>-replaced-<id>`` where the driver can rename (and is
        deleted under that name after), else destroyed now.
        """
        stored = self._stored()
        if not self.properties[self.NAME] or not self.resource_id or \
                stored.get("owns_node") is False or stored.get("node_destroyed"):
            return None
        if after is not None and self.make_properties(after)[self.NAME] != self.node_name():
            return None
        cloud = self.cloud_factory()
        name, reference = self.node_name(), self._reference(cloud)
        return self._start("make room", cloud.make_room, reference, name,
                           f"{name}-replaced-{self.uuid[:8]}", node_timeout(),
                           (stored.get("node") or {}).get("id"),
                           self._has_remote_agent(stored, reference))

    def check_prepare_for_replace_complete(self, call: BlockingCall | None) -> Any:
        """Return True once the name is free; remember the node's new name (or its end)."""
        result = self._poll(call)
        if result is RUNNING:
            return POLL_DELAY
        if isinstance(result, Mapping) and result:
            stored = self._stored()
            if result.get("renamed"):
                stored["name"] = result["renamed"]
            if result.get("destroyed"):
                stored["node_destroyed"] = True
            self.data_set(DATA_KEY, json.dumps(stored, default=str))
        return True

    def handle_update(self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any) -> Any:
        """Resize the node in place when ``size`` changed."""
        if self.SIZE not in prop_diff:
            return None
        return self._node_action("resize", {"size": prop_diff[self.SIZE]})

    def check_update_complete(self, cookie: Any) -> Any:
        """Return True once the resize is done."""
        return True if cookie is None else self._finished(*cookie)

    # --- attributes --------------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        node = self._stored().get("node") or {}
        if name == self.AGENT_ID:
            return node.get("agent_id") or (node.get("name") if node.get("deployed") else None)
        if name == self.EXTRA:
            return node.get("extra") or {key: value for key, value in node.items()
                                         if key not in ("id", "name", "state", "public_ips",
                                                        "private_ips")}
        return node.get(name)

    def _show_resource(self) -> Any:
        return self._stored().get("node")


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"Hearth::Cloud::Server": CloudServer}
