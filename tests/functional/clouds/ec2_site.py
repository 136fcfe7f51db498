"""A cloud configuration on moto and the stackctl processes using it (the ec2 tests' helpers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fixtures.clouds import MOTO_CREDENTIALS, hearth_conf, write_cloud_config
from tests.functional.stackctl_process import run


def live(client: Any, name: str | None = None) -> list[dict[str, Any]]:
    """Return the instances of ``client``'s region not terminated (those named ``name``)."""
    found = [i for r in client.describe_instances()["Reservations"] for i in r["Instances"]
             if i["State"]["Name"] not in ("terminated", "shutting-down")]
    if name is None:
        return found
    return [i for i in found if {"Key": "Name", "Value": name} in (i.get("Tags") or [])]


class Site:
    """A cloud configuration and stackctl processes using it."""

    def __init__(self, home: Path, tmp_path: Path, providers: dict[str, Any],
                 profiles: dict[str, Any]) -> None:
        self.home = home
        self.cloud_dir = write_cloud_config(tmp_path / "cloud", providers, profiles)
        self.config = hearth_conf(tmp_path / "hearth.conf", self.cloud_dir)

    def stackctl(self, *args: str) -> Any:
        done = run(self.home, *args, config=self.config, timeout=180)
        assert "Traceback" not in done.stderr, done.stderr
        return done


def ec2_provider(endpoint: str, **extra: Any) -> dict[str, Any]:
    """Return an ec2 provider block on ``endpoint`` (the moto test credentials)."""
    return {"driver": "ec2", "location": "us-east-1", "endpoint": endpoint,
            **MOTO_CREDENTIALS, **extra}


def last_error(done: Any) -> str:
    return done.stderr.strip().splitlines()[-1]
