"""libcloud's Dummy compute driver, made to keep its nodes in a JSON file.

libcloud's ``DummyNodeDriver`` is an offline fake, but it ignores the
requested node name and keeps its nodes in memory only.  This subclass
honours names, keeps every node in a JSON file (shared by every process,
guarded by ``flock``), starts empty, and adds what the original lacks:
``start_node``, ``stop_node`` and ``ex_resize``.  A node can be made to
boot slowly (``boot_seconds``): it stays PENDING that long, so callers
exercise their wait for RUNNING.  Images, sizes and locations are the
original's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from typing import Any

from libcloud.compute.base import Node, NodeImage, NodeSize
from libcloud.compute.drivers.dummy import DummyNodeDriver
from libcloud.compute.types import NodeState

#: Node states as stored in the file.
RUNNING, PENDING, STOPPED, REBOOTING = "running", "pending", "stopped", "rebooting"
STATES = {RUNNING: NodeState.RUNNING, PENDING: NodeState.PENDING,
          STOPPED: NodeState.STOPPED, REBOOTING: NodeState.REBOOTING}


class PersistentDummyNodeDriver(DummyNodeDriver):
    """A Dummy driver whose nodes honour requested names and survive the process."""

    name = "Persistent Dummy Node Provider"

    def __init__(self, creds: Any = 0, state_file: str = "", boot_seconds: float = 0.0) -> None:
        super().__init__(creds)
        if not state_file:
            raise ValueError("PersistentDummyNodeDriver needs a state_file")
        self.nl = []
        self.state_file = state_file
        self.boot_seconds = float(boot_seconds)

    # --- the file --------------------------------------------------------

    @contextlib.contextmanager
    def _state(self, write: bool = False) -> Iterator[dict[str, Any]]:
        """Yield the stored state under a file lock; write it back when ``write``."""
        os.makedirs(os.path.dirname(self.state_file) or ".", exist_ok=True)
        with open(self.state_file + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            try:
                with open(self.state_file, encoding="utf-8") as stream:
                    state = json.load(stream)
            except (OSError, ValueError):
                state = {"next_id": 1, "nodes": {}}
            yield state
            if write:
                temporary = f"{self.state_file}.{os.getpid()}.tmp"
                with open(temporary, "w", encoding="utf-8") as stream:
                    json.dump(state, stream, indent=1)
                os.replace(temporary, self.state_file)

    def _node(self, record: dict[str, Any]) -> Node:
        state = record["state"]
        if state == PENDING and time.time() >= record["ready_at"]:
            state = RUNNING
        if state == REBOOTING:
            state = RUNNING
        size = record.get("size") or {}
        image = record.get("image") or {}
        return Node(
            id=record["id"], name=record["name"], state=STATES[state],
            public_ips=list(record["public_ips"]), private_ips=list(record["private_ips"]),
            driver=self,
            size=NodeSize(id=size.get("id"), name=size.get("name"), ram=size.get("ram"),
                          disk=size.get("disk"), bandwidth=None, price=size.get("price"),
                          driver=self) if size else None,
            image=NodeImage(id=image.get("id"), name=image.get("name"), driver=self)
            if image else None,
            extra=dict(record.get("extra") or {}))

    def _change(self, node: Node, **changes: Any) -> bool:
        with self._state(write=True) as state:
            record = state["nodes"].get(str(node.id))
            if record is None:
                return False
            record.update(changes)
        return True

    # --- the NodeDriver interface -------------------------------------------

    def list_nodes(self) -> list[Node]:
        """Return every stored node."""
        with self._state() as state:
            return [self._node(record) for record in state["nodes"].values()]

    def create_node(self, name: str, size: NodeSize, image: NodeImage,
                    location: Any = None, **kwargs: Any) -> Node:
        """Create node ``name`` (PENDING for ``boot_seconds``, then RUNNING)."""
        with self._state(write=True) as state:
            number = state["next_id"]
            state["next_id"] = number + 1
            record = {
                "id": str(number), "name": name,
                "state": PENDING if self.boot_seconds > 0 else RUNNING,
                "ready_at": time.time() + self.boot_seconds,
                "public_ips": [f"127.0.{number // 250}.{number % 250 + 1}"],
                "private_ips": [f"10.0.{number // 250}.{number % 250 + 1}"],
                "size": {"id": size.id, "name": size.name, "ram": size.ram, "disk": size.disk,
                         "price": size.price},
                "image": {"id": image.id, "name": image.name},
                "extra": {"location": getattr(location, "name", None),
                          "tags": dict(kwargs.get("ex_metadata") or {})},
            }
            state["nodes"][record["id"]] = record
        return self._node(record)

    def destroy_node(self, node: Node) -> bool:
        """Remove the node; False when it is already gone."""
        with self._state(write=True) as state:
            return state["nodes"].pop(str(node.id), None) is not None

    def reboot_node(self, node: Node) -> bool:
        """Reboot the node (it is RUNNING again at once)."""
        return self._change(node, state=REBOOTING)

    def stop_node(self, node: Node) -> bool:
        """Stop the node."""
        return self._change(node, state=STOPPED)

    def start_node(self, node: Node) -> bool:
        """Start a stopped node."""
        return self._change(node, state=RUNNING)

    def ex_resize(self, node: Node, size: NodeSize) -> bool:
        """Give the node another size, in place."""
        return self._change(node, size={"id": size.id, "name": size.name, "ram": size.ram,
                                        "disk": size.disk, "price": size.price})
