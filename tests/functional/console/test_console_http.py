"""The console's defences over real HTTP, for every page and action of its table.

One hearth-api (tokens on, no master) serves the console; two projects log
in with their tokens.  Each test walks :data:`hearth.console.pages.PAGES`,
so a page added later is covered without a new test: every action refuses
a request without the session's CSRF token or from another origin (and does
nothing), every answer carries the security headers, no page shows a
visitor without a session anything, and one project's session never reaches
another's stack.
"""

from __future__ import annotations

import re
import shutil
import time

import pytest
import requests

from hearth.console import guard
from hearth.console.pages import PAGES
from hearth.console.pages.stack_actions import VERBS
from tests.functional.api.conftest import _start, _stop, create_token

NONE_STACK = {"heat_template_version": "2021-04-16",
              "resources": {"v": {"type": "OS::Heat::None"}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory, sqlite_template):
    """hearth-api with tokens, its console under /console."""
    home = tmp_path_factory.mktemp("console-http")
    shutil.copyfile(sqlite_template, home / "hearth.db")
    server = _start(str(home))
    yield server
    _stop(server)


class Browser:
    """A logged-in session as a browser holds it: cookie, CSRF token, own origin."""

    def __init__(self, server, project: str) -> None:
        self.server = server
        self.project = project
        self.token = create_token(server.env, project)
        self.http = requests.Session()
        answer = self.http.post(f"{server.root}/console/login", allow_redirects=False,
                                data={"token": self.token}, headers=self.origin, timeout=30)
        assert answer.status_code == 303, answer.text
        self.set_cookie = answer.headers["Set-Cookie"]
        self.csrf = re.search(r'name="csrf_token" value="([^"]+)"',
                              self.get("/stacks").text).group(1)

    @property
    def origin(self) -> dict[str, str]:
        return {"Origin": self.server.root}

    def get(self, path: str, **kwargs) -> requests.Response:
        return self.http.get(f"{self.server.root}/console{path}", timeout=30,
                             allow_redirects=False, **kwargs)

    def post(self, path: str, data: dict, headers: dict) -> requests.Response:
        return self.http.post(f"{self.server.root}/console{path}", data=data, headers=headers,
                              timeout=30, allow_redirects=False)

    def rest(self, method: str, path: str, **kwargs) -> requests.Response:
        return requests.request(method, f"{self.server.url(self.project)}{path}", timeout=30,
                                headers={"X-Auth-Token": self.token}, **kwargs)

    def stack(self, name: str) -> tuple[str, str]:
        answer = self.rest("POST", "/stacks", json={"stack_name": name, "template": NONE_STACK})
        assert answer.status_code == 201, answer.text
        return name, answer.json()["stack"]["id"]


@pytest.fixture(scope="module")
def owner(server):
    return Browser(server, "proj-owner")


@pytest.fixture(scope="module")
def other(server):
    return Browser(server, "proj-other")


def concrete(path: str, values: dict[str, str]) -> list[str]:
    """Return the paths of a page's template, one per verb for ``{verb}``."""
    filled = path
    for key, value in values.items():
        filled = filled.replace("{" + key + "}", value)
    if "{verb}" not in filled:
        return [filled]
    verbs = VERBS if "/stacks/" in path else ("accept", "reject", "delete")
    return [filled.replace("{verb}", verb) for verb in verbs]


def actions(values: dict[str, str]) -> list[str]:
    """Return every action path of the console (the table's POST handlers), filled in."""
    return [path for page in PAGES if page.post is not None and not page.public
            for path in concrete(page.path, values)]


def test_the_session_cookie_is_httponly_strict_and_holds_no_token(owner):
    cookie = owner.set_cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/console" in cookie
    assert owner.token not in cookie


def test_every_action_refuses_a_request_without_the_token_or_from_another_origin(owner):
    name, stack_id = owner.stack("guarded")
    values = {"stack_name": name, "stack_id": stack_id, "draft": "d", "jid": "j",
              "agent_id": "a"}
    paths = actions(values)
    assert f"/stacks/{name}/{stack_id}/delete" in paths and "/logout" in paths
    refused = {
        "no CSRF token": ({}, owner.origin),
        "a wrong CSRF token": ({"csrf_token": "x" * 43}, owner.origin),
        "another origin": ({"csrf_token": owner.csrf}, {"Origin": "http://evil.example"}),
        "a cross-site fetch": ({"csrf_token": owner.csrf}, {"Sec-Fetch-Site": "cross-site"}),
        "an opaque origin": ({"csrf_token": owner.csrf}, {"Origin": "null"}),
    }
    for path in paths:
        for why, (form, headers) in refused.items():
            answer = owner.post(path, form, headers)
            assert answer.status_code == 403, f"POST {path} with {why}: {answer.status_code}"
            assert "Set-Cookie" not in answer.headers
    # nothing was done: the stack is there, unsuspended; the session still works
    stack = owner.rest("GET", f"/stacks/{name}/{stack_id}").json()["stack"]
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert owner.get("/stacks").status_code == 200
    # the same action with the token from the console's own page is done
    done = owner.post(f"/stacks/{name}/{stack_id}/delete", {"csrf_token": owner.csrf},
                      owner.origin)
    assert done.status_code == 303
    assert owner.rest("GET", f"/stacks/{name}/{stack_id}").json()["stack"][
        "stack_status"].startswith("DELETE")


def test_logging_in_from_another_origin_is_refused(server, owner):
    answer = requests.post(f"{server.root}/console/login", data={"token": owner.token},
                           headers={"Origin": "http://evil.example"}, timeout=30,
                           allow_redirects=False)
    assert answer.status_code == 403 and "Set-Cookie" not in answer.headers


def test_every_page_carries_the_security_headers_and_needs_a_session(server, owner):
    name, stack_id = owner.stack("headers")
    values = {"stack_name": name, "stack_id": stack_id, "draft": "d", "jid": "j",
              "agent_id": "a"}
    pages = [path for page in PAGES if page.get is not None
             for path in concrete(page.path, values) if not path.endswith("/stream")]
    for path in pages:
        answer = owner.get(path)
        # 400: the API's own answer where it has no master (agents, jobs); never a 5xx
        assert answer.status_code in (200, 303, 400, 404), (path, answer.status_code,
                                                            answer.text)
        policy = answer.headers["Content-Security-Policy"]
        assert policy == guard.CONTENT_SECURITY_POLICY, path
        assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.headers["Cache-Control"] == "no-store"
        if answer.headers.get("Content-Type", "").startswith("text/html"):
            # no inline script in any page: every script is a file of the console's own
            assert not re.search(r"<script(?![^>]*\bsrc=)", answer.text), path
            assert not re.search(r"\son[a-z]+=", answer.text), path
        anonymous = requests.get(f"{server.root}/console{path}", timeout=30,
                                 allow_redirects=False)
        if path != "/login":
            assert anonymous.status_code == 303, path
            assert anonymous.headers["Location"].endswith("/console/login")
    stream = requests.get(f"{server.root}/console/stacks/{name}/{stack_id}/stream",
                          timeout=30, allow_redirects=False)
    assert stream.status_code == 403
    # what is no page is a page saying so, with the same headers; HEAD answers as GET
    missing = owner.get("/no/such/page")
    assert missing.status_code == 404 and "No page at /console/no/such/page." in missing.text
    assert missing.headers["Content-Security-Policy"] == guard.CONTENT_SECURITY_POLICY
    assert missing.headers["Content-Type"].startswith("text/html")
    assert owner.http.head(f"{server.root}/console/login", timeout=30).status_code == 200
    refused = owner.http.put(f"{server.root}/console/stacks", timeout=30)
    assert refused.status_code == 405 and "GET" in refused.headers["Allow"]


def test_a_project_never_reaches_another_projects_stack(owner, other):
    name, stack_id = owner.stack("mine")
    base = f"/stacks/{name}/{stack_id}"
    assert name in owner.get("/stacks").text
    assert name not in other.get("/stacks").text
    for path in (base, f"{base}/template", f"{base}/update", f"{base}/delete"):
        answer = other.get(path)
        assert answer.status_code == 404, (path, answer.status_code)
        assert "could not be found" in answer.text
    # its live stream neither
    stream = other.get(f"{base}/stream", stream=True)
    assert stream.status_code == 404 and "could not be found" in stream.text
    stream.close()
    refused = other.post(f"{base}/delete", {"csrf_token": other.csrf}, other.origin)
    assert refused.status_code == 404
    # another project's CSRF token is no token of this session
    crossed = owner.post(f"{base}/delete", {"csrf_token": other.csrf}, owner.origin)
    assert crossed.status_code == 403
    stack = owner.rest("GET", f"/stacks/{name}/{stack_id}").json()["stack"]
    assert stack["stack_status"] == "CREATE_COMPLETE"


def wait_for(browser: Browser, name: str, stack_id: str) -> dict:
    """Return the stack once its action ended."""
    deadline = time.monotonic() + 60
    while True:
        stack = browser.rest("GET", f"/stacks/{name}/{stack_id}").json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            return stack
        assert time.monotonic() < deadline, stack
        time.sleep(0.1)


LAUNCHED = """heat_template_version: 2021-04-16
parameters:
  flavour:
    type: string
    label: Flavour
    default: small
    constraints:
      - allowed_values: [small, large]
  secret:
    type: string
    hidden: true
  count:
    type: number
    default: 2
    constraints:
      - range: {min: 1, max: 5}
resources:
  v:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: flavour}
outputs:
  flavour:
    value: {get_attr: [v, output]}
"""


def test_launch_preview_and_the_actions_of_a_stack_page(owner):
    csrf = {"csrf_token": owner.csrf}
    started = owner.http.post(f"{owner.server.root}/console/launch", headers=owner.origin,
                              files={"template_text": (None, LAUNCHED), **{
                                  key: (None, value) for key, value in csrf.items()}},
                              allow_redirects=False, timeout=30)
    assert started.status_code == 303, started.text
    form_path = started.headers["Location"].removeprefix("/console")
    form = owner.get(form_path).text
    # the form follows the parameters: a choice, a password for the hidden one, a range
    assert re.search(r'<select [^>]*name="param:flavour"', form)
    assert '<option value="large">large</option>' in form
    assert re.search(r'<input type="password" [^>]*name="param:secret"', form)
    assert "at least 1 and at most 5" in form
    fields = {**csrf, "stack_name": "acted", "param:flavour": "large", "param:secret": "s3cret",
              "hidden:secret": "1", "param:count": "3", "rollback": "on"}
    preview = owner.post(form_path, {**fields, "do": "preview"}, owner.origin)
    assert preview.status_code == 200 and 'id="preview"' in preview.text
    assert re.search(r'<tr data-resource="v"><td><code>v</code></td>'
                     r'<td>OS::Heat::TestResource</td></tr>', preview.text)
    assert "s3cret" not in preview.text
    assert owner.rest("GET", "/stacks/acted").status_code == 404  # a preview makes nothing
    launched = owner.post(form_path, {**fields, "do": "launch"}, owner.origin)
    assert launched.status_code == 303, launched.text
    page = launched.headers["Location"].removeprefix("/console")
    name, stack_id = page.split("/")[2:4]
    stack = wait_for(owner, name, stack_id)
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert stack["parameters"]["flavour"] == "large"
    shown = owner.get(page).text
    assert "s3cret" not in shown and "******" in shown

    for verb, status in (("suspend", "SUSPEND_COMPLETE"), ("resume", "RESUME_COMPLETE"),
                         ("check", "CHECK_COMPLETE")):
        assert "?" in re.search(r'<p id="question">([^<]*)</p>',
                                owner.get(f"{page}/{verb}").text).group(1)
        acted = owner.post(f"{page}/{verb}", csrf, owner.origin)
        assert acted.status_code == 303 and acted.headers["Location"].endswith(page)
        assert wait_for(owner, name, stack_id)["stack_status"] == status

    # update: the form holds the current values; a preview changes nothing; then update
    update_form = owner.get(f"{page}/update").text
    assert re.search(r'<option value="large" selected>', update_form)
    change = {**csrf, "param:flavour": "small", "param:secret": "", "hidden:secret": "1",
              "param:count": "3"}
    previewed = owner.post(f"{page}/update", {**change, "do": "preview"}, owner.origin)
    assert previewed.status_code == 200 and 'id="preview"' in previewed.text
    changes = dict(re.findall(r'<tr data-change="(\w+)"><th>\w+</th>\s*<td>(.*?)</td>',
                              previewed.text))
    assert "<code>v</code>" in changes["updated"] + changes["replaced"], changes
    assert changes["added"] == changes["deleted"] == "—"
    assert wait_for(owner, name, stack_id)["parameters"]["flavour"] == "large"
    updated = owner.post(f"{page}/update", {**change, "do": "update"}, owner.origin)
    assert updated.status_code == 303, updated.text
    stack = wait_for(owner, name, stack_id)
    assert stack["stack_status"] == "UPDATE_COMPLETE", stack["stack_status_reason"]
    assert stack["parameters"]["flavour"] == "small"
    # a parameter the engine refuses: the API's words on the form, nothing done
    refused = owner.post(f"{page}/update", {**change, "param:count": "9", "do": "update"},
                         owner.origin)
    assert refused.status_code == 200
    assert re.search(r'id="error">[^<]*count', refused.text), refused.text
    assert wait_for(owner, name, stack_id)["stack_status"] == "UPDATE_COMPLETE"


def test_a_group_is_one_node_linking_to_its_nested_stack(owner):
    answer = owner.rest("POST", "/stacks", json={"stack_name": "grouped", "template": {
        "heat_template_version": "2021-04-16",
        "resources": {"group": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 3, "resource_def": {"type": "OS::Heat::None"}}}}}})
    assert answer.status_code == 201, answer.text
    stack_id = answer.json()["stack"]["id"]
    assert wait_for(owner, "grouped", stack_id)["stack_status"] == "CREATE_COMPLETE"
    page = owner.get(f"/stacks/grouped/{stack_id}").text
    node = re.search(r'<g class="node s-complete group" data-node="group"[^>]*>.*?</g>', page,
                     re.S).group(0)
    assert "3 resources · 3 complete" in node
    nested = re.search(r'href="/console(/stacks/grouped-group-[^"/]+)"', node).group(1)
    # the link names the nested stack; its page is the nested stack's own, three nodes
    found = owner.get(nested)
    assert found.status_code == 303
    nested_page = owner.get(found.headers["Location"].removeprefix("/console"))
    assert nested_page.status_code == 200
    assert re.findall(r'data-node="(\d)"', nested_page.text) == ["0", "1", "2"]
    rows = owner.get(f"/stacks/grouped/{stack_id}/resources").text
    assert re.search(r'<a href="/console/stacks/grouped-group-[^"]+/[^"]+">group</a>', rows)


def read_stream(response, until: str) -> list[tuple[str, str | None, str]]:
    """Return the (event, id, data) of a stream's messages up to the first ``until`` one."""
    messages, name, event_id, data = [], None, None, []
    for line in response.iter_lines(decode_unicode=True):
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("data: "):
            data.append(line[6:])
        elif line == "" and name is not None:
            messages.append((name, event_id, "\n".join(data)))
            if name == until:
                return messages
            name, event_id, data = None, None, []
    raise AssertionError(f"the stream ended before a {until!r} message: {messages}")


def test_a_reconnecting_stream_resumes_after_the_last_event_the_browser_got(owner):
    name, stack_id = owner.stack("resumed")
    wait_for(owner, name, stack_id)
    events = owner.rest("GET", f"/stacks/{name}/{stack_id}/events",
                        params={"sort_dir": "asc"}).json()["events"]
    assert len(events) >= 4
    path = f"/stacks/{name}/{stack_id}/stream"
    with owner.get(path, stream=True) as whole:
        sent = [(event_id, data) for kind, event_id, data in read_stream(whole, "stack")
                if kind == "event"]
    assert [event_id for event_id, _ in sent] == [event["id"] for event in events]
    assert all(f'data-event="{event_id}"' in data for event_id, data in sent)
    # the browser reconnects saying it got the second event: the rest only, once each
    with owner.get(f"{path}?after=", stream=True,
                   headers={"Last-Event-ID": events[1]["id"]}) as resumed:
        again = [event_id for kind, event_id, _ in read_stream(resumed, "stack")
                 if kind == "event"]
    assert again == [event["id"] for event in events[2:]]


def test_an_action_in_progress_is_cancelled_from_the_console(owner):
    answer = owner.rest("POST", "/stacks", json={"stack_name": "cancelled", "template": {
        "heat_template_version": "2021-04-16",
        # cancelled without rollback, the walk stops: what runs ends, the rest never starts
        "resources": {"first": {"type": "OS::Heat::TestResource",
                                "properties": {"wait_secs": 3}},
                      "never": {"type": "OS::Heat::TestResource", "depends_on": "first",
                                "properties": {"wait_secs": 120}}}}})
    assert answer.status_code == 201, answer.text
    stack_id = answer.json()["stack"]["id"]
    page = f"/stacks/cancelled/{stack_id}"
    assert f'href="/console{page}/cancel-create"' in owner.get(page).text
    question = owner.get(f"{page}/cancel-create").text
    assert "Cancel the action of stack cancelled without rollback?" in question
    acted = owner.post(f"{page}/cancel-create", {"csrf_token": owner.csrf}, owner.origin)
    assert acted.status_code == 303, acted.text
    stack = wait_for(owner, "cancelled", stack_id)
    assert stack["stack_status"] == "CREATE_FAILED"
    states = {r["resource_name"]: r["resource_status"] for r in owner.rest(
        "GET", f"/stacks/cancelled/{stack_id}/resources").json()["resources"]}
    assert states["never"] == "INIT_COMPLETE", states
    # cancelling what is not in progress: the API's refusal, as a page saying so
    again = owner.post(f"{page}/cancel-create", {"csrf_token": owner.csrf}, owner.origin)
    assert again.status_code in (400, 409), again.status_code
    assert 'class="error"' in again.text
