"""The built-in ext_pillars on real commands, files, an HTTP server and databases.

Every failure mode ends in ``_errors`` naming the module and the cause,
where Salt's own modules log and return nothing.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import uuid

import pytest
import sqlalchemy

from hearth.pillar import compile_pillar


def ext(agent, *entries, grains=None, **opts):
    """Compile ``agent``'s pillar from ``entries`` alone; return (data, errors)."""
    pillar = compile_pillar(agent, grains or {}, {"pillar_roots": {}, "ext_pillar": list(entries),
                                                  **opts})
    return pillar, pillar.pop("_errors", [])


# --- cmd_json / cmd_yaml -------------------------------------------------------

def test_cmd_json(tmp_path):
    (tmp_path / "web1.json").write_text('{"db": {"port": 5432}}')
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "bad.json").write_text("{nope")
    data, errors = ext("web1", {"cmd_json": f"cat {tmp_path}/%s.json"})
    assert (data, errors) == ({"db": {"port": 5432}}, [])
    data, errors = ext("web1", {"cmd_json": f"cat {tmp_path}/bad.json"},
                       {"cmd_json": f"cat {tmp_path}/list.json"},
                       {"cmd_json": f"cat {tmp_path}/missing.json"})
    assert data == {}
    assert errors[0].startswith(f"Failed to load ext_pillar cmd_json (ext_pillar entry 1): JSON "
                                f"data from 'cat {tmp_path}/bad.json' failed to parse: ")
    assert errors[1] == (f"Failed to load ext_pillar cmd_json (ext_pillar entry 2): JSON data "
                         f"from 'cat {tmp_path}/list.json' is a list, not an object")
    assert errors[2].startswith(f"Failed to load ext_pillar cmd_json (ext_pillar entry 3): "
                                f"command 'cat {tmp_path}/missing.json' exited with 1: ")
    assert "No such file or directory" in errors[2]


def test_cmd_yaml_runs_through_a_shell(tmp_path):
    data, errors = ext("db1", {"cmd_yaml": "echo 'role: %s' && echo 'ports: [1, 2]'"})
    assert (data, errors) == ({"role": "db1", "ports": [1, 2]}, [])
    data, errors = ext("db1", {"cmd_yaml": "echo 'a: [1,'"}, {"cmd_yaml": "echo '- 1'"})
    assert data == {}
    assert "YAML data from \"echo 'a: [1,'\" failed to parse" in errors[0]
    assert errors[1].endswith("is a list, not a mapping")


# --- file_tree -----------------------------------------------------------------

def test_file_tree(tmp_path):
    host = tmp_path / "tree" / "hosts" / "web1"
    (host / "db" / "creds").mkdir(parents=True)
    (host / "db" / "creds" / "password").write_text("s3cret\n")
    (host / "motd").write_text("hello\n")
    group = tmp_path / "tree" / "nodegroups" / "webs"
    group.mkdir(parents=True)
    (group / "motd").write_text("group motd\n")
    (group / "only_group").write_text("g")
    root = str(tmp_path / "tree")
    data, errors = ext("web1", {"file_tree": {"root_dir": root, "keep_newline": ["./motd"]}},
                       nodegroups={"webs": "web*"})
    assert errors == []
    assert data == {"db": {"creds": {"password": "s3cret"}}, "motd": "hello\n",
                    "only_group": "g"}
    assert ext("other", {"file_tree": {"root_dir": root}}, nodegroups={})[0] == {}
    data, errors = ext("web1", {"file_tree": {"root_dir": str(tmp_path / "nope")}},
                       {"file_tree": {}}, {"file_tree": {"root_dir": root, "keep_newline": 3}})
    assert data == {}
    assert errors == [
        f"Failed to load ext_pillar file_tree (ext_pillar entry 1): file_tree: root_dir "
        f"{tmp_path}/nope does not exist or is not a directory",
        "Failed to load ext_pillar file_tree (ext_pillar entry 2): file_tree: no root_dir "
        "specified",
        "Failed to load ext_pillar file_tree (ext_pillar entry 3): file_tree: keep_newline "
        "must be either True/False or a list of file globs"]


# --- http_json -----------------------------------------------------------------

class _Handler(http.server.BaseHTTPRequestHandler):
    routes = {"/pillar/web1": (200, b'{"from_http": {"id": "web1"}}'),
              "/pillar/Debian/web1": (200, b'{"os_path": true}'),
              "/pillar/bad": (200, b"<html>"),
              "/pillar/list": (200, b"[1]")}

    def do_GET(self):  # noqa: N802 - http.server's name
        status, body = self.routes.get(self.path, (404, b"not here"))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def http_base():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def test_http_json(http_base):
    data, errors = ext("web1", {"http_json": f"{http_base}/pillar/%s"},
                       {"http_json": {"url": f"{http_base}/pillar/<os>/%s", "with_grains": True}},
                       grains={"os": "Debian"})
    assert (data, errors) == ({"from_http": {"id": "web1"}, "os_path": True}, [])


def test_http_json_failures(http_base):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    data, errors = ext("web1", {"http_json": f"{http_base}/nowhere"},
                       {"http_json": f"{http_base}/pillar/bad"},
                       {"http_json": f"{http_base}/pillar/list"},
                       {"http_json": {"url": f"http://127.0.0.1:{closed}/x", "timeout": 2}},
                       {"http_json": {"url": f"{http_base}/<role>", "with_grains": True}})
    assert data == {}
    prefix = "Failed to load ext_pillar http_json (ext_pillar entry %d): http_json: "
    assert errors[0] == prefix % 1 + f"GET {http_base}/nowhere answered 404 Not Found"
    assert errors[1].startswith(prefix % 2 + f"the body of {http_base}/pillar/bad is not JSON")
    assert errors[2] == prefix % 3 + (f"the body of {http_base}/pillar/list is a JSON list, "
                                      "not an object")
    assert errors[3].startswith(prefix % 4 + f"GET http://127.0.0.1:{closed}/x failed: ")
    assert errors[4] == prefix % 5 + f"grain 'role' of {http_base}/<role> is not set"


# --- sql -----------------------------------------------------------------------

def _fill(url, table):
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sqlalchemy.text(
            f"CREATE TABLE {table} (host VARCHAR(20), app VARCHAR(20), k VARCHAR(20), "
            "v VARCHAR(20))"))
        connection.execute(sqlalchemy.text(f"INSERT INTO {table} VALUES (:h, :a, :k, :v)"), [
            {"h": "web1", "a": "shop", "k": "port", "v": "8080"},
            {"h": "web1", "a": "shop", "k": "tier", "v": None},
            {"h": "web1", "a": "blog", "k": "port", "v": "8081"},
            {"h": "web1", "a": "blog", "k": "port", "v": "8082"},
            {"h": "db1", "a": "pg", "k": "port", "v": "5432"}])
    engine.dispose()


def _drop(url, table):
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sqlalchemy.text(f"DROP TABLE {table}"))
    engine.dispose()


def check_sql(url, table):
    query = f"SELECT app, k, v FROM {table} WHERE host = %s ORDER BY app, k, v"
    data, errors = ext("web1", {"sql": {
        "url": url,
        "queries": [query, {"query": query, "depth": 1, "ignore_null": True}],
        "apps": {"query": f"SELECT app, k, v FROM {table} WHERE host = :minion_id "
                          "ORDER BY app, k, v", "as_list": True}}})
    assert errors == []
    # Default depth (3 columns): app -> k -> v, later rows win.  Depth 1: app keys a dict
    # of the other columns by name, merged over it; ignore_null kept the port's value.
    assert data["blog"] == {"port": "8082", "k": "port", "v": "8082"}
    assert data["shop"] == {"port": "8080", "tier": None, "k": "tier", "v": "8080"}
    assert data["apps"] == {"blog": {"port": ["8081", "8082"]},
                            "shop": {"port": "8080", "tier": None}}
    bad = ext("web1", {"sql": {"url": url, "queries": [f"SELECT nope FROM {table}"]}})[1]
    assert bad[0].startswith("Failed to load ext_pillar sql (ext_pillar entry 1): sql: query #1 "
                             "on ")
    assert "failed: " in bad[0] and "nope" in bad[0]


def test_sql_on_sqlite(tmp_path):
    url = f"sqlite:///{tmp_path}/cmdb.db"
    _fill(url, "cmdb")
    check_sql(url, "cmdb")
    errors = ext("web1", {"sql": {"queries": ["SELECT 1"]}},
                 {"sql": {"url": "nosuchdb://x", "queries": ["SELECT 1"]}},
                 {"sql": {"url": url, "queries": [{"query": "SELECT 1", "deep": 2}]}})[1]
    assert errors == [
        "Failed to load ext_pillar sql (ext_pillar entry 1): sql: no database url given",
        "Failed to load ext_pillar sql (ext_pillar entry 2): sql: bad database url: Can't load "
        "plugin: sqlalchemy.dialects:nosuchdb",
        "Failed to load ext_pillar sql (ext_pillar entry 3): sql: query #1: unknown options "
        "['deep']"]


@pytest.mark.postgres
def test_sql_on_postgres(postgres_url):
    table = f"cmdb_{uuid.uuid4().hex[:8]}"
    _fill(postgres_url, table)
    try:
        check_sql(postgres_url, table)
        password_url = sqlalchemy.engine.make_url(postgres_url).set(password="hunter2x",
                                                                      port=1)
        shown = password_url.render_as_string(hide_password=False)
        errors = ext("web1", {"sql": {"url": shown, "queries": ["SELECT 1"]}})[1]
        assert "cannot connect to" in errors[0] and "hunter2x" not in errors[0]
    finally:
        _drop(postgres_url, table)


def test_results_are_plain_json(tmp_path):
    url = f"sqlite:///{tmp_path}/n.db"
    data, errors = ext("a", {"sql": {"url": url, "queries": [
        "SELECT 'n' AS k, CAST(1.5 AS NUMERIC) AS v", "SELECT '{\"j\": 1}' AS doc"]}})
    assert errors == [] and json.loads(json.dumps(data)) == {"n": 1.5, "j": 1}
