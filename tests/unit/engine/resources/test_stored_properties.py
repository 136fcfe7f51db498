"""Stored properties: what is kept, written once, and shown in events with no secret."""

from dataclasses import dataclass, field

from hearth.engine import properties, resource
from hearth.engine.resources import stored_properties
from hearth.engine.resources.stored_properties import StoredProperties
from tests.unit.engine.resource_helpers import Definition, FakeStack


class Server(resource.Resource):
    """A type with a few properties."""

    properties_schema = {
        "password": properties.Schema(properties.STRING, update_allowed=True),
        "args": properties.Schema(properties.LIST, update_allowed=True),
        "name": properties.Schema(properties.STRING),
    }


@dataclass
class SecretStack(FakeStack):
    """A stack whose hidden parameters hold ``hidden``."""

    hidden: list = field(default_factory=list)
    secret_keepers: list = field(default_factory=list)

    def secrets(self):
        return list(self.hidden)


def server(props, stack):
    return Server("server", Definition("server", "Test::Server", props), stack)


def test_kept_values_are_written_once_with_the_paths_of_their_secrets():
    stack = SecretStack(hidden=["s3cret"])
    res = server({"password": "s3cret", "args": ["a", "x-s3cret-x"], "name": "web"}, stack)
    stored_properties.keep(res)
    column = stored_properties.take_unwritten(res)
    assert column == {"values": {"password": "s3cret", "args": ["a", "x-s3cret-x"],
                                 "name": "web"},
                      "hidden": [["password"], ["args", 1]]}
    assert stored_properties.take_unwritten(res) is None  # written: nothing more to write
    assert StoredProperties.from_column(column) == res.stored_properties


def test_events_hide_a_secret_even_once_it_changed():
    stack = SecretStack(hidden=["s3cret"])
    res = server({"password": "s3cret", "args": ["a", "x-s3cret-x"], "name": "web"}, stack)
    stored_properties.keep(res)
    stack.hidden = ["other"]  # an update gave the hidden parameter another value
    shown = stored_properties.event_view(res, stack.secrets())
    assert shown == {"password": "******", "args": ["a", "******"], "name": "web"}
    assert res.stored_properties.values["password"] == "s3cret"  # compared, never shown


def test_without_secrets_nothing_is_marked():
    res = server({"name": "web"}, SecretStack())
    stored_properties.keep(res)
    assert stored_properties.take_unwritten(res) == {"values": {"name": "web"}}


def test_a_resource_with_nothing_stored_shows_its_definition_now():
    stack = SecretStack(hidden=["s3cret"])
    res = server({"password": "s3cret", "name": "web"}, stack)
    assert stored_properties.event_view(res, stack.secrets()) == {
        "password": "******", "name": "web"}


def test_a_column_without_values_is_nothing_stored():
    assert StoredProperties.from_column(None) is None
    assert StoredProperties.from_column({"other": 1}) is None
