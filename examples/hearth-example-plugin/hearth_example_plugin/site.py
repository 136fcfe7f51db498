"""Example::Web::Site: a sample resource plug-in written from Heat's guide."""

from hearth.engine import attributes, constraints, properties, resource, support


class WebSite(resource.Resource):
    """A web site served by a pool of workers.

    It stores its settings as resource data and exposes the URL it would
    serve under.  Nothing real is created: the type shows the shape of a
    plug-in (schemas, handlers, attributes).
    """

    support_status = support.SupportStatus(version="1.0.0")

    PROPERTIES = (NAME, WORKERS, LISTENER) = ("name", "workers", "listener")
    LISTENER_KEYS = (HOST, PORT) = ("host", "port")
    ATTRIBUTES = (URL, LISTENER_COUNT) = ("url", "listener_count")

    properties_schema = {
        NAME: properties.Schema(
            properties.Schema.STRING, "Name of the site (lowercase letters and dashes).",
            required=True,
            constraints=[
                constraints.AllowedPattern("[a-z][a-z-]*"),
                constraints.Length(min=3, max=20),
            ]),
        WORKERS: properties.Schema(
            properties.Schema.INTEGER, "Number of worker processes.", default=5,
            update_allowed=True, constraints=[constraints.Range(5, 10)]),
        LISTENER: properties.Schema(
            properties.Schema.MAP, "Where the site listens.",
            schema={
                HOST: properties.Schema(
                    properties.Schema.STRING, "Host name or address.", default="localhost"),
                PORT: properties.Schema(
                    properties.Schema.INTEGER, "TCP port.", required=True,
                    constraints=[constraints.Range(1, 65535)]),
            }),
    }

    attributes_schema = {
        URL: attributes.Schema("The URL of the site.", type=attributes.Schema.STRING),
        LISTENER_COUNT: attributes.Schema(
            "How many listeners the site has.", type=attributes.Schema.INTEGER),
    }

    def handle_create(self):
        """Record the settings and use the physical name as the id."""
        self.data_set("workers", self.properties[self.WORKERS])
        self.resource_id_set(self.physical_resource_name())

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        """Change the number of workers in place."""
        if self.WORKERS in prop_diff:
            self.data_set("workers", prop_diff[self.WORKERS])

    def handle_delete(self):
        """Nothing real to delete."""
        return self.resource_id

    def _resolve_attribute(self, name):
        listener = self.properties[self.LISTENER] or {}
        if name == self.URL:
            host = listener.get(self.HOST) or "localhost"
            port = listener.get(self.PORT) or 80
            return f"http://{host}:{port}/{self.properties[self.NAME]}"
        if name == self.LISTENER_COUNT:
            return 1 if listener else 0
        return None


def resource_mapping():
    """Return the types this module provides."""
    return {"Example::Web::Site": WebSite}
