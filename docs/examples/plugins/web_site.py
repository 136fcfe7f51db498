"""Example::Web::Site: the resource plug-in of the guide's plug-in page."""

from hearth.engine import attributes, constraints, properties, resource, support


class WebSite(resource.Resource):
    """A web site served by a pool of workers.

    The first line is the summary shown by resource-type-list; the whole
    docstring becomes the type's description and reference page.
    """

    support_status = support.SupportStatus(version="1.0.0")

    PROPERTIES = (NAME, WORKERS, LISTENER) = ("name", "workers", "listener")

    properties_schema = {
        NAME: properties.Schema(
            properties.Schema.STRING, "Name of the site.", required=True,
            constraints=[constraints.AllowedPattern("[a-z][a-z-]*"),
                         constraints.Length(min=3, max=20)]),
        WORKERS: properties.Schema(
            properties.Schema.INTEGER, "Worker processes.", default=5,
            update_allowed=True, constraints=[constraints.Range(5, 10)]),
        LISTENER: properties.Schema(
            properties.Schema.MAP, "Where the site listens.",
            schema={"port": properties.Schema(properties.Schema.INTEGER, required=True)}),
    }

    attributes_schema = {
        "url": attributes.Schema("The URL of the site.", type=attributes.Schema.STRING),
    }

    def handle_create(self):
        self.resource_id_set(self.physical_resource_name())

    def _resolve_attribute(self, name):
        if name == "url":
            return f"http://localhost/{self.properties[self.NAME]}"


def resource_mapping():
    return {"Example::Web::Site": WebSite}
