"""Cloud nodes: the nodes of every configured provider, as ``stackctl cloud-nodes`` lists them.

The providers and their credentials are the master's owner's: the local
user of ``stackctl console`` sees them; an API project's console says so.
"""

from __future__ import annotations

from hearth.console.app import View

#: The columns of the list (``stackctl cloud-nodes``'s).
COLUMNS = ("provider", "name", "id", "state", "image", "size", "public_ips", "private_ips")


def index(view: View) -> str:
    """GET /clouds: every provider's nodes."""
    clouds = view.console.connector.clouds
    nodes = clouds.list_nodes() if clouds is not None else None
    return view.page("clouds.html", nodes=nodes, columns=COLUMNS)
