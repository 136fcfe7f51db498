"""A deploy hook for the tests: records what it was given."""

CALLS = []


def record(vm_, opts):
    """Remember the node and answer with a marker."""
    CALLS.append(vm_["name"])
    return {"hook": "ran", "host": vm_.get("ssh_host")}
