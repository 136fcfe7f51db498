"""Per-driver test setups: a cloud config dir, a profile and what the driver supports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.clouds import (
    DUMMY_PROFILES,
    DUMMY_PROVIDERS,
    kill_agents,
    write_cloud_config,
)


@dataclass
class DriverSetup:
    """One configured provider to run the contract tests against."""

    driver: str
    provider: str
    cloud_dir: Path
    profile: str = "web"
    secrets: list[str] = field(default_factory=list)
    size_after_resize: str = ""
    image_name: str = ""
    location_name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def libcloud_setup(tmp_path: Path) -> DriverSetup:
    """Return the libcloud DUMMY provider setup."""
    cloud_dir = write_cloud_config(tmp_path / "cloud", DUMMY_PROVIDERS, DUMMY_PROFILES)
    return DriverSetup("libcloud", "my-dummy", cloud_dir,
                       secrets=[DUMMY_PROVIDERS["my-dummy"]["key"]], size_after_resize="Big",
                       image_name="Ubuntu 9.10", location_name="Paul's Room")


def ec2_setup(tmp_path: Path, moto: dict[str, Any]) -> DriverSetup:
    """Return an ec2 provider on the moto server."""
    provider = {key: moto[key] for key in ("driver", "id", "key", "location", "endpoint")}
    profiles = {"web": {"provider": "my-ec2", "image": moto["image"], "size": "t2.micro",
                        "keyname": "hearth-key", "securitygroup": ["web"],
                        "tags": {"role": "web"}}}
    cloud_dir = write_cloud_config(tmp_path / "cloud", {"my-ec2": provider}, profiles)
    return DriverSetup("ec2", "my-ec2", cloud_dir, secrets=[moto["key"]],
                       size_after_resize="t2.small", image_name="hearth-test",
                       location_name="us-east-1",
                       extra={"client": moto["client"], "image_filter": {"owner": "self"},
                              "size_filter": {"sizes": "t2.micro,t2.small"}})


def local_setup(tmp_path: Path, master: Any) -> DriverSetup:
    """Return a local provider whose nodes report to ``master``."""
    cloud_dir = write_cloud_config(
        tmp_path / "cloud", {"here": {"driver": "local", "master_config": str(master.config)}},
        {"web": {"provider": "here", "grains": {"role": "web"}}})
    return DriverSetup("local", "here", cloud_dir, image_name="hearth-agent",
                       size_after_resize="default", location_name="localhost",
                       extra={"master": master})


@pytest.fixture(params=["libcloud", "ec2", "local"])
def driver_setup(request, tmp_path, hearth_home) -> DriverSetup:
    """Each shipped driver in turn (libcloud Dummy, ec2 on moto, local agents)."""
    if request.param == "ec2":
        return ec2_setup(tmp_path, request.getfixturevalue("moto_ec2"))
    if request.param == "local":
        request.addfinalizer(lambda: kill_agents(tmp_path, hearth_home))
        return local_setup(tmp_path, request.getfixturevalue("local_master"))
    return libcloud_setup(tmp_path)
