"""A test plug-in with Heat's whole keeping contract: snapshot, restore, adopt, Snapshot policy.

``Test::Disk`` stands for a disk whose physical side is a line-per-call
ledger file (``ledger`` property): every handler appends what it did, so
tests read what really happened to the "physical" resource.  A snapshot
keeps the disk's ``size`` in the resource data (``backup``); a restore
brings the size back from that backup (``handle_restore``).
"""

from hearth.engine import attributes, properties, resource


class Disk(resource.Resource):
    """A disk that can be snapshotted, restored from a snapshot and adopted."""

    properties_schema = {
        "size": properties.Schema(properties.Schema.INTEGER, default=1, update_allowed=True),
        "ledger": properties.Schema(properties.Schema.STRING, required=True),
    }
    attributes_schema = {"size": attributes.Schema("The size.")}

    def _log(self, *words):
        with open(self.properties["ledger"], "a", encoding="utf-8") as ledger:
            ledger.write(" ".join(str(word) for word in words) + "\n")

    def handle_create(self):
        self.resource_id_set(self.physical_resource_name())
        self._log("create", self.name, self.properties["size"])

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        self._log("update", self.name, prop_diff.get("size"))

    def handle_delete(self):
        self._log("delete", self.name)

    def handle_snapshot(self):
        self.data_set("backup", str(self.properties["size"]))
        self._log("snapshot", self.name, self.properties["size"])

    def handle_restore(self, defn, restore_data):
        size = int(restore_data["resource_data"]["backup"])
        return defn.freeze(properties={**defn.render_hot().get("properties", {}), "size": size})

    def handle_delete_snapshot(self, snapshot):
        self._log("delete_snapshot", self.name, snapshot["resource_data"].get("backup"))

    def handle_snapshot_delete(self, state):
        self._log("snapshot_delete", self.name, "_".join(state))

    def handle_adopt(self, resource_data):
        self.resource_id_set(resource_data["resource_id"])
        self._log("adopt", self.name, resource_data["resource_id"])

    def _resolve_attribute(self, name):
        return self.properties["size"] if name == "size" else None


def resource_mapping():
    return {"Test::Disk": Disk}
