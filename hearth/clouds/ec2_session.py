"""Credentials, clients and regions of an ``ec2`` provider (the boto3 side of the driver).

Credentials, in order:

1. ``id`` and ``key`` (and ``token`` for temporary credentials) in the
   provider, as Salt's ec2 driver takes them;
2. ``aws_profile``: a profile of the AWS shared files (``~/.aws/config``,
   ``~/.aws/credentials``), SSO profiles included;
3. otherwise boto3's own chain: the ``AWS_*`` environment variables,
   ``AWS_PROFILE``, the shared files, SSO, container and instance roles.
   Salt's ``id: use-instance-role-credentials`` means the same.

A provider works in its ``location`` (the region, ``us-east-1`` by
default); a profile or a server may name another region as its
``location``.  The regions a provider has nodes in are the provider's own,
those its profiles name and every region it ever created a node in
(recorded under the ``cachedir`` before the request is made), so a node is
listed, found and destroyed wherever it was made.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from hearth.common import exception

try:  # the ec2 driver's dependency: its __virtual__ says when it is missing
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError
except ImportError:  # pragma: no cover - boto3 is a dependency of Hearth's [cloud] extra
    pass

DEFAULT_REGION = "us-east-1"
#: Salt's value of ``id``/``key`` meaning "use the instance's role".
INSTANCE_ROLE = "use-instance-role-credentials"
#: Provider options of botocore's client configuration, with Hearth's defaults.
CLIENT_OPTIONS = {"connect_timeout": 10, "read_timeout": 60, "max_attempts": 3}


def static_credentials(conf: Mapping[str, Any]) -> dict[str, str] | None:
    """Return the provider's own credentials as boto3 arguments, or None to use the chain."""
    key_id, secret = conf.get("id"), conf.get("key")
    if key_id in (None, "", INSTANCE_ROLE) and secret in (None, "", INSTANCE_ROLE):
        return None
    credentials = {"aws_access_key_id": str(key_id), "aws_secret_access_key": str(secret)}
    if conf.get("token"):
        credentials["aws_session_token"] = str(conf["token"])
    return credentials


def credentials_problem(conf: Mapping[str, Any]) -> str | None:
    """Return what is wrong with the provider's credential options, or None."""
    given = [key for key in ("id", "key") if conf.get(key) not in (None, "")]
    if len(given) == 1:
        other = "key" if given == ["id"] else "id"
        return (f"'{given[0]}' is set without '{other}': give both, or neither to use "
                "boto3's credential chain (aws_profile, AWS_PROFILE, ~/.aws, SSO, "
                "instance roles)")
    if given and conf.get("aws_profile"):
        return "'id'/'key' and 'aws_profile' are both set: use one of them"
    return None


def session(conf: Mapping[str, Any], provider: str) -> Any:
    """Return a boto3 Session holding the provider's credentials (see the module's order)."""
    credentials = static_credentials(conf)
    try:
        if credentials is not None:
            return boto3.session.Session(**credentials)
        return boto3.session.Session(profile_name=conf.get("aws_profile") or None)
    except BotoCoreError as error:  # an unknown aws_profile
        raise exception.CloudConfigError(f"cloud provider {provider}: {error}") from error


def client(conf: Mapping[str, Any], provider: str, region: str) -> Any:
    """Return an EC2 client of ``region`` (the provider's ``endpoint`` when it names one)."""
    options = {key: conf.get(key, default) for key, default in CLIENT_OPTIONS.items()}
    settings = Config(connect_timeout=float(options["connect_timeout"]),
                      read_timeout=float(options["read_timeout"]),
                      retries={"max_attempts": int(options["max_attempts"]),
                               "mode": "standard"})
    credentials = session(conf, provider)
    if credentials.get_credentials() is None:
        raise no_credentials(provider)
    return credentials.client("ec2", region_name=region, config=settings,
                              endpoint_url=conf.get("endpoint") or None)


def no_credentials(provider: str) -> exception.CloudConfigError:
    """Return the error of a provider for which boto3 found no credentials."""
    return exception.CloudConfigError(
        f"cloud provider {provider}: no AWS credentials found: set 'id' and 'key', or "
        "'aws_profile', or configure boto3's chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, "
        "~/.aws/credentials, SSO, an instance role).")


# --- regions ------------------------------------------------------------------------

def provider_region(conf: Mapping[str, Any]) -> str:
    """Return the provider's own region."""
    return str(conf.get("location") or DEFAULT_REGION)


def _record_path(opts: Mapping[str, Any], provider: str) -> str:
    alias = provider.partition(":")[0]
    return os.path.join(str(opts.get("cachedir") or "."), "ec2", f"{alias}.regions.json")


def recorded_regions(opts: Mapping[str, Any], provider: str) -> list[str]:
    """Return the regions the provider ever created a node in (recorded by this host)."""
    try:
        with open(_record_path(opts, provider), encoding="utf-8") as stream:
            found = json.load(stream)
    except (OSError, ValueError):
        return []
    return [str(region) for region in found] if isinstance(found, list) else []


def record_region(opts: Mapping[str, Any], provider: str, region: str) -> None:
    """Remember that the provider makes a node in ``region`` (before it is requested)."""
    regions = recorded_regions(opts, provider)
    if region in regions:
        return
    path = _record_path(opts, provider)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as stream:
        json.dump(sorted({*regions, region}), stream)
    os.replace(temporary, path)


def known_regions(opts: Mapping[str, Any], provider: str, conf: Mapping[str, Any]) -> list[str]:
    """Return the regions to look for the provider's nodes in, its own first."""
    alias = provider.partition(":")[0]
    profile_regions = [str(profile["location"])
                       for profile in (opts.get("profiles") or {}).values()
                       if profile.get("location")
                       and str(profile.get("provider")) in (alias, provider)]
    ordered = [provider_region(conf), *profile_regions, *recorded_regions(opts, provider)]
    return list(dict.fromkeys(ordered))
