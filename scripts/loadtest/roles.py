"""The team: writers, heavy readers and one human, each a thread with its own connection.

Each role loops until the run's stop flag or its count cap, one request at a time (it reads
the answer before it sends the next), and keeps its own tally, so no lock is taken on the hot
path. What the restart may cause is told apart from errors:

- A connection that fails while the server is down, for a request sent before the latest
  restart became ready (it was in flight at the `kill -9`), or that was opened to the process
  since killed (a kept-alive connection idle at the kill), is *interrupted*: expected, and the
  role waits for the server to be back.
- A session that the restarted server no longer knows (404) is *gone*: the client opens a new
  one.
- A 408 (the server's request timeout ran out) is a *timeout*, and a refusal because SQLite's
  lock stayed taken past the store's busy timeout (`StoreError::Busy`) is *busy*: timings,
  counted and reported; nothing was acknowledged.
- Anything else is an *error*: a refused or failed call, an unexpected status or body, a
  connection failure while the server is up. The load test fails on any.

A write counts as acknowledged only when its answer arrived and said `memorized: true`; every
acknowledged claim is checked against the store afterwards (verify.py).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

from mcp_http import BUSY_TEXT, TIMEOUT_S, Client, Outcome

MAX_REQUESTS_PER_ROLE = 1_000_000
#: How long a role waits for the server to come back before it gives up on the run.
BACK_TIMEOUT_S = 60.0


@dataclass
class Run:
    """What every role shares: where the server is, whether it is up, and the stop flag."""

    host: str
    port: int
    run_id: str
    stop: threading.Event = field(default_factory=threading.Event)
    up: threading.Event = field(default_factory=threading.Event)
    #: How many times the server has become ready; a request sent under an older count was
    #: sent to a process that has since been killed.
    lives: int = 0
    #: True once the server has been killed and restarted (404s to sessions are expected then).
    restarted: bool = False
    login_link: str = ""

    def became_ready(self, login_link: str) -> None:
        self.login_link = login_link
        self.lives += 1
        self.up.set()

    def wait_up(self) -> bool:
        deadline = time.monotonic() + BACK_TIMEOUT_S
        while not self.stop.is_set() and time.monotonic() < deadline:
            if self.up.wait(0.05):
                return True
        return False


@dataclass
class Tally:
    role: str
    era: str
    ok: int = 0
    interrupted: int = 0
    sessions_gone: int = 0
    timeouts: int = 0
    busy: int = 0
    errors: list[str] = field(default_factory=list)
    latencies_s: list[float] = field(default_factory=list)
    sessions_opened: int = 0

    def error(self, detail: str) -> None:
        if len(self.errors) < 1000:
            self.errors.append(detail)
        else:
            self.errors[-1] = f"(and more) {detail}"


def _interrupted(run: Run, lives_at_send: int, connection_epoch: int) -> bool:
    """Whether a connection failure is the restart's doing (see the module doc)."""
    return not run.up.is_set() or run.lives != lives_at_send or run.lives != connection_epoch


def _classify(run: Run, tally: Tally, answer, lives_at_send: int) -> None:
    """Count a failed answer as interrupted, gone, timed out or an error (see the module doc)."""
    if answer.outcome is Outcome.CONNECTION:
        if _interrupted(run, lives_at_send, answer.connection_epoch):
            tally.interrupted += 1
            run.wait_up()
        else:
            tally.error(f"connection failed while the server was up: {answer.detail}")
    elif answer.outcome is Outcome.SESSION_GONE and run.restarted:
        tally.sessions_gone += 1
    elif answer.outcome is Outcome.TIMEOUT:
        tally.timeouts += 1
    elif answer.outcome is Outcome.BUSY:
        tally.busy += 1
    else:
        tally.error(f"{answer.outcome.value}: {answer.detail}")


def _mcp_loop(run: Run, tally: Tally, client: Client, request) -> None:
    """Send `request(n) -> (tool, arguments, on_ok)` until stopped; `on_ok(result) -> bool`."""
    n = 0
    try:
        while not run.stop.is_set() and n < MAX_REQUESTS_PER_ROLE:
            if not run.up.is_set() and not run.wait_up():
                break
            tool, arguments, on_ok = request(n)
            lives = run.lives
            t0 = time.perf_counter()
            answer = client.call(tool, arguments)
            elapsed = time.perf_counter() - t0
            n += 1
            if answer.outcome is Outcome.OK:
                if on_ok(answer.result):
                    tally.ok += 1
                    tally.latencies_s.append(elapsed)
                else:
                    tally.error(f"{tool}: unexpected answer {json.dumps(answer.result)[:300]}")
            else:
                _classify(run, tally, answer, lives)
    finally:
        tally.sessions_opened = client.sessions_opened
        client.close()


def writer(run: Run, k: int, era: str, acknowledged: list[str], tally: Tally) -> None:
    """`memorize` with a claim no other write uses; acknowledged claims go to `acknowledged`."""
    client = Client(run.host, run.port, era, f"writer-{k}", lambda: run.lives)

    def request(n: int):
        claim = f"loadtest {run.run_id} writer {k:02d} write {n:07d}"

        def on_ok(result) -> bool:
            if (result.get("structuredContent") or {}).get("memorized") is True:
                acknowledged.append(claim)
                return True
            return False

        return "memorize", {"node_label": "loadtest", "claims": [{"label": claim}]}, on_ok

    _mcp_loop(run, tally, client, request)


def reader(run: Run, k: int, era: str, error_text: str, tally: Tally, matches: list[int]) -> None:
    """`trace` with a long error text over every alert in the store."""
    client = Client(run.host, run.port, era, f"reader-{k}", lambda: run.lives)

    def on_ok(result) -> bool:
        found = (result.get("structuredContent") or {}).get("numbers", {}).get("matches")
        if isinstance(found, int):
            matches.append(found)
            return True
        return False

    _mcp_loop(run, tally, client, lambda n: ("trace", {"error_text": error_text}, on_ok))


def human(run: Run, think_s: float, mcp: Tally, page: Tally) -> None:
    """One person polling the cockpit root, by turns through an MCP session (`cockpit {}`, as the
    widget in a host asks) and through the page the server itself serves (`GET /cockpit.json`
    behind the login link's cookie), with a pause between looks."""
    client = Client(run.host, run.port, "session", "human", lambda: run.lives)
    browser = _Browser(run)
    n = 0
    try:
        while not run.stop.is_set() and n < MAX_REQUESTS_PER_ROLE:
            if not run.up.is_set() and not run.wait_up():
                break
            lives = run.lives
            if n % 2 == 0:
                t0 = time.perf_counter()
                answer = client.call("cockpit", {})
                elapsed = time.perf_counter() - t0
                if answer.outcome is Outcome.OK and (answer.result.get("structuredContent") or {}).get("menu_sig"):
                    mcp.ok += 1
                    mcp.latencies_s.append(elapsed)
                elif answer.outcome is Outcome.OK:
                    mcp.error(f"cockpit: no menu_sig in {json.dumps(answer.result)[:300]}")
                else:
                    _classify(run, mcp, answer, lives)
            else:
                browser.look(page, lives)
            n += 1
            run.stop.wait(think_s)
    finally:
        mcp.sessions_opened = client.sessions_opened
        page.sessions_opened = browser.logins
        client.close()
        browser.close()


class _Browser:
    """The human's page client: logs in with the server's one-time link, then keeps the cookie."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.conn: http.client.HTTPConnection | None = None
        self.cookie: str | None = None
        self.connection_life = 0
        self.logged_in_life = 0
        self.logins = 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _get(self, path: str, cookie: str | None) -> tuple[int, dict[str, str], bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.run.host, self.run.port, timeout=TIMEOUT_S)
            self.connection_life = self.run.lives
        # The pages answer only on the tray's own host, the one the login link names.
        headers = {"Host": urllib.parse.urlsplit(self.run.login_link).netloc}
        if cookie:
            headers["Cookie"] = cookie
        try:
            self.conn.request("GET", path, headers=headers)
            response = self.conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body

    def _login(self) -> None:
        link = urllib.parse.urlsplit(self.run.login_link)
        status, headers, body = self._get(f"{link.path}?{link.query}", None)
        if status != 303 or "set-cookie" not in headers:
            raise RuntimeError(f"login: HTTP {status} {body[:200]!r}")
        self.cookie = headers["set-cookie"].split(";", 1)[0]
        self.logged_in_life = self.run.lives
        self.logins += 1

    def look(self, tally: Tally, lives: int) -> None:
        connection_life = self.connection_life if self.conn is not None else self.run.lives
        try:
            if self.cookie is None or self.logged_in_life != self.run.lives:
                self._login()
            t0 = time.perf_counter()
            status, _, body = self._get("/cockpit.json", self.cookie)
            elapsed = time.perf_counter() - t0
        except (OSError, http.client.HTTPException) as e:
            if _interrupted(self.run, lives, connection_life):
                tally.interrupted += 1
                self.run.wait_up()
            else:
                tally.error(f"page: connection failed while the server was up: {type(e).__name__}: {e}")
            return
        except RuntimeError as e:
            tally.error(str(e))
            return
        if status == 200 and json.loads(body).get("menu_sig"):
            tally.ok += 1
            tally.latencies_s.append(elapsed)
        elif status == 408:
            tally.timeouts += 1
        elif status == 503 and BUSY_TEXT in body.decode(errors="replace"):
            tally.busy += 1
        else:
            tally.error(f"GET /cockpit.json: HTTP {status} {body[:200]!r}")
