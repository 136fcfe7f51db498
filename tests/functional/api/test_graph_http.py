"""GET .../graph over real HTTP, and stackctl --url stack-graph drawing what embedded draws."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
import requests

STACKCTL = os.path.join(os.path.dirname(sys.executable), "stackctl")
TEMPLATE = """heat_template_version: 2021-04-16
resources:
  db: {type: OS::Heat::RandomString}
  web:
    type: OS::Heat::Value
    properties:
      value: {get_attr: [db, value]}
"""
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed (make installs it)")


def _stackctl(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([STACKCTL, *args], env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def graphed(noauth_server, tmp_path_factory):
    """One stack 'graphed' created over HTTP and one alike in embedded mode: (envs, url)."""
    folder = tmp_path_factory.mktemp("graph-http")
    template = folder / "t.yaml"
    template.write_text(TEMPLATE)
    http_env = {**noauth_server.env, "HEARTH_URL": noauth_server.url("graphs")}
    local_env = {**os.environ, "HEARTH_HOME": str(folder / "embedded")}
    local_env.pop("HEARTH_URL", None)
    for env in (http_env, local_env):
        created = _stackctl(env, "stack-create", "-f", str(template), "graphed")
        assert created.returncode == 0, created.stderr
    listed = requests.get(f"{noauth_server.url('graphs')}/stacks", timeout=30).json()
    stack = listed["stacks"][0]
    url = f"{noauth_server.url('graphs')}/stacks/graphed/{stack['id']}/graph"
    return http_env, local_env, url


@needs_dot
def test_the_endpoint_serves_svg_by_default(graphed):
    _, _, url = graphed
    response = requests.get(url, timeout=60)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "image/svg+xml"
    svg = ElementTree.fromstring(response.content)
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    texts = {element.text for element in svg.iter("{http://www.w3.org/2000/svg}text")}
    assert {"db", "web", "CREATE_COMPLETE", "value"} <= texts


def test_dot_and_json_formats(graphed):
    _, _, url = graphed
    dot = requests.get(url, params={"format": "dot"}, timeout=30)
    assert dot.status_code == 200
    assert dot.headers["Content-Type"] == "text/vnd.graphviz; charset=UTF-8"
    assert '"web" -> "db" [style="bold", label="value"];' in dot.text
    data = requests.get(url, params={"format": "json"}, timeout=30).json()
    assert data["name"] == "graphed" and data["state"] == "CREATE_COMPLETE"
    assert data["edges"] == [{"source": "web", "target": "db", "kinds": ["get_attr"],
                              "attributes": ["value"]}]


def test_the_stack_name_alone_redirects_to_the_graph(graphed):
    _, _, url = graphed
    base = url.split("/stacks/")[0]
    response = requests.get(f"{base}/stacks/graphed/graph", params={"format": "json"},
                            timeout=30)
    assert response.status_code == 200
    assert response.json()["name"] == "graphed"


def test_a_bad_format_is_a_400_naming_the_choices(graphed):
    _, _, url = graphed
    response = requests.get(url, params={"format": "gif"}, timeout=30)
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "Invalid value 'gif' for 'format', acceptable values are: svg, dot, json")


def test_stackctl_over_http_draws_what_embedded_draws(graphed):
    http_env, local_env, _ = graphed
    over_http = _stackctl(http_env, "stack-graph", "graphed")
    embedded = _stackctl(local_env, "stack-graph", "graphed")
    assert over_http.returncode == 0, over_http.stderr
    assert over_http.stdout == embedded.stdout
    assert 'label="graphed\\nCREATE_COMPLETE";' in over_http.stdout


@needs_dot
def test_stackctl_over_http_draws_a_png(graphed, tmp_path):
    from tests.unit.utils.test_graphviz import png_size
    http_env, _, _ = graphed
    picture = tmp_path / "graphed.png"
    result = _stackctl(http_env, "stack-graph", "graphed", "--output", str(picture))
    assert result.returncode == 0, result.stderr
    width, height = png_size(picture.read_bytes())
    assert 100 <= width <= 2000 and 100 <= height <= 2000
