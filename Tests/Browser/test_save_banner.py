#!/usr/bin/python3
"""Browser test of the banner that says the server cannot save (save-banner.js, #39): a
presenter whose page change is answered ``unavailable`` (the server's PostgreSQL has stopped)
sees "The server cannot save right now." across the top of the stage, without anything covered
that they need (the controls, End session, the stage's middle); once PostgreSQL is back, the
next page change is accepted and the banner goes.

A real outage, no fault flag: the test's server runs on a throwaway PostgreSQL of its own
(``scripts/postgres``), which the test stops and starts again. The server knows the database is
unreachable within about a second of a command waiting for it (its probe), and answers the
command ``unavailable``; once the probe finds PostgreSQL again (every second), commands are
stored again.

Runs inside the suite of ``run_browser_tests.py``. Alone:
``python3 Tests/Browser/run_browser_tests.py SaveBanner``. Needs PostgreSQL (``scripts/setup
--test``); skipped without it.
"""

import glob
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import shutil

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

import unittest  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot

POSTGRES = str(harness.REPO / "scripts" / "postgres")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer(harness.Server):
    """The podium binary on a PostgreSQL of its own, which the test can stop and start."""

    def start(self):
        binary = os.environ.get("PODIUM_BIN", str(harness.REPO / ".build" / "debug" / "podium"))
        self.binary = binary if os.path.isabs(binary) else str(harness.REPO / binary)
        self.pg_dir = tempfile.mkdtemp(prefix="podium-save-banner-pg-")
        self.pg_port = free_port()
        self.database = self.postgres("start", str(self.pg_port)).strip()
        self.data_dir = tempfile.mkdtemp(prefix="podium-save-banner-")
        harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log = open(harness.ARTIFACTS / "browser-save-banner-server.log", "wb")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        harness.add_origin(self.port)
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD=harness.ADMIN_PASSWORD, PODIUM_METRICS_ADDRESS="off")
        env.pop("PODIUM_PUBLIC_URL", None)
        env.pop("PODIUM_DATABASE_URL", None)
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir,
             "--database", self.database],
            cwd=str(harness.REPO), env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("the save banner test's server did not start; see browser-save-banner-server.log")
            time.sleep(0.2)
        status, body = self.request("POST", "/api/v1/auth/login", {"email": "admin", "password": harness.ADMIN_PASSWORD})
        if status != 200:
            raise RuntimeError(f"login failed: {status} {body}")
        self.token = body["token"]

    def postgres(self, command, *args):
        return subprocess.run([POSTGRES, command, self.pg_dir, *args], check=True, capture_output=True, text=True,
                              timeout=90).stdout

    def stop(self):
        super().stop()
        if getattr(self, "pg_dir", None):
            try:
                self.postgres("stop")
            finally:
                shutil.rmtree(self.pg_dir, ignore_errors=True)
                self.pg_dir = None


SERVER = PostgresServer()
DECK = {}


def have_postgres():
    return bool(glob.glob("/usr/lib/postgresql/*/bin/initdb"))


def setUpModule():
    if not have_postgres():
        raise unittest.SkipTest("PostgreSQL is not installed (scripts/setup --test)")
    if SERVER.proc and SERVER.proc.poll() is None:
        return
    try:
        SERVER.start()
        deck = SERVER.upload(harness.REPO / "Tests" / "Fixtures" / "pdf" / "cairo-slides.pdf", "Outage")
        DECK.update(SERVER.wait_ready(deck["id"]))
        if DECK["status"] != "ready":
            raise RuntimeError(f"the deck failed: {DECK}")
    except Exception:
        SERVER.stop()
        raise


def tearDownModule():
    SERVER.stop()


BANNER_JS = """
const banner = document.querySelector('[data-role=save-banner]');
if (!banner) return null;
const r = banner.getBoundingClientRect();
const at = (e) => { const b = e.getBoundingClientRect(); return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2); };
const stage = document.querySelector('podium-stage').getBoundingClientRect();
const next = document.querySelector('#controls [data-action=next]');
const end = document.getElementById('end-session');
const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return {
  shown: banner.checkVisibility({ checkVisibilityCSS: true }), text: banner.textContent,
  left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height,
  stageTop: stage.top, stageBottom: stage.bottom, viewport: document.documentElement.clientWidth,
  // What a click on the banner reaches: the stage under it (clicks pass through).
  clickReaches: hit ? hit.closest('podium-stage, .stage-wrap') !== null && !banner.contains(hit) : false,
  nextFree: next ? next.contains(at(next)) : null, endFree: end.contains(at(end)),
  middleFree: !banner.contains(document.elementFromPoint((stage.left + stage.right) / 2, (stage.top + stage.bottom) / 2)),
};
"""


# Turns the console's page with its controls (next, or back from the last page); answers the page
# asked for. In one script, so the page it reads is the page it turns from.
TURN_PAGE_JS = """
const stage = document.querySelector('podium-stage');
const page = Number(stage.dataset.page);
const next = document.querySelector('#controls [data-action=next]');
const forward = !next.disabled;  // (disabled on the last page)
(forward ? next : document.querySelector('#controls [data-action=prev]')).click();
return forward ? page + 1 : page - 1;
"""

# True once nothing is pending and the banner is gone; while the banner stays with nothing
# pending (the last page change was refused), turns the page again.
TURN_UNTIL_SAVED_JS = """
const banner = document.querySelector('[data-role=save-banner]');
const shown = banner && banner.checkVisibility({ checkVisibilityCSS: true });
if (document.body.dataset.pending !== '0') return false;
if (!shown) return true;
""" + TURN_PAGE_JS.replace("return forward ? page + 1 : page - 1;", "return false;")


class SaveBannerTests(BrowserTest):
    def test_the_console_says_the_server_cannot_save_while_postgresql_is_stopped(self):
        status, session = SERVER.api("POST", "/api/v1/sessions", {"deckId": DECK["id"], "allowDownload": False})
        self.assertEqual(status, 201, session)
        code = session["code"]
        driver = self.driver(1280, 800)
        driver.get(SERVER.base + "/healthz")
        driver.add_cookie({"name": "podium_auth", "value": SERVER.token, "path": "/"})
        driver.get(f"{SERVER.base}/present/{code}")
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                 "the presenter console to connect")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the first slide")
        self.assertFalse(driver.execute_script(BANNER_JS)["shown"], "no banner while the server saves")

        SERVER.postgres("stop")
        try:
            driver.find_element(By.CSS_SELECTOR, "#controls [data-action=next]").click()
            started = time.monotonic()
            wait_for(driver, lambda d: (d.execute_script(BANNER_JS) or {}).get("shown"),
                     "the banner saying the server cannot save", timeout=20)
            waited = time.monotonic() - started
            banner = driver.execute_script(BANNER_JS)
            screenshot(driver, "save-banner-console")
            self.assertLess(waited, 8, "the page change was answered unavailable within a few seconds")
            self.assertIn("The server cannot save right now.", banner["text"])
            self.assertIn("not kept", banner["text"])
            # Across the top of the stage, on screen, covering nothing the presenter needs.
            self.assertGreaterEqual(banner["top"], banner["stageTop"] - 1)
            self.assertLess(banner["bottom"], (banner["stageTop"] + banner["stageBottom"]) / 2)
            self.assertGreaterEqual(banner["left"], 0)
            self.assertLessEqual(banner["right"], banner["viewport"])
            self.assertGreater(banner["height"], 20)
            self.assertTrue(banner["endFree"], "End session is not covered")
            self.assertTrue(banner["middleFree"], "the stage's middle is not covered")
            self.assertTrue(banner["nextFree"], "the controls are not covered")
            # The console took the server's page back: the slide did not move on.
            wait_for(driver, lambda d: harness.stage_attr(d, "data-page") == "1", "the console back on page 1")
        finally:
            SERVER.postgres("start", str(SERVER.pg_port))

        # PostgreSQL is back: the presenter turns the page until the server takes it (once its
        # probe found PostgreSQL), and the banner goes. The page change answered `unavailable`
        # above may still be stored once PostgreSQL is back (the server let it go, but its query
        # still ran; see save-banner.js): its event then turns the console's page by itself, at
        # any moment. So the page is read and the button pressed in one script (nothing can come
        # between), and the page is turned only while the banner says the last one was not saved.
        # (Before, a check on page 1 then a click as that event arrived went to page 3 and waited
        # for page 2 for ever, or a click refused just before that event left the banner up on
        # page 2.)
        wait_for(driver, lambda d: d.execute_script(TURN_UNTIL_SAVED_JS), "the banner to go once PostgreSQL came back",
                 timeout=30)
        # And the next page change is stored: acknowledged (nothing pending), on the page it asked
        # for, with no banner (a refused one would bring the banner back and the page back).
        target = driver.execute_script(TURN_PAGE_JS)
        wait_for(driver, lambda d: d.execute_script(
            "return document.body.dataset.pending === '0' && document.querySelector('podium-stage').dataset.page === arguments[0]",
            str(target)), "a page change stored after PostgreSQL came back")
        self.assertFalse(driver.execute_script(BANNER_JS)["shown"], "no banner once the server saves again")
        screenshot(driver, "save-banner-gone")
