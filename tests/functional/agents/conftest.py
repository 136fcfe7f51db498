"""Fixtures of the agent tests: a real master and real agents on 127.0.0.1."""

import json
import shutil

import pytest

from tests.fixtures.agents import MasterProcess, start_agents, stop_all, wait_answering

FLEET_IDS = ("web1", "web2", "web3", "db1", "db2")


def _migrated_sqlite(template: str, directory) -> str:
    """Return the URL of a copy of the migrated template database in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, directory / "hearth.db")
    return f"sqlite:///{directory / 'hearth.db'}"


@pytest.fixture(scope="package")
def fleet(tmp_path_factory, sqlite_template):
    """A master (auto_accept) and five agents, shared by the tests that leave them intact.

    Each agent has a static grain ``role`` (web or db); the db agents have the
    pillar ``dbname: main``; the master serves the modules of ``master/modules``
    (empty at first) and the agents load zip modules.
    """
    base = tmp_path_factory.mktemp("fleet")
    pillar = base / "master" / "pillar"
    pillar.mkdir(parents=True)
    (pillar / "top.sls").write_text("base:\n  'db*':\n    - database\n")
    (pillar / "database.sls").write_text("dbname: main\n")
    modules = base / "master" / "modules"
    modules.mkdir()
    master = MasterProcess(base / "master", auto_accept=True,
                           database=_migrated_sqlite(sqlite_template, base / "master"),
                           extra="nodegroups = webs=L@web1,web2,web3\n"
                                 "nodegroups = dbs=G@role:db\n"
                                 f"module_dirs = {modules}\n")
    master.start()
    agents = []
    try:
        master.wait_ready()
        for agent_id in FLEET_IDS:
            root = base / agent_id / "root"
            root.mkdir(parents=True)
            (root / "grains.json").write_text(json.dumps({"role": agent_id.rstrip("0123456789")}))
        agents = start_agents(master, base, FLEET_IDS, defaults="enable_zip_modules = true\n")
        wait_answering(master, FLEET_IDS)
        yield master, agents
    finally:
        stop_all([*agents, master])


def _shared_master(tmp_path_factory, sqlite_template, auto_accept):
    """Start a master for a module's key tests (distinct agent ids); stop it after."""
    name = "auto-master" if auto_accept else "manual-master"
    directory = tmp_path_factory.mktemp(name)
    master = MasterProcess(directory, auto_accept=auto_accept,
                           database=_migrated_sqlite(sqlite_template, directory))
    master.start()
    try:
        master.wait_ready()
        yield master
    finally:
        stop_all([master])


@pytest.fixture(scope="module")
def manual_master(tmp_path_factory, sqlite_template):
    """A master without auto_accept, shared by a module's key tests."""
    yield from _shared_master(tmp_path_factory, sqlite_template, auto_accept=False)


@pytest.fixture(scope="module")
def auto_master(tmp_path_factory, sqlite_template):
    """A master with auto_accept, shared by a module's key tests."""
    yield from _shared_master(tmp_path_factory, sqlite_template, auto_accept=True)


@pytest.fixture
def master_dir(tmp_path, sqlite_template):
    """Start masters in a per-test directory (stopped after the test)."""
    started = []

    def start(**options):
        directory = tmp_path / f"master{len(started)}"
        options.setdefault("database", _migrated_sqlite(sqlite_template, directory))
        master = MasterProcess(directory, **options)
        master.start()
        started.append(master)
        master.wait_ready()
        return master

    yield start
    stop_all(started)


@pytest.fixture
def agents_of(tmp_path):
    """Start agents for a test (stopped after it)."""
    started = []

    def start(master, *ids, extra="", fast=True):
        agents = start_agents(master, tmp_path / "agents", ids, extra, fast=fast)
        started.extend(agents)
        return agents

    yield start
    stop_all(started)
