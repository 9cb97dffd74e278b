"""The live multi-user review page (examples/web/live/, issue 34) in two real Chromium sessions.

Real parts only: quire-server runs as its own process on a free loopback port with its
SQLite store in the test's temporary directory, the sample PDF is uploaded through its admin
API, each user's token is minted by the example's own script (examples/python/mint_jwt.py,
PyJWT, ES256) with per-user rights (collaboration_permissions), the page is served by
examples/web/live_server.py, and Debian's headless Chromium runs the page twice, as Ada
and as Bob. The page talks to quire-server over its WebSocket.

What the issue asks ("Done when"): a note Ada adds appears in Bob's page within 2 s; Bob's
reply and review state come back to Ada's thread panel within 2 s; presence shows both
users in each page. Then: the records on the server carry their creators (set by the
server from the tokens), the layer's PDF export holds the reply and the state (/IRT,
/State, read by pikepdf), a third user with view-only rights sees the thread but is
refused a reply (the page shows the server's `forbidden`), and presence follows Bob out
and Carol in. The times measured are printed (pytest -s).
"""

from __future__ import annotations

import io
import json
import select
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pikepdf
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from quire_testing.paths import QUIRE_SERVER, SAMPLE  # noqa: E402
from quire_testing.paths import REPO as ROOT  # noqa: E402

try:
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - reported by the browsers fixture (conftest.py), as a failure
    pass

LIVE_SERVER = ROOT / "examples/web/live_server.py"
MINT = ROOT / "examples/python/mint_jwt.py"
SCREENSHOT = ROOT / "build/web-live-review.png"
WAIT = 20  # seconds a step that the issue puts no figure on may take
LIVE = 2.0  # the figure: a change by one user shows in the other's page within 2 s
ADMIN = "test-admin-token"
DOCUMENT, LAYER = "sample", "review"
# What a reviewer may do: see everything, add annotations and edit their own, reply to
# anything, set review states on anything. Carol may only look.
REVIEWER = "annotations:view:all,comments:view:all,annotations:edit:self,comments:reply:all,annotations:set-state:all"
VIEWER = "annotations:view:all,comments:view:all"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url: str, data: Optional[bytes] = None, headers: Optional[Dict[str, str]] = None) -> bytes:
    request = urllib.request.Request(
        url, data=data, headers=headers or {}, method="POST" if data is not None else "GET"
    )
    with urllib.request.urlopen(request, timeout=WAIT) as answer:
        return answer.read()


class Stack:
    """quire-server (SQLite in `tmp`), the sample uploaded, and the page's server."""

    def __init__(self, tmp: Path) -> None:
        if not QUIRE_SERVER.exists():
            pytest.fail("%s is not built (make)" % QUIRE_SERVER)
        self.tmp = tmp
        self.key = tmp / "backend.pem"
        subprocess.run(
            [sys.executable, str(MINT), "--new-key", str(self.key), "--kind", "ec"], check=True, capture_output=True
        )
        (tmp / "admin-token").write_text(ADMIN)
        self.port = free_port()
        self.quire_url = "http://127.0.0.1:%d" % self.port
        self.quire_log = open(tmp / "quire-server.log", "w+")
        self.page_log = open(tmp / "live-server.log", "w+")
        self.processes: List[subprocess.Popen] = []
        self.start_quire()
        uploaded = json.loads(
            http(
                self.quire_url + "/admin/documents?id=" + DOCUMENT,
                SAMPLE.read_bytes(),
                {"Authorization": "Token " + ADMIN, "Content-Type": "application/pdf"},
            )
        )
        assert uploaded["document"]["pages"] == 2
        self.page = self._start(
            [sys.executable, str(LIVE_SERVER), "--port", "0", "--quire", self.quire_url], self.page_log, subprocess.PIPE
        )
        assert self.page.stdout is not None
        ready, _, _ = select.select([self.page.stdout], [], [], WAIT)
        line = self.page.stdout.readline() if ready else ""
        if "http://" not in line:
            self.stop()
            raise AssertionError("the page's server did not start: %r\n%s" % (line, self.logged()))
        self.page_url = line.strip().rsplit(" ", 1)[-1]

    def start_quire(self) -> None:
        """quire-server on `self.port`, its store in the test's directory; waits until it answers."""
        tmp = self.tmp
        self.quire = self._start(
            [
                str(QUIRE_SERVER),
                "--port",
                str(self.port),
                "--store",
                "sqlite://%s" % (tmp / "quire.db"),
                "--public-key",
                str(tmp / "backend.pub.pem"),
                "--admin-token-file",
                str(tmp / "admin-token"),
            ],
            self.quire_log,
            subprocess.DEVNULL,
        )
        deadline = time.monotonic() + WAIT
        while True:
            try:
                http(self.quire_url + "/healthz")
                return
            except OSError:
                if self.quire.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError("quire-server did not start:\n" + self.logged())
                time.sleep(0.05)

    def stop_quire(self) -> None:
        """SIGTERM, as an operator restarting it: quire-server stops gracefully (status 0)."""
        self.quire.terminate()
        assert self.quire.wait(timeout=WAIT) == 0

    def _start(self, command: List[str], log: Any, stdout: Any) -> subprocess.Popen:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=log, text=True)
        self.processes.append(process)
        return process

    def token(self, user: str, rights: str) -> str:
        """The example's token script, as a backend would run it."""
        return subprocess.run(
            [
                sys.executable,
                str(MINT),
                str(self.key),
                "--document",
                DOCUMENT,
                "--layer",
                LAYER,
                "--user",
                user,
                "--collaboration",
                rights,
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    def url(self, user: str, rights: str = REVIEWER) -> str:
        return "%s?document=%s&layer=%s#token=%s" % (self.page_url, DOCUMENT, LAYER, self.token(user, rights))

    def records(self) -> Dict[str, Dict[str, Any]]:
        """The layer as the admin API exports it (every record, unfiltered)."""
        body = json.loads(
            http(
                "%s/admin/documents/%s/layers/%s/annotations" % (self.quire_url, DOCUMENT, LAYER),
                headers={"Authorization": "Token " + ADMIN},
            )
        )
        return {r["id"]: r for r in body["annotations"]}

    def exported(self) -> bytes:
        return http(
            "%s/admin/documents/%s/layers/%s/pdf" % (self.quire_url, DOCUMENT, LAYER),
            headers={"Authorization": "Token " + ADMIN},
        )

    def logged(self) -> str:
        out = []
        for name, log in (("quire-server", self.quire_log), ("live_server.py", self.page_log)):
            log.flush()
            log.seek(0)
            out.append("---- %s log ----\n%s" % (name, log.read()[-20000:]))
        return "\n".join(out)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            if process.stdout is not None:
                process.stdout.close()


@pytest.fixture
def stack(tmp_path: Path) -> Any:
    s = Stack(tmp_path)
    try:
        yield s
    finally:
        s.stop()
        print(s.logged())
        s.quire_log.close()
        s.page_log.close()


# ---- what a page shows ----------------------------------------------------------------------------


def texts(driver: Any, selector: str) -> List[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]


def present(driver: Any) -> List[str]:
    """The users the page's presence list shows."""
    return sorted(e.get_attribute("data-user") for e in driver.find_elements(By.CSS_SELECTOR, "#presence li"))


def until(driver: Any, seconds: float, what: str, check: Callable[[Any], Any]) -> float:
    """Waits until `check(driver)` holds, at most `seconds`; returns the time it took. (The
    page redraws its lists as the feed brings changes: an element read as it is replaced is
    read again.)"""
    start = time.monotonic()
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.02, ignored_exceptions=(StaleElementReferenceException,)).until(
            check
        )
    except TimeoutException as error:  # say what was awaited, and what the page shows
        shown = driver.find_element(By.TAG_NAME, "main").text
        error_text = driver.find_element(By.ID, "error").text
        raise AssertionError(
            "%s: not within %.1f s; the page shows:\n%s\nerror: %r" % (what, seconds, shown, error_text)
        ) from error
    return time.monotonic() - start


def console_errors(driver: Any) -> List[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_two_users_review_live(stack: Stack, browsers: Callable[[], Any]) -> None:
    # The sample's own annotations: the layer's first records (the PDF's), not replies.
    own = [r for r in stack.records().values() if "inReplyTo" not in r.get("quire", {})]
    assert len(own) >= 4
    ada, bob = browsers(), browsers()
    ada.get(stack.url("ada"))
    bob.get(stack.url("bob"))
    for driver in (ada, bob):
        until(driver, WAIT, "connected", lambda d: d.execute_script("return document.body.dataset.connected") == "1")
        # The sample's own annotations (links), read over HTTP before the socket opened.
        until(driver, WAIT, "the sample's annotations listed", lambda d: len(texts(d, "#annotations li")) == len(own))
    # Presence: each page shows both users, itself marked.
    joined = until(ada, WAIT, "presence of both in Ada's page", lambda d: present(d) == ["ada", "bob"])
    until(bob, WAIT, "presence of both in Bob's page", lambda d: present(d) == ["ada", "bob"])
    assert texts(ada, "#presence li.self") == ["ada (you)"]
    assert texts(bob, "#presence li.self") == ["bob (you)"]
    assert ada.find_element(By.ID, "me").text == "You are ada"

    # Ada adds a note; it appears in Bob's page within 2 s.
    ada.find_element(By.ID, "note-text").send_keys("Is the second link right?")
    ada.find_element(By.ID, "add-note").click()
    start = time.monotonic()
    until(
        bob,
        LIVE,
        "Ada's note in Bob's page",
        lambda d: any("ada: Is the second link right?" in t for t in texts(d, "#annotations li")),
    )
    note_seen = time.monotonic() - start
    [note_id] = [
        e.get_attribute("data-id")
        for e in bob.find_elements(By.CSS_SELECTOR, "#annotations li")
        if "Is the second link right?" in e.text
    ]
    # Ada's page shows her note's thread (her push came back in her feed), still empty.
    until(ada, WAIT, "Ada's thread panel", lambda d: d.find_element(By.ID, "thread").is_displayed())
    assert ada.find_element(By.ID, "thread-root").text == "note by ada: Is the second link right?"
    assert texts(ada, "#replies li") == [] and ada.find_element(By.ID, "review").text == "No review state yet."

    # Bob opens it (Ada's presence list says what Bob looks at), replies and sets a state.
    bob.find_element(By.CSS_SELECTOR, "#annotations li[data-id='%s']" % note_id).click()
    until(
        ada,
        WAIT,
        "Bob's selection in Ada's presence list",
        lambda d: any(
            "looking at note Is the second link right?" in t for t in texts(d, "#presence li[data-user=bob]")
        ),
    )
    bob.find_element(By.ID, "reply-text").send_keys("Checked: it goes to page 2.")
    bob.find_element(By.ID, "reply").click()
    start = time.monotonic()
    until(
        ada,
        LIVE,
        "Bob's reply in Ada's thread",
        lambda d: texts(d, "#replies li") == ["bob: Checked: it goes to page 2."],
    )
    reply_seen = time.monotonic() - start
    bob.find_element(By.CSS_SELECTOR, "#review-state option[value='Accepted']").click()
    bob.find_element(By.ID, "set-state").click()
    start = time.monotonic()
    until(
        ada,
        LIVE,
        "Bob's review state in Ada's thread",
        lambda d: d.find_element(By.ID, "review").text == "bob: Accepted",
    )
    state_seen = time.monotonic() - start
    assert texts(ada, "#states li") == ["bob: Accepted"]
    assert "1 reply" in ada.find_element(By.CSS_SELECTOR, "#annotations li[data-id='%s']" % note_id).text
    # Bob's own page shows the same thread (his pushes came back in his feed).
    until(bob, WAIT, "Bob's own thread", lambda d: d.find_element(By.ID, "review").text == "bob: Accepted")
    assert texts(bob, "#replies li") == ["bob: Checked: it goes to page 2."]
    print(
        "live: presence of both %.3f s; note A->B %.3f s, reply B->A %.3f s, state B->A %.3f s"
        % (joined, note_seen, reply_seen, state_seen)
    )

    # On the server: the creators are the tokens' users (set by the server), the reply and
    # the state are linked to the note; the layer's PDF holds them as PDF replies.
    records = stack.records()
    note = records[note_id]
    assert note["quire"]["creator"] == "ada" and note["creatorName"] == "ada"
    answers = {r["text"]: r for r in records.values() if r.get("quire", {}).get("inReplyTo") == note_id}
    reply = answers["Checked: it goes to page 2."]
    state = answers["bob set the state to Accepted"]
    assert reply["quire"]["creator"] == "bob" and "state" not in reply["quire"]
    assert state["quire"]["creator"] == "bob" and state["quire"]["state"] == "Accepted"
    with pikepdf.open(io.BytesIO(stack.exported())) as pdf:
        annots = list(pdf.pages[0].Annots)
        [root] = [a for a in annots if str(a.get("/Contents", "")) == "Is the second link right?"]
        linked = [a for a in annots if "/IRT" in a and a.IRT.objgen == root.objgen]
        assert sorted((str(a.T), str(a.get("/State", ""))) for a in linked) == [("bob", ""), ("bob", "Accepted")]
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert ada.save_screenshot(str(SCREENSHOT))

    # Bob's browser becomes Carol's, who may only look: presence follows (Bob leaves, Carol
    # comes), she sees the thread, and her reply is refused by the server, which the page says.
    bob.get("about:blank")  # Bob leaves (his page's address differs from Carol's in its fragment only)
    bob.get(stack.url("carol", VIEWER))
    until(ada, WAIT, "Carol in and Bob out of Ada's presence list", lambda d: present(d) == ["ada", "carol"])
    carol = bob
    until(
        carol,
        WAIT,
        "the note in Carol's page",
        lambda d: note_id in [e.get_attribute("data-id") for e in d.find_elements(By.CSS_SELECTOR, "#annotations li")],
    )
    carol.find_element(By.CSS_SELECTOR, "#annotations li[data-id='%s']" % note_id).click()
    assert texts(carol, "#replies li") == ["bob: Checked: it goes to page 2."]
    assert carol.find_element(By.ID, "review").text == "bob: Accepted"
    carol.find_element(By.ID, "reply-text").send_keys("Me too")
    carol.find_element(By.ID, "reply").click()
    until(
        carol,
        WAIT,
        "the refusal in Carol's page",
        lambda d: "refused (forbidden)" in d.find_element(By.ID, "error").text,
    )
    assert not any(r.get("text") == "Me too" for r in stack.records().values())
    assert texts(ada, "#replies li") == ["bob: Checked: it goes to page 2."]
    for driver in (ada, carol):
        errors = console_errors(driver)
        assert not errors, errors

    # quire-server restarts (same store): a note Ada adds meanwhile waits in her page, is
    # sent when her page has reconnected, and reaches Carol's page once: not lost, not twice.
    stack.stop_quire()
    until(
        ada,
        WAIT,
        "Ada's page disconnected",
        lambda d: d.execute_script("return document.body.dataset.connected") == "0",
    )
    ada.find_element(By.ID, "note-text").send_keys("Written while the server was away")
    ada.find_element(By.ID, "add-note").click()
    until(
        ada,
        WAIT,
        "the note waiting in Ada's page",
        lambda d: "1 waiting to be sent" in d.find_element(By.ID, "connection").text,
    )
    stack.start_quire()
    start = time.monotonic()
    until(
        carol,
        WAIT,
        "the waiting note in Carol's page",
        lambda d: any("ada: Written while the server was away" in t for t in texts(d, "#annotations li")),
    )
    back = time.monotonic() - start
    until(
        ada,
        WAIT,
        "nothing waiting in Ada's page",
        lambda d: d.execute_script("return document.body.dataset.waiting") == "0",
    )
    until(carol, WAIT, "both in Carol's presence list after the restart", lambda d: present(d) == ["ada", "carol"])
    assert len([r for r in stack.records().values() if r.get("text") == "Written while the server was away"]) == 1
    assert len(texts(carol, "#annotations li")) == len(own) + 2
    print("live: quire-server restarted; the note written meanwhile reached the other page %.3f s after" % back)


def test_live_server_relays_only_the_pages_reads(stack: Stack) -> None:
    """live_server.py relays the layer and its presence with the caller's token, as
    quire-server answers them (its refusals included), and nothing else: no export, no
    admin route, no push, no file outside live/."""
    import urllib.error

    base = stack.page_url.rsplit("/", 1)[0]
    token = stack.token("ada", REVIEWER)

    def get(path: str, bearer: Optional[str] = None, data: Optional[bytes] = None) -> Tuple[int, Dict[str, Any]]:
        headers = {"Authorization": "Bearer " + bearer} if bearer else {}
        try:
            return 200, json.loads(http(base + path, data, headers))
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    status, layer = get("/documents/%s/layers/%s" % (DOCUMENT, LAYER), token)
    assert status == 200 and layer["seq"] == 0 and len(layer["records"]) == len(stack.records())
    assert get("/documents/%s/layers/%s/presence" % (DOCUMENT, LAYER), token) == (200, {"presence": []})
    assert get("/config.json") == (200, {"socket": stack.quire_url.replace("http://", "ws://")})
    # quire-server's own refusals come back as they are.
    status, body = get("/documents/%s/layers/%s" % (DOCUMENT, LAYER))
    assert (status, body["error"]["code"]) == (401, "unauthenticated")
    status, body = get("/documents/%s/layers/other" % DOCUMENT, token)
    assert (status, body["error"]["code"]) == (403, "forbidden")
    for path in (
        "/documents/%s/layers/%s/pdf" % (DOCUMENT, LAYER),
        "/documents/%s/pdf" % DOCUMENT,
        "/admin/documents",
        "/live_server.py",
        "/../live_server.py",
        "/documents/a/layers/b/../../x",
    ):
        status, body = get(path, token)
        assert (status, body["error"]["code"]) == (404, "not_found"), path
    status, body = get("/documents/%s/layers/%s/mutations" % (DOCUMENT, LAYER), token, b"{}")
    assert (status, body["error"]["code"]) == (405, "method_not_allowed")
