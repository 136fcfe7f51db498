"""Map files: reading, errors, and the waves their requires give."""

import pytest

from hearth.clouds import maps
from hearth.common import exception


def write(tmp_path, text):
    path = tmp_path / "cloud.map"
    path.write_text(text)
    return str(path)


def test_read_map_with_overrides_and_requires(tmp_path):
    entries = maps.read_map(write(tmp_path, """
web:
  - web-1
  - web-2: {size: Big, requires: [db-1]}
db:
  - db-1: {requires: lb}
  - lb
"""))
    assert entries == [
        maps.MapEntry("web-1", "web"),
        maps.MapEntry("web-2", "web", {"size": "Big"}, ("db-1",)),
        maps.MapEntry("db-1", "db", {}, ("lb",)),
        maps.MapEntry("lb", "db"),
    ]
    waves = [[e.name for e in wave] for wave in maps.creation_waves(entries)]
    assert waves == [["lb", "web-1"], ["db-1"], ["web-2"]]


@pytest.mark.parametrize(("text", "message"), [
    ("web: web-1\n", "profile 'web' must list its nodes"),
    ("web: [a, a]\n", "node 'a' is listed twice"),
    ("web: [{a: {requires: [bb]}}, b]\n",
     "node 'a' requires 'bb', which the map does not list. Did you mean \"b\"?"),
    ("web: [[a]]\n", "profile 'web': each node is a name or 'name: {overrides}', not ['a']"),
])
def test_map_errors_say_what_and_where(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(exception.CloudConfigError) as error:
        maps.read_map(path)
    assert str(error.value) == f"{path}: {message}"


def test_a_requires_cycle_is_reported_as_the_cycle(tmp_path):
    entries = maps.read_map(write(tmp_path, "web: [{a: {requires: b}}, {b: {requires: a}}]\n"))
    with pytest.raises(exception.CloudConfigError,
                       match=r"form a cycle: (a -> b -> a|b -> a -> b)"):
        maps.creation_waves(entries)
