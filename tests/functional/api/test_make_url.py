"""``make_url`` over HTTP: a live stack's output keeps the query in the order written."""

from __future__ import annotations

import requests

from tests.functional.api.conftest import create_token, wait_status

TEMPLATE = """heat_template_version: 2021-04-16
outputs:
  url:
    value:
      make_url:
        scheme: https
        host: example.com
        port: 8443
        path: /v1/a b
        query: {q: 'x y', n: '1', b: '2'}
        fragment: top
"""


def test_output_query_keeps_the_written_order(api_server):
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(api_server.env, "make-url")
    response = session.post(f"{api_server.url('make-url')}/stacks",
                            json={"stack_name": "make-url", "template": TEMPLATE})
    assert response.status_code == 201, response.text
    location = response.headers["Location"]
    assert wait_status(lambda: session.get(location).json()["stack"])["stack_status"] == \
        "CREATE_COMPLETE"
    output = session.get(f"{location}/outputs/url").json()["output"]
    assert output["output_value"] == "https://example.com:8443/v1/a%20b?q=x+y&n=1&b=2#top"
