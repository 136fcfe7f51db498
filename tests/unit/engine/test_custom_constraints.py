"""Tests of the built-in custom constraints (messages as Heat's)."""

import datetime

import pytest

from hearth.engine import constraints
from hearth.engine import custom_constraints as cc

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


@pytest.mark.parametrize("plugin, value", [
    (cc.IPConstraint, "10.0.0.1"), (cc.IPConstraint, "::1"),
    (cc.MACConstraint, "00:11:22:33:44:55"),
    (cc.CIDRConstraint, "10.0.0.0/24"), (cc.CIDRConstraint, "fd00::/64"),
    (cc.IPCIDRConstraint, "10.0.0.0/8"), (cc.IPCIDRConstraint, "1.2.3.4"),
    (cc.DNSNameConstraint, "www.example.com"), (cc.DNSNameConstraint, "host."),
    (cc.RelativeDNSNameConstraint, "www"), (cc.RelativeDNSNameConstraint, ""),
    (cc.DNSDomainConstraint, "example.com."),
    (cc.ISO8601Constraint, "2016-10-14T10:00:00Z"), (cc.ISO8601Constraint, "2016-10-14"),
    (cc.CRONExpressionConstraint, "*/5 * * * *"), (cc.CRONExpressionConstraint, ""),
    (cc.TimezoneConstraint, "Europe/Paris"),
    (cc.JsonStringConstraint, '{"a": 1}'),
])
def test_valid(plugin, value):
    assert plugin().validate(value)


@pytest.mark.parametrize("plugin, value, message", [
    (cc.IPConstraint, "10.0.0.300", "Error validating value '10.0.0.300': Invalid IP address"),
    (cc.IPConstraint, 5, "Error validating value '5': Invalid IP address"),
    (cc.MACConstraint, "00:11", "Error validating value '00:11': Invalid MAC address."),
    (cc.CIDRConstraint, "10.0.0/24",
     "Error validating value '10.0.0/24': '10.0.0/24' is not a valid IP subnet"),
    (cc.CIDRConstraint, "10.0.0.0", "Error validating value '10.0.0.0': '10.0.0.0' is not a "
                                    "valid IP subnet"),
    (cc.CIDRConstraint, "nope", "Error validating value 'nope': 'nope' is not a valid IP subnet"),
    (cc.IPCIDRConstraint, "1.2.3", "Error validating value '1.2.3': '1.2.3' is not a valid "
                                   "IP address"),
    (cc.DNSNameConstraint, "a..b", "Error validating value 'a..b': 'a..b' not in valid format. "
                                   "Reason: Encountered an empty component."),
    (cc.DNSNameConstraint, "-a", "Error validating value '-a': '-a' not in valid format. "
                                 "Reason: Name '-a' must not start or end with a hyphen."),
    (cc.DNSNameConstraint, "a_b", "Error validating value 'a_b': 'a_b' not in valid format. "
                                  "Reason: Name 'a_b' must be 1-63 characters long, each of "
                                  "which can only be alphanumeric or a hyphen."),
    (cc.DNSNameConstraint, "a.123.", "Error validating value 'a.123.': 'a.123.' not in valid "
                                     "format. Reason: TLD '123' must not be all numeric."),
    (cc.RelativeDNSNameConstraint, "a.b.", "Error validating value 'a.b.': 'a.b.' is a FQDN. "
                                           "It should be a relative domain name."),
    (cc.DNSDomainConstraint, "example.com",
     "Error validating value 'example.com': 'example.com' must end with '.'."),
    (cc.ISO8601Constraint, "yesterday", "Error validating value 'yesterday'"),
    (cc.TimezoneConstraint, "Mars/Base",
     "Error validating value 'Mars/Base': Invalid timezone: 'No time zone found with key "
     "Mars/Base'"),
    (cc.JsonStringConstraint, "{",
     "Error validating value '{': JSON string { is invalid: Expecting property name enclosed "
     "in double quotes: line 1 column 2 (char 1)"),
])
def test_invalid_message(plugin, value, message):
    instance = plugin()
    assert not instance.validate(value)
    assert instance.error(value) == message


def test_cron_invalid():
    instance = cc.CRONExpressionConstraint()
    assert not instance.validate("61 * * * *")
    assert instance.error("61 * * * *").startswith(
        "Error validating value '61 * * * *': Invalid CRON expression: ")


def test_relative_dns_name_too_long():
    value = "a" * 253
    instance = cc.RelativeDNSNameConstraint()
    assert not instance.validate(value)
    assert instance.error(value).endswith(
        "contains '253' characters. Adding a domain name will cause it to exceed the maximum "
        "length of a FQDN of '255'.")


def test_expiration_uses_injected_clock():
    instance = cc.ExpirationConstraint(now=lambda: NOW)
    assert instance.validate("2026-06-01T00:00:00Z")
    assert not instance.validate("2025-06-01T00:00:00Z")
    assert instance.error("2025-06-01T00:00:00Z") == (
        "Error validating value '2025-06-01T00:00:00Z': Expiration 2025-06-01T00:00:00Z is "
        "invalid: Expiration time is out of date.")


def test_delay_constraint_sleeps_through_the_seam():
    slept = []
    assert cc.TestConstraintDelay(sleep=slept.append).validate("0.25")
    assert slept == [0.25]


def test_entry_points_resolve_to_these_classes():
    registry = constraints.custom_constraint_classes()
    assert registry["ip_addr"] is cc.IPConstraint
    assert set(registry) >= {"ip_addr", "ip_or_cidr", "net_cidr", "mac_addr", "iso_8601",
                             "cron_expression", "dns_name", "rel_dns_name", "dns_domain",
                             "timezone", "json_string", "expiration", "test_constr"}


def test_custom_constraint_uses_plugin_error():
    constraint = constraints.CustomConstraint("ip_addr")
    with pytest.raises(ValueError) as info:
        constraint.validate("x")
    assert str(info.value) == "Error validating value 'x': Invalid IP address"
