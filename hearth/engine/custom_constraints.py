"""The custom constraints that need no cloud service (group ``hearth.constraints``).

Each class is a plug-in named in ``setup.cfg``.  An instance answers
``validate(value, context=None) -> bool``; after a failed validation
``error(value)`` gives Heat's message ("Error validating value 'x': why").
Subclasses implement only ``check(value)``, which raises ``ValueError``
with the reason (or returns quietly when the value is fine).
"""

from __future__ import annotations

import datetime
import re
import time
import zoneinfo
from collections.abc import Callable
from typing import Any

import netaddr

from hearth.common import document_bounds

FQDN_MAX_LEN = 255
DNS_LABEL_MAX_LEN = 63
_DNS_LABEL = re.compile(rf"[a-z0-9-]{{1,{DNS_LABEL_MAX_LEN}}}")


class BaseConstraint:
    """A custom constraint: ``validate`` wraps ``check`` and keeps the reason.

    ``message`` describes the rule (shown in schemas); ``reason`` holds why the
    last value failed (None when no reason is known).
    """

    message: str | None = None
    #: Empty values ("" or None) pass without a check, as in Heat.
    allow_empty = False

    def __init__(self) -> None:
        self.reason: str | None = None

    def validate(self, value: Any, context: Any = None) -> bool:
        """Return whether ``value`` satisfies the constraint."""
        self.reason = None
        if self.allow_empty and not value:
            return True
        try:
            self.check(value)
        except (ValueError, TypeError, AttributeError) as exc:
            self.reason = str(exc) or None
            return False
        return True

    def check(self, value: Any) -> None:
        """Raise ValueError with the reason when ``value`` is not acceptable."""
        raise NotImplementedError

    def error(self, value: Any) -> str:
        """Return the message for a value that failed :meth:`validate`."""
        if self.reason is None:
            return f"Error validating value '{value}'"
        return f"Error validating value '{value}': {self.reason}"


def _ip_address(value: Any) -> netaddr.IPAddress:
    if not isinstance(value, str) or value != value.strip() or not value:
        raise ValueError(f"'{value}' is not a valid IP address")
    try:
        address = netaddr.IPAddress(value, flags=netaddr.INET_PTON)
    except (netaddr.AddrFormatError, ValueError):
        raise ValueError(f"'{value}' is not a valid IP address") from None
    return address


def _subnet(value: Any) -> None:
    invalid = ValueError(f"'{value}' is not a valid IP subnet")
    if not isinstance(value, str) or "/" not in value or value != value.strip():
        raise invalid
    try:
        network = netaddr.IPNetwork(value)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise invalid from None
    if network.version == 4 and str(network) != value:
        raise invalid


def _dns_format(value: str) -> None:
    trimmed = value[:-1] if value.endswith(".") else value
    if len(trimmed) > FQDN_MAX_LEN:
        raise ValueError(f"'{trimmed}' exceeds the {FQDN_MAX_LEN} character FQDN limit")
    names = trimmed.split(".")
    for name in names:
        if not name:
            raise ValueError("Encountered an empty component.")
        if name.startswith("-") or name.endswith("-"):
            raise ValueError(f"Name '{name}' must not start or end with a hyphen.")
        if not _DNS_LABEL.fullmatch(name):
            raise ValueError(f"Name '{name}' must be 1-{DNS_LABEL_MAX_LEN} characters long, "
                             "each of which can only be alphanumeric or a hyphen.")
    if value.endswith(".") and len(names) > 1 and names[-1].isdigit():
        raise ValueError(f"TLD '{names[-1]}' must not be all numeric.")


def _parse_iso8601(value: Any) -> datetime.datetime:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not a string")
    text = value.strip()
    parsed = datetime.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return parsed


class IPConstraint(BaseConstraint):
    """An IPv4 or IPv6 address."""

    def check(self, value: Any) -> None:
        """Accept a plain IP address string."""
        try:
            _ip_address(value)
        except ValueError:
            raise ValueError("Invalid IP address") from None


class MACConstraint(BaseConstraint):
    """A MAC address."""

    def check(self, value: Any) -> None:
        """Accept a MAC address in any notation netaddr knows."""
        if not isinstance(value, str) or not netaddr.valid_mac(value):
            raise ValueError("Invalid MAC address.")


class CIDRConstraint(BaseConstraint):
    """A network in CIDR notation (``10.0.0.0/24``)."""

    def check(self, value: Any) -> None:
        """Accept a canonical CIDR."""
        _subnet(value)


class IPCIDRConstraint(BaseConstraint):
    """An IP address or a network in CIDR notation."""

    def check(self, value: Any) -> None:
        """Accept an address, or a CIDR when the value holds a '/'."""
        if not isinstance(value, str):
            raise ValueError(f"{value} is not a valid IP or CIDR")
        if "/" in value:
            _subnet(value)
        else:
            _ip_address(value)


class DNSNameConstraint(BaseConstraint):
    """A DNS name (labels of letters, digits and hyphens)."""

    def check(self, value: Any) -> None:
        """Accept a well-formed DNS name."""
        if not value:
            return
        try:
            _dns_format(str(value))
        except ValueError as exc:
            raise ValueError(f"'{value}' not in valid format. Reason: {exc}") from None


class RelativeDNSNameConstraint(DNSNameConstraint):
    """A relative DNS name (no trailing dot, room left for a domain)."""

    allow_empty = True

    def check(self, value: Any) -> None:
        """Accept a DNS name that is not fully qualified."""
        if value.endswith("."):
            raise ValueError(f"'{value}' is a FQDN. It should be a relative domain name.")
        if len(value) > FQDN_MAX_LEN - 3:
            raise ValueError(f"'{value}' contains '{len(value)}' characters. Adding a domain "
                             "name will cause it to exceed the maximum length of a FQDN of "
                             f"'{FQDN_MAX_LEN}'.")
        super().check(value)


class DNSDomainConstraint(DNSNameConstraint):
    """A DNS domain: a DNS name ending with a dot."""

    allow_empty = True

    def check(self, value: Any) -> None:
        """Accept a DNS name with a trailing dot."""
        super().check(value)
        if not value.endswith("."):
            raise ValueError(f"'{value}' must end with '.'.")


class ISO8601Constraint(BaseConstraint):
    """A date and time in ISO 8601 format."""

    def check(self, value: Any) -> None:
        """Accept what an ISO 8601 parser accepts (no reason is given, as in Heat)."""
        try:
            _parse_iso8601(value)
        except (ValueError, TypeError):
            raise ValueError("") from None


class CRONExpressionConstraint(BaseConstraint):
    """A cron expression (five or six fields)."""

    allow_empty = True

    def check(self, value: Any) -> None:
        """Accept what croniter accepts."""
        import croniter  # lazy: 50 ms, only for templates with a cron_expression constraint

        try:
            croniter.croniter(value)
        except Exception as exc:  # noqa: BLE001 - croniter raises several unrelated types
            raise ValueError(f"Invalid CRON expression: {exc}") from None


class TimezoneConstraint(BaseConstraint):
    """An IANA time zone name (``Europe/Paris``)."""

    allow_empty = True

    def check(self, value: Any) -> None:
        """Accept a zone the zoneinfo database knows."""
        try:
            zoneinfo.ZoneInfo(value)
        except Exception as exc:  # noqa: BLE001 - zoneinfo raises several types
            raise ValueError(f"Invalid timezone: {exc}") from None


class ExpirationConstraint(BaseConstraint):
    """An ISO 8601 time in the future.

    ``now`` is a seam for tests: it returns the current aware UTC time.
    """

    allow_empty = True

    def __init__(self, now: Callable[[], datetime.datetime] | None = None) -> None:
        super().__init__()
        self.now = now or (lambda: datetime.datetime.now(datetime.UTC))

    def check(self, value: Any) -> None:
        """Accept a parsable time later than now."""
        try:
            expiration = _parse_iso8601(value)
            if expiration <= self.now():
                raise ValueError("Expiration time is out of date.")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"Expiration {value} is invalid: {exc}") from None


class JsonStringConstraint(BaseConstraint):
    """A string holding valid JSON."""

    allow_empty = True

    def check(self, value: Any) -> None:
        """Accept a string json.loads can parse."""
        try:
            document_bounds.load_json(value)
        except ValueError as exc:
            raise ValueError(f"JSON string {value} is invalid: {exc}") from None


class TestConstraintDelay(BaseConstraint):
    """Sleep for ``value`` seconds, then accept (for tests of slow validation).

    ``sleep`` is injected; the default is ``time.sleep``, which the engine's
    green-thread runtime makes cooperative.
    """

    __test__ = False  # not a pytest test class

    def __init__(self, sleep: Callable[[float], Any] | None = None) -> None:
        super().__init__()
        self.sleep = sleep or time.sleep

    def check(self, value: Any) -> None:
        """Sleep ``value`` seconds."""
        self.sleep(float(value))
