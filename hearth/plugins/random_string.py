"""OS::Heat::RandomString: a random string (for passwords and secrets)."""

from __future__ import annotations

import secrets
import string
from collections.abc import Sequence
from typing import Any

from hearth.common import exception
from hearth.engine import attributes, constraints, properties, resource, support

#: Character class name → its characters (Heat's classes).
CLASS_CHARACTERS: dict[str, str] = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}


def generate(length: int, pools: Sequence[tuple[str, int]]) -> str:
    """Return ``length`` random characters taking at least ``minimum`` from each pool.

    Positions are shuffled, and the remaining characters come from the
    union of the pools; every choice uses :mod:`secrets`.
    """
    chosen = [secrets.choice(chars) for chars, minimum in pools for _ in range(minimum)]
    union = "".join(sorted(set("".join(chars for chars, _ in pools))))
    chosen += [secrets.choice(union) for _ in range(length - len(chosen))]
    for index in range(len(chosen) - 1, 0, -1):
        other = secrets.randbelow(index + 1)
        chosen[index], chosen[other] = chosen[other], chosen[index]
    return "".join(chosen)


def _min_schema(description: str) -> properties.Schema:
    return properties.Schema(properties.Schema.INTEGER, description, default=1,
                             constraints=[constraints.Range(1, 512)])


class RandomString(resource.Resource):
    """A resource which generates a random string.

    This is useful for configuring passwords and secrets on services.  The
    string can be drawn from character classes (e.g. ``lettersdigits``) and
    literal character sequences, each with a minimum count; its length is 32
    unless ``length`` says otherwise.  ``get_resource`` returns the string
    itself.  No property can be updated in place: any change (``salt`` is
    there for this) generates a new string by replacement.
    """

    support_status = support.SupportStatus(version="2014.1")
    #: its handles change nothing outside the database (see OS::Heat::None)
    acts_outside = False

    PROPERTIES = (LENGTH, SEQUENCE, CHARACTER_CLASSES, CHARACTER_SEQUENCES, SALT) = (
        "length", "sequence", "character_classes", "character_sequences", "salt")
    CLASS, MIN, SEQUENCE_KEY = "class", "min", "sequence"
    ATTRIBUTES = (VALUE,) = ("value",)

    properties_schema = {
        LENGTH: properties.Schema(
            properties.Schema.INTEGER, "Length of the string to generate.",
            default=32, constraints=[constraints.Range(1, 512)]),
        SEQUENCE: properties.Schema(
            properties.Schema.STRING,
            "Sequence of characters to build the random string from.",
            constraints=[constraints.AllowedValues(list(CLASS_CHARACTERS))],
            support_status=support.SupportStatus(
                support.HIDDEN, version="5.0.0",
                previous_status=support.SupportStatus(
                    support.DEPRECATED, version="2014.2",
                    message="Use property character_classes."))),
        CHARACTER_CLASSES: properties.Schema(
            properties.Schema.LIST,
            "A list of character class and their constraints to generate the random "
            "string from.",
            schema=properties.Schema(properties.Schema.MAP, schema={
                CLASS: properties.Schema(
                    properties.Schema.STRING,
                    "A character class and its corresponding min constraint to "
                    "generate the random string from.",
                    constraints=[constraints.AllowedValues(list(CLASS_CHARACTERS))],
                    default="lettersdigits"),
                MIN: _min_schema("The minimum number of characters from this character "
                                 "class that will be in the generated string."),
            }),
            default=[{CLASS: "lettersdigits", MIN: 1}]),
        CHARACTER_SEQUENCES: properties.Schema(
            properties.Schema.LIST,
            "A list of character sequences and their constraints to generate the "
            "random string from.",
            schema=properties.Schema(properties.Schema.MAP, schema={
                SEQUENCE_KEY: properties.Schema(
                    properties.Schema.STRING,
                    "A character sequence and its corresponding min constraint to "
                    "generate the random string from.",
                    required=True),
                MIN: _min_schema("The minimum number of characters from this sequence "
                                 "that will be in the generated string."),
            })),
        SALT: properties.Schema(
            properties.Schema.STRING,
            "Value which can be set or changed on stack update to trigger the resource "
            "for replacement with a new random string. The salt value itself is ignored "
            "by the random generator."),
    }

    attributes_schema = {
        VALUE: attributes.Schema(
            "The random string generated by this resource. This value is also available "
            "by referencing the resource.",
            cache_mode=attributes.Schema.CACHE_NONE, type=attributes.Schema.STRING),
    }

    def _pools(self) -> list[tuple[str, int]]:
        """Return (characters, minimum) for every class and sequence asked for."""
        sequence = self.properties[self.SEQUENCE]
        classes = ([{self.CLASS: sequence, self.MIN: 1}] if sequence
                   else self.properties[self.CHARACTER_CLASSES] or [])
        pools = [(item[self.SEQUENCE_KEY], item[self.MIN])
                 for item in self.properties[self.CHARACTER_SEQUENCES] or []]
        pools += [(CLASS_CHARACTERS[item[self.CLASS]], item[self.MIN]) for item in classes]
        return pools

    def validate(self) -> None:
        """Validate the properties, then that the minimums fit in the length."""
        super().validate()
        if sum(minimum for _, minimum in self._pools()) > self.properties[self.LENGTH]:
            raise exception.StackValidationFailed(
                "Length property cannot be smaller than combined character class and "
                "character sequence minimums", error=properties.PROPERTY_ERROR,
                path=[self.name, "properties", self.LENGTH])

    def handle_create(self) -> None:
        """Generate the string, store it redacted, and name the resource."""
        value = generate(self.properties[self.LENGTH], self._pools())
        self.data_set(self.VALUE, value, redact=True)
        self.resource_id_set(self.physical_resource_name())

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.VALUE:
            return self.data_get().get(self.VALUE)
        return None

    def get_reference_id(self) -> str:
        """Return the random string itself (the name before it exists)."""
        if self.resource_id is not None:
            return self.data_get().get(self.VALUE)
        return self.name


def resource_mapping() -> dict[str, type]:
    """Return the types this module provides."""
    return {"OS::Heat::RandomString": RandomString}
