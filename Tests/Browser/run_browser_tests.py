#!/usr/bin/python3
"""Browser end-to-end tests for Podium's web client.

Starts the real server (``$PODIUM_BIN serve``, default ``.build/debug/podium``) on a free port
with a temporary data directory, then drives headless Chromium through Selenium: a presenter
window and viewer windows, as people use it. Screenshots of every page land in
``test-artifacts/screenshots/``.

Run from anywhere:  python3 Tests/Browser/run_browser_tests.py   (Debian's python3-selenium,
chromium and chromium-driver). The last line printed is ``N passed, M failed``.
"""

import importlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

try:
    import selenium  # noqa: F401
except ImportError:  # a pyenv or venv python: use Debian's package
    sys.path.append("/usr/lib/python3/dist-packages")

from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException, StaleElementReferenceException, WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
SHOTS = ARTIFACTS / "screenshots"
FIXTURES = REPO / "Tests" / "Fixtures" / "pdf"
DEMO_PDF = REPO / "Public" / "demo" / "podium-demo.pdf"
# axe-core, for the accessibility checks: `scripts/setup --test` puts PyPI's copy here.
AXE_JS = REPO / ".build" / "python-packages" / "selenium_axe_python" / "axe-core" / "axe.min.js"
# Chromium's headless shell (Debian's chromium-headless-shell: the same engine without the
# browser's own windows and services) when it is installed: the suite passed whole on it and the
# pages' CPU is most of the browser tests' (see docs/performance.md, "Test suite"). CHROMIUM_BIN
# chooses another (the full browser, /usr/bin/chromium, runs the same tests under --headless=new).
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM = os.environ.get("CHROMIUM_BIN") or (HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")
WAIT = float(os.environ.get("PODIUM_BROWSER_WAIT", "20"))

ADMIN_PASSWORD = "pw-" + secrets.token_hex(8)
# Runners started side by side by `main` each have their own server, and its own log.
SERVER_LOG = os.environ.get("PODIUM_BROWSER_SERVER_LOG", "browser-server.log")


class ServerExited(RuntimeError):
    """The server process ended while it was being started."""


# ---------------------------------------------------------------- the server


class Server:
    """The podium binary, started once for the whole run."""

    def __init__(self):
        self.proc = None
        self.data_dir = None
        self.base = None
        self.token = None
        self.log = None

    def start(self):
        binary = os.environ.get("PODIUM_BIN", str(REPO / ".build" / "debug" / "podium"))
        if not os.path.isabs(binary):
            binary = str(REPO / binary)
        if not os.access(binary, os.X_OK):
            raise RuntimeError(f"no podium binary at {binary} (build it, or set PODIUM_BIN)")
        self.binary = binary
        self.data_dir = tempfile.mkdtemp(prefix="podium-browser-")
        if TEMPLATE.get("dir"):  # a data directory with the demo deck already processed (see setUpModule)
            shutil.copytree(TEMPLATE["dir"], self.data_dir, dirs_exist_ok=True)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log = open(ARTIFACTS / SERVER_LOG, "wb")
        # A free port, found by binding to port 0 and letting go: a runner beside this one (see
        # `main`) may take the same one in between, in which case the server exits and another
        # port is tried.
        for attempt in range(3):
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                self.port = probe.getsockname()[1]
            self.base = f"http://127.0.0.1:{self.port}"
            add_origin(self.port)
            try:
                self.launch()
                break
            except ServerExited:
                if attempt == 2:
                    raise
        if TEMPLATE.get("token"):
            # Its data directory is the template's, which holds the admin's sign-in already: the
            # same token (stored in that database) works here, and signing in again would cost
            # a password hash (0.4-0.6 s of a debug build's CPU) per server.
            self.token = TEMPLATE["token"]
            return
        status, body = self.request("POST", "/api/v1/auth/login", {"email": "admin", "password": ADMIN_PASSWORD})
        if status != 200:
            raise RuntimeError(f"login failed: {status} {body}")
        self.token = body["token"]

    def launch(self):
        """Starts the process on the chosen port and data directory; waits for /healthz."""
        # No metrics listener: the browser tests read none, and the servers of the runners beside
        # this one would each try the same default address.
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD=ADMIN_PASSWORD, PODIUM_METRICS_ADDRESS="off")
        env.pop("PODIUM_PUBLIC_URL", None)
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir],
            cwd=str(REPO), env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise ServerExited(f"the server exited with {self.proc.returncode}; see {self.log.name}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, socket.timeout):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer /healthz within 60 s")
            time.sleep(0.2)

    def terminate(self):
        """Stops the process gracefully (SIGTERM), keeping the data directory."""
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=5)

    def stop(self):
        self.terminate()
        if self.base:
            remove_origin(self.port)
        if self.log:
            self.log.close()
        if self.data_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def request(self, method, path, body=None, token=None, content_type=None, raw=None):
        """One REST call; returns (status, parsed JSON or None)."""
        headers = {"Accept": "application/json"}
        data = None
        if raw is not None:
            data = raw
            headers["Content-Type"] = content_type or "application/pdf"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = "Bearer " + token
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                payload = response.read()
                status = response.status
        except urllib.error.HTTPError as error:
            payload = error.read()
            status = error.code
        try:
            return status, json.loads(payload) if payload else None
        except ValueError:
            return status, None

    def api(self, method, path, body=None, **kw):
        return self.request(method, path, body, token=self.token, **kw)

    def upload(self, path, title):
        status, deck = self.api("POST", "/api/v1/decks?title=" + urllib.request.quote(title), raw=Path(path).read_bytes())
        if status != 201:
            raise AssertionError(f"upload of {path} answered {status}: {deck}")
        return deck

    def wait_ready(self, deck_id, timeout=120):
        """Polls the deck until it is no longer processing (a bounded wait on a condition)."""
        deadline = time.monotonic() + timeout
        while True:
            status, deck = self.api("GET", f"/api/v1/decks/{deck_id}")
            if status == 200 and deck["status"] != "processing":
                return deck
            if time.monotonic() > deadline:
                raise AssertionError(f"deck {deck_id} still processing after {timeout} s: {deck}")
            time.sleep(0.25)

    def start_session(self, deck_id, passcode=None, allow_download=False):
        body = {"deckId": deck_id, "allowDownload": allow_download}
        if passcode:
            body["passcode"] = passcode
        status, session = self.api("POST", "/api/v1/sessions", body)
        if status != 201:
            raise AssertionError(f"POST /api/v1/sessions answered {status}: {session}")
        return session


SERVER = Server()
DEMO_DECK = {}
# A copy of the first server's data directory as it is once the demo deck is processed, taken
# with that server stopped: the next servers of this runner start from it instead of processing
# the demo deck again (Poppler, seconds of CPU each time). The same state a new server reaches.
TEMPLATE = {}


def make_template():
    SERVER.terminate()
    TEMPLATE["dir"] = tempfile.mkdtemp(prefix="podium-browser-template-")
    shutil.copytree(SERVER.data_dir, TEMPLATE["dir"], dirs_exist_ok=True)
    TEMPLATE["token"] = SERVER.token  # (its sign-in is in the copy: see Server.start)
    SERVER.launch()


def drop_template():
    TEMPLATE.pop("token", None)
    if TEMPLATE.get("dir"):
        shutil.rmtree(TEMPLATE.pop("dir"), ignore_errors=True)


def setUpModule():
    started = time.monotonic()
    try:
        start_server()
    finally:
        profiled("(server start)", started)


def start_server():
    try:
        SERVER.start()
        # The demo deck is in the library at first start; wait until it is rendered.
        deadline = time.monotonic() + 120
        while True:
            status, decks = SERVER.api("GET", "/api/v1/decks")
            if status == 200 and decks:
                deck = SERVER.wait_ready(decks[-1]["id"])
                if deck["status"] != "ready":
                    raise RuntimeError(f"the demo deck failed: {deck}")
                DEMO_DECK.update(deck)
                if not TEMPLATE.get("dir"):
                    make_template()
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"no demo deck in the library: {status} {decks}")
            time.sleep(0.25)
    except Exception:
        SERVER.stop()
        raise


def tearDownModule():
    SERVER.stop()


def json_difference(expected, actual, path="value"):
    """The first place where two JSON values differ, or None."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in actual:
                return f"{path}.{key}: missing in the browser (server: {json.dumps(expected[key])[:200]})"
            if key not in expected:
                return f"{path}.{key}: only in the browser ({json.dumps(actual[key])[:200]})"
            found = json_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path}: {len(expected)} items on the server, {len(actual)} in the browser"
        for index, (left, right) in enumerate(zip(expected, actual)):
            found = json_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        return None
    if isinstance(expected, bool) != isinstance(actual, bool) or expected != actual:
        return f"{path}: server {json.dumps(expected)}, browser {json.dumps(actual)}"
    return None


# ---------------------------------------------------------------- browsers


def launch_driver(width, height, extra=()):
    """A new Chromium with its own profile (its own cookies and storage), driven by chromedriver.
    `extra`: more flags, for a browser a test starts (and quits) itself, such as Chromium's fake
    microphone (FAKE_MEDIA)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        f"--window-size={width},{height}", "--force-device-scale-factor=1", "--no-first-run",
        "--disable-extensions", "--mute-audio", "--password-store=basic", "--lang=en-US",
        # A page left for the next test must really be gone (its sockets closed), not kept in the
        # back-forward cache: browsers are used again by the next test (see BrowserPool).
        "--disable-features=BackForwardCache",
        *extra,
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


# Chromium's fake microphone and camera (a beep), allowed without asking: what a test that records
# the presenter's voice gives `launch_driver` (localhost is a secure context).
FAKE_MEDIA = ("--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream")


def size_driver(driver, width, height):
    """The page gets exactly this viewport (a window's size includes the browser's own frame)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def profiled(name, started):
    if PROFILE:
        total, count = WAITED.get(name, (0.0, 0))
        WAITED[name] = (total + time.monotonic() - started, count + 1)


def new_driver(width, height):
    started = time.monotonic()
    driver = launch_driver(width, height)
    profiled("(a new browser)", started)
    size_driver(driver, width, height)
    return driver


# Every origin a test's pages may have stored something for (the servers' addresses, as
# 127.0.0.1 and as localhost): a browser handed to the next test forgets them all. ORIGINS are
# the servers running now; ADDED every origin ever added, in order. A browser's pages can only
# have reached the servers that ran while a test held it, so its reset clears those (the ones
# running when it was handed out, and every one added since) and not every server this runner
# ever started: clearing one origin costs Chromium about 0.1-0.2 s, and a runner starts some 20
# servers (the resets took 3-4 s each by its last classes).
ORIGINS = set()
ADDED = []


def add_origin(port):
    origins = (f"http://127.0.0.1:{port}", f"http://localhost:{port}")
    ORIGINS.update(origins)
    ADDED.extend(origins)


def remove_origin(port):
    """A server stopped for good: no page can store anything for its origins any more."""
    ORIGINS.difference_update((f"http://127.0.0.1:{port}", f"http://localhost:{port}"))


def handed_out(driver):
    """Notes which servers a browser may reach from now on (see ORIGINS): those running, and any
    started later."""
    driver.podium_origins = (set(ORIGINS), len(ADDED))
    return driver


def reachable_origins(driver):
    """The origins a browser's pages may have stored something for since it was handed out."""
    running, added = getattr(driver, "podium_origins", (set(), 0))
    return running | set(ADDED[added:]) | set(ORIGINS)


class BrowserPool:
    """The browsers of this runner, used again from one test to the next.

    Starting Chromium and chromedriver costs one to two seconds of CPU each, and the suite opens
    some 130 browsers: a browser a test is done with is reset to a blank, new-profile state (no
    page, no cookies, no storage, no emulated network or media, no held keys or buttons; in the
    background, while the next test starts) and given to the next test that asks for one. Each
    test still has as many separate browsers as it opens (separate cookies, so separate people).
    A browser of a failed test, or one that does not reset cleanly, is closed instead."""

    def __init__(self, keep=6):
        self.idle = []  # futures of browsers being reset or started: each answers the browser, or None
        self.keep = keep
        self.resetting = None

    def acquire(self, width, height):
        driver = self.take(width, height) or new_driver(width, height)
        # The last browser in hand: a test that takes it often asks for another next (a room test
        # opens five), so one more starts in the background while this one loads its page, and
        # the next ask finds it ready instead of waiting 1-2 s (3-4 s on a busy machine) for it.
        if not self.idle:
            self.idle.append(self.executor().submit(self.spare))
        return handed_out(driver)

    def take(self, width, height):
        """A browser reset or started in the background, sized; None when none is left."""
        while self.idle:
            driver = self.idle.pop(0).result()
            if driver is None:
                continue
            try:
                driver.set_window_size(width, height)
                size_driver(driver, width, height)
                return driver
            except WebDriverException:
                quit_driver(driver)
        return None

    @staticmethod
    def spare():
        try:
            driver = launch_driver(1280, 800)
            size_driver(driver, 1280, 800)
            return driver
        except Exception:  # no spare: the next ask starts its own
            return None

    def executor(self):
        if self.resetting is None:
            import concurrent.futures
            self.resetting = concurrent.futures.ThreadPoolExecutor(max_workers=2)
        return self.resetting

    def release(self, driver, reuse=True):
        if not (reuse and len(self.idle) < self.keep):
            quit_driver(driver)
            return

        def reset():
            started = time.monotonic()
            try:
                reset_driver(driver)
            except Exception:  # whatever went wrong, this browser is not used again
                quit_driver(driver)
                return None
            profiled("(a browser reset, in the background)", started)
            return driver

        self.idle.append(self.executor().submit(reset))

    def close(self):
        while self.idle:
            driver = self.idle.pop().result()
            if driver is not None:
                quit_driver(driver)
        if self.resetting is not None:
            self.resetting.shutdown()


def reset_driver(driver):
    """Leaves the browser as a new one: one new, blank tab (new session storage, nothing emulated),
    no cookies, nothing stored for any server's origin, no keys or buttons held."""
    try:
        driver.switch_to.alert.dismiss()
    except WebDriverException:
        pass
    ActionBuilder(driver).clear_actions()
    old = driver.window_handles
    driver.switch_to.new_window("tab")
    fresh = driver.current_window_handle
    for handle in old:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(fresh)
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    for origin in sorted(reachable_origins(driver)):
        driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
    driver.set_script_timeout(30)
    driver.get_log("browser")  # the next test reads only its own pages' messages


def quit_driver(driver):
    try:
        driver.quit()
    except WebDriverException:
        pass


POOL = BrowserPool()


# PODIUM_BROWSER_PROFILE=1: the waits that took longest are listed at the end of each runner's
# output (where a slow test spends its time).
PROFILE = os.environ.get("PODIUM_BROWSER_PROFILE") == "1"
WAITED = {}
# How many times the waits asked their conditions (PODIUM_BROWSER_PROFILE=1).
ASKED = [0]


# How often a wait asks its condition: every 50 ms at first, then less and less often, at most
# every WAIT_POLL_MAX seconds. Each ask is one or more WebDriver commands (about 5 ms of CPU
# between Python, chromedriver and Chromium for the smallest), so a wait of seconds at a steady
# 50 ms (a clip packaged, a socket reconnecting) cost half a second of CPU each 5 s. A condition met
# at once is seen as soon as before; one that takes seconds is seen at most WAIT_POLL_MAX late.
WAIT_POLL_FIRST = 0.05
WAIT_POLL_GROWTH = 1.25
WAIT_POLL_MAX = 0.2


def wait_for(driver, condition, message, timeout=WAIT):
    """Waits until condition(driver) is truthy; returns its value."""
    started = time.monotonic()
    deadline = started + timeout
    interval = WAIT_POLL_FIRST
    try:
        while True:
            try:
                ASKED[0] += 1
                value = condition(driver)
                if value:
                    return value
            except (StaleElementReferenceException, NoSuchElementException):
                # An element the page replaced between finding it and reading it (a list
                # re-rendered by the next event) is stale, or not there yet: the condition is
                # asked again, on the page as it is now.
                pass
            now = time.monotonic()
            if now >= deadline:
                raise AssertionError(f"timed out: {message}")
            time.sleep(min(interval, deadline - now))
            interval = min(interval * WAIT_POLL_GROWTH, WAIT_POLL_MAX)
    finally:
        if PROFILE:
            total, count = WAITED.get(message, (0.0, 0))
            WAITED[message] = (total + time.monotonic() - started, count + 1)


def stage_attr(driver, name, selector="podium-stage"):
    return driver.execute_script(
        "const s = document.querySelector(arguments[1]); return s ? s.getAttribute(arguments[0]) : null;", name, selector)


def visible(driver, css):
    elements = driver.find_elements(By.CSS_SELECTOR, css)
    return elements[0] if elements and elements[0].is_displayed() else None


def wait_translated(driver):
    """The page's words are in (app/core/i18n.js): until then its body is hidden, or, past a second,
    shown in English while its script still waits."""
    wait_for(driver, lambda d: d.execute_script(
        "return document.readyState === 'complete' && !document.documentElement.classList.contains('i18n-pending')"),
        "the catalogues to load")


def text_of(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null;", css)


def screenshot(driver, name):
    started = time.monotonic()
    try:
        take_screenshot(driver, name)
    finally:
        profiled("(screenshots)", started)


# The CSS transitions and animations running now, let finish (at most 2 s), so that a screenshot
# shows the settled page. Not those that never end (a pulsing icon), and not those started while
# waiting: a page that starts a transition every half second (the radio's progress bar) never has
# none running, and each of its screenshots waited the whole 2 s.
ANIMATIONS_END_JS = """
const done = arguments[arguments.length - 1];
const running = document.getAnimations().filter((a) => a.playState === 'running'
  && !(a.effect && a.effect.getTiming().iterations === Infinity));
Promise.race([
  Promise.all(running.map((a) => a.finished.catch(() => null))),
  new Promise((resolve) => setTimeout(resolve, 2000)),
]).then(() => done(running.length));
"""


def finish_animations(driver):
    """Until the transitions and animations running now have ended (at most 2 s): a panel still
    sliding in has its buttons somewhere else than where a click lands."""
    try:
        driver.execute_async_script(ANIMATIONS_END_JS)
    except WebDriverException:
        pass


def take_screenshot(driver, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    finish_animations(driver)
    if PROFILE and time.monotonic() - started > 1.5:
        profiled("(screenshots: animations that took over 1.5 s to end)", started)
    path = SHOTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not driver.save_screenshot(str(path)):
        raise AssertionError(f"the screenshot {path} could not be written")


SETTLED_JS = """
const s = document.querySelector('podium-stage');
const img = s && s.querySelector('img.current');
if (!img || !img.complete || !img.naturalWidth) return false;
const [x, y, w, h] = s.dataset.viewport.split(',').map(Number);
const f = s.querySelector('.stage-frame').getBoundingClientRect();
const i = img.getBoundingClientRect();
const near = (a, b) => Math.abs(a - b) < 0.004;
return near(f.width / i.width, w) && near(f.height / i.height, h)
    && near((f.left - i.left) / i.width, x) && near((f.top - i.top) / i.height, y);
"""


def wait_settled(driver):
    """The current slide loaded and laid out for the stage's viewport (transitions over)."""
    wait_for(driver, lambda d: d.execute_script(SETTLED_JS), "the slide to show the stage's viewport")


def dismiss_toasts(driver):
    """Closes the page's toasts, as a person would before reaching what they cover."""
    for button in driver.find_elements(By.CSS_SELECTOR, ".toast-close"):
        try:
            button.click()
        except WebDriverException:
            pass
    wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, ".toast"), "the toasts to close")


def point(text):
    x, y = (float(v) for v in text.split(","))
    return x, y


# How long each pointer move of a drag lasts (ms), for the drags that draw ink. Selenium's default
# is 250 ms a move, and chromedriver only waits it out: the page gets one pointermove per move
# whatever the duration (measured: 13 moves took 3.9 s at 250 ms, 0.6 s at 20 ms, with the same 13
# events), so the ink tests' drags (some 50 moves) spent about 12 s waiting.
DRAG_MOVE_MS = 20


class BrowserTest(unittest.TestCase):
    def setUp(self):
        self.drivers = []

    def tearDown(self):
        result = getattr(getattr(self, "_outcome", None), "result", None)
        failed = bool(result) and any(test is self for test, _ in result.errors + result.failures)
        violations = []
        for index, driver in enumerate(self.drivers):
            try:
                logs = driver.get_log("browser")
                # The server's Content-Security-Policy is strict: the client must never trip it.
                violations += [e["message"] for e in logs if "Content Security Policy" in e["message"]]
                if failed:
                    screenshot(driver, f"FAILED-{self._testMethodName}-{index}")
                    errors = [e["message"] for e in logs if e["level"] == "SEVERE"]
                    if errors:
                        print(f"\n  browser {index} console errors:\n    " + "\n    ".join(errors[:20]), file=sys.stderr)
            except WebDriverException:
                pass
            POOL.release(driver, reuse=not failed)
        if violations and not failed:
            raise AssertionError("Content-Security-Policy violations:\n  " + "\n  ".join(violations[:10]))

    def driver(self, width, height):
        """A browser of its own (its own cookies and storage), with a viewport of this size."""
        driver = POOL.acquire(width, height)
        self.drivers.append(driver)
        return driver

    def scratch_directory(self, prefix):
        """A directory for the files this test makes (a picture to upload, a broken PDF), removed
        when the test ends, passed or failed."""
        directory = Path(tempfile.mkdtemp(prefix=prefix))
        self.addCleanup(shutil.rmtree, directory, True)
        return directory

    def release(self, driver):
        """A browser this test is done with, before the test ends (for the next one to use)."""
        self.drivers.remove(driver)
        POOL.release(driver)

    # ---- flows ----

    def sign_in_with_cookie(self, driver):
        """Signs a browser in without the form (the form has its own test)."""
        driver.get(SERVER.base + "/healthz")
        driver.add_cookie({"name": "podium_auth", "value": SERVER.token, "path": "/"})

    def sign_in_with_form(self, driver):
        driver.get(SERVER.base + "/login")
        wait_for(driver, lambda d: visible(d, "#email"), "the sign-in form")
        screenshot(driver, "login")
        driver.find_element(By.ID, "email").send_keys("admin")
        driver.find_element(By.ID, "password").send_keys("wrong password")
        driver.find_element(By.ID, "login-submit").click()
        wait_for(driver, lambda d: text_of(d, "#login-error"), "an error for a wrong password")
        self.assertIn("Wrong email or password", text_of(driver, "#login-error"))
        screenshot(driver, "login-error")
        field = driver.find_element(By.ID, "password")
        field.clear()
        field.send_keys(ADMIN_PASSWORD)
        driver.find_element(By.ID, "login-submit").click()
        wait_for(driver, lambda d: d.current_url.rstrip("/").endswith("/library"), "the library after signing in")

    def open_console(self, driver, code):
        driver.get(f"{SERVER.base}/present/{code}")
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                 "the presenter console to connect")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the first slide")

    def join_as_viewer(self, driver, code, via_home=False, name=None, passcode=None):
        if via_home:
            driver.get(SERVER.base + "/")
            field = wait_for(driver, lambda d: visible(d, "#code"), "the code field on the home page")
            field.send_keys(code.lower())  # typed in lower case: the field upper-cases it
            self.assertEqual(field.get_attribute("value"), code)
            driver.find_element(By.ID, "join-button").click()
        else:
            driver.get(f"{SERVER.base}/s/{code}")
        wait_for(driver, lambda d: visible(d, "#gate-form"), "the join gate")
        if name:
            driver.find_element(By.ID, "viewer-name").send_keys(name)
        if passcode is not None:
            driver.find_element(By.ID, "passcode").send_keys(passcode)
        driver.find_element(By.ID, "join-button").click()
        self.wait_watching(driver)

    def wait_watching(self, driver):
        wait_for(driver, lambda d: visible(d, "#watch") and stage_attr(d, "data-page"), "the viewer's stage")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "a slide on the viewer")

    def press(self, driver, key):
        ActionChains(driver).send_keys(key).perform()

    def wait_synced(self, presenter):
        """Every command of the presenter acknowledged by the server."""
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.pending") == "0",
                 "the server to acknowledge the presenter's commands")


# ---------------------------------------------------------------- tests


class LiveBroadcastTests(BrowserTest):
    def test_1_presenter_and_two_viewers(self):
        """Go live from the library; page change, zoom, laser and blank reach both viewers; end."""
        presenter = self.driver(1280, 800)
        self.sign_in_with_form(presenter)
        card = wait_for(presenter, lambda d: visible(d, f'[data-deck-id="{DEMO_DECK["id"]}"][data-status="ready"]'),
                        "the demo deck's card")
        wait_for(presenter, lambda d: d.execute_script(
            "const i = document.querySelector('.deck-thumb img'); return i && i.complete && i.naturalWidth > 0"),
            "the thumbnail to load")
        screenshot(presenter, "library")
        card.find_element(By.CSS_SELECTOR, '[data-action="golive"]').click()
        wait_for(presenter, lambda d: visible(d, "#golive-dialog"), "the go-live dialog")
        screenshot(presenter, "library-golive-dialog")
        presenter.find_element(By.ID, "golive-start").click()
        wait_for(presenter, lambda d: "/present/" in d.current_url, "the presenter console")
        code = presenter.current_url.rstrip("/").rsplit("/", 1)[1]
        self.assertRegex(code, r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$")
        self.open_console(presenter, code)
        self.assertEqual(text_of(presenter, "#join-code"), code)
        wait_for(presenter, lambda d: d.execute_script(
            "const i = document.getElementById('join-qr'); return i.src.startsWith('data:') && i.naturalWidth > 0"),
            "the QR code")

        phone = self.driver(390, 844)
        projector = self.driver(1920, 1080)
        # The home page lists the live session (lobby socket) before the viewer types the code.
        phone.get(SERVER.base + "/")
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"]'),
                 "the live session on the home page")
        screenshot(phone, "home-phone")
        self.join_as_viewer(phone, code, via_home=True, name="Ada")
        self.join_as_viewer(projector, code, via_home=True)
        viewers = (phone, projector)
        for viewer in viewers:
            self.assertEqual(stage_attr(viewer, "data-page"), "1")
        wait_for(presenter, lambda d: text_of(d, "#viewer-count") == "2", "the presenter to count 2 viewers")

        # Page change with the keyboard.
        self.press(presenter, Keys.ARROW_RIGHT)
        self.assertEqual(stage_attr(presenter, "data-page"), "2")
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-page") == "2", "viewers on page 2")
        self.assertEqual(text_of(projector, "#watch-page"), f"Slide 2 / {DEMO_DECK['pageCount']}")

        # Zoom with the + control: every viewer shows the same rectangle of the page.
        presenter.find_element(By.CSS_SELECTOR, '[data-action="zoom-in"]').click()
        rect = stage_attr(presenter, "data-viewport")
        self.assertNotEqual(rect, "0,0,1,1")
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-viewport") == rect, f"viewers to show viewport {rect}")
        for viewer in viewers:
            # The image is scaled and moved so that the viewport rectangle fills the visible frame.
            wait_settled(viewer)
        self.wait_synced(presenter)
        wait_settled(presenter)
        screenshot(presenter, "present-zoomed")

        # Laser pointer: press and hold on the stage.
        stage = presenter.find_element(By.CSS_SELECTOR, "podium-stage")
        actions = ActionChains(presenter)
        actions.move_to_element_with_offset(stage, -60, -40).click_and_hold().perform()
        try:
            shown = wait_for(presenter, lambda d: stage_attr(d, "data-pointer"), "the presenter's own pointer")
            for viewer in viewers:
                got = wait_for(viewer, lambda d: stage_attr(d, "data-pointer"), "the pointer on the viewers")
                self.assertAlmostEqual(point(got)[0], point(shown)[0], delta=0.01)
                self.assertAlmostEqual(point(got)[1], point(shown)[1], delta=0.01)
            ActionChains(presenter).move_by_offset(80, 30).perform()
            moved = wait_for(presenter, lambda d: stage_attr(d, "data-pointer") != shown and stage_attr(d, "data-pointer"),
                             "the pointer to follow the mouse")
            for viewer in viewers:
                wait_for(viewer, lambda d: stage_attr(d, "data-pointer") and all(
                    abs(a - b) < 0.01 for a, b in zip(point(stage_attr(d, "data-pointer")), point(moved))),
                    "the viewers' pointer to follow")
            wait_settled(projector)
            screenshot(projector, "viewer-projector-pointer")
        finally:
            ActionChains(presenter).release().perform()
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-pointer") is None, "the pointer to disappear")
        self.assertEqual(stage_attr(presenter, "data-page"), "2", "holding for the pointer must not turn the page")

        # The pointer mode toggle, too.
        presenter.find_element(By.CSS_SELECTOR, '[data-action="pointer"]').click()
        ActionChains(presenter).move_to_element_with_offset(stage, 100, 50).perform()
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-pointer"), "the pointer in pointer mode")
        presenter.find_element(By.CSS_SELECTOR, '[data-action="pointer"]').click()
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-pointer") is None, "the pointer off with the mode")

        # Reset zoom with 0, then blank to black and back.
        self.press(presenter, "0")
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-viewport") == "0,0,1,1", "zoom reset on viewers")
        for driver in (phone, projector, presenter):
            wait_settled(driver)
        screenshot(phone, "viewer-phone")
        screenshot(projector, "viewer-projector")
        screenshot(presenter, "present")
        presenter.find_element(By.CSS_SELECTOR, '[data-action="blank-black"]').click()
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-blank") == "black", "viewers blanked to black")
        screenshot(phone, "viewer-phone-black")
        self.press(presenter, "b")
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-blank") == "none", "viewers shown the slide again")
        self.press(presenter, "w")
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-blank") == "white", "viewers blanked to white")
        self.press(presenter, "w")

        # Clicking the right edge of the stage turns the page.
        ActionChains(presenter).move_to_element_with_offset(stage, stage.size["width"] // 2 - 80, 0).click().perform()
        for viewer in viewers:
            wait_for(viewer, lambda d: stage_attr(d, "data-page") == "3", "viewers on page 3 after an edge click")

        # The join screen for the projector.
        presenter.find_element(By.ID, "present-join").click()
        wait_for(presenter, lambda d: visible(d, "#join-screen"), "the join screen on the stage")
        self.assertEqual(text_of(presenter, "#join-screen-code"), code)
        screenshot(presenter, "present-join-screen")
        presenter.find_element(By.ID, "present-join").click()

        # End the session: every viewer is told.
        presenter.find_element(By.ID, "end-session").click()
        confirm = wait_for(presenter, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the end confirmation")
        confirm.click()
        wait_for(presenter, lambda d: visible(d, "#ended-overlay"), "the presenter's ended notice")
        for viewer in viewers:
            wait_for(viewer, lambda d: text_of(d, "#status-text") == "Session ended", "viewers told the session ended")
            self.assertEqual(stage_attr(viewer, "data-page"), "3", "an ended session stays readable")
        screenshot(phone, "viewer-phone-ended")

    def test_2_late_joiner_lands_on_current_page(self):
        """A viewer who joins after the presenter moved on sees the current page at once."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        self.press(presenter, Keys.ARROW_RIGHT)
        self.press(presenter, Keys.PAGE_DOWN)
        self.assertEqual(stage_attr(presenter, "data-page"), "3")
        self.wait_synced(presenter)

        late = self.driver(1024, 768)
        late.get(f"{SERVER.base}/s/{code}")
        wait_for(late, lambda d: visible(d, "#gate-form"), "the join gate")
        late.find_element(By.ID, "join-button").click()
        wait_for(late, lambda d: visible(d, "#watch"), "the viewer's stage")
        # At once: the first page the stage shows is the presenter's.
        self.assertEqual(stage_attr(late, "data-page"), "3")

        # A reload rejoins at once and still lands on the current page; then it follows again.
        self.press(presenter, Keys.ARROW_LEFT)
        wait_for(late, lambda d: stage_attr(d, "data-page") == "2", "the late joiner following")
        late.refresh()
        wait_for(late, lambda d: visible(d, "#watch"), "the viewer's stage after a reload")
        self.assertEqual(stage_attr(late, "data-page"), "2")
        self.press(presenter, Keys.SPACE)
        wait_for(late, lambda d: stage_attr(d, "data-page") == "3", "following after the reload")

        # The presenter lets viewers browse: the viewer pages ahead alone, then comes back.
        presenter.find_element(By.ID, "follow-lock").click()
        wait_for(late, lambda d: d.execute_script("return document.body.dataset.locked") == "false", "the unlock")
        self.press(late, Keys.ARROW_RIGHT)
        wait_for(late, lambda d: stage_attr(d, "data-page") == "4", "the viewer browsing alone")
        self.assertEqual(stage_attr(presenter, "data-page"), "3")
        follow = wait_for(late, lambda d: visible(d, "#follow"), "the way back to the presenter")
        screenshot(late, "viewer-browsing")
        follow.click()
        wait_for(late, lambda d: stage_attr(d, "data-page") == "3", "back on the presenter's page")
        presenter.find_element(By.ID, "follow-lock").click()
        wait_for(late, lambda d: d.execute_script("return document.body.dataset.locked") == "true", "the lock")
        self.press(late, Keys.ARROW_RIGHT)
        self.assertEqual(stage_attr(late, "data-page"), "3", "a locked session keeps viewers on the presenter's page")

    def test_3_passcode_prompt(self):
        """A session with a passcode: the prompt, a wrong passcode, then the right one."""
        session = SERVER.start_session(DEMO_DECK["id"], passcode="4321", allow_download=True)
        code = session["code"]
        home = self.driver(1280, 800)
        home.get(SERVER.base + "/")
        wait_for(home, lambda d: visible(d, f'.session-link[data-code="{code}"]'), "the session in the lobby")
        # (Read from the page as it is now: the list is drawn anew as other sessions change.)
        self.assertTrue(home.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"] [data-role="lock"]'),
                        "a lock on passcode sessions")
        screenshot(home, "home")

        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}")
        wait_for(viewer, lambda d: visible(d, "#passcode"), "the passcode field")
        screenshot(viewer, "viewer-gate-passcode")
        viewer.find_element(By.ID, "passcode").send_keys("1111")
        viewer.find_element(By.ID, "join-button").click()
        wait_for(viewer, lambda d: "Wrong passcode" in (text_of(d, "#gate-error") or ""), "the wrong-passcode error")
        self.assertTrue(visible(viewer, "#passcode"))
        screenshot(viewer, "viewer-gate-wrong-passcode")
        field = viewer.find_element(By.ID, "passcode")
        field.clear()
        field.send_keys("4321")
        viewer.find_element(By.ID, "join-button").click()
        self.wait_watching(viewer)
        self.assertEqual(stage_attr(viewer, "data-page"), "1")
        # The home page's list follows live: one viewer now.
        wait_for(home, lambda d: text_of(d, f'.session-link[data-code="{code}"] [data-role="viewers"]') == "1 viewer",
                 "the lobby to count the viewer")
        download = visible(viewer, "#download")
        self.assertIsNotNone(download, "a download button when the session allows it")
        self.assertTrue(download.get_attribute("href").endswith(f"/api/v1/sessions/{code}/download"))

    def test_4_library_upload(self):
        """Upload a PDF and a broken file through the library; the card and the error show."""
        fixture = FIXTURES / "cairo-slides.pdf"
        if not fixture.exists():
            fixture = DEMO_PDF
        broken_dir = Path(tempfile.mkdtemp(prefix="podium-broken-"))
        try:
            broken = broken_dir / "meeting-notes.pdf"
            broken.write_text("These are meeting notes, not a PDF at all.\n" * 20)
            # The page reads the file's first bytes before sending it, as the server would.
            expected_error = "not a PDF"

            driver = self.driver(1280, 900)
            self.sign_in_with_cookie(driver)
            driver.get(SERVER.base + "/library")
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".deck-card"), "the library's cards")
            upload = driver.find_element(By.ID, "file-input")
            upload.send_keys(str(fixture))
            title = fixture.stem
            card = wait_for(driver, lambda d: visible(d, f'.deck-card[data-title="{title}"][data-status="ready"]'),
                            f"the card of {fixture.name}", timeout=120)
            status, decks = SERVER.api("GET", "/api/v1/decks")
            deck = next(d for d in decks if d["title"] == title)
            pages = card.find_element(By.CSS_SELECTOR, '[data-role="pages"]').text
            self.assertEqual(pages, f"{deck['pageCount']} page" + ("" if deck["pageCount"] == 1 else "s"))
            wait_for(driver, lambda d: d.execute_script(
                "const i = document.querySelector(arguments[0]); return i && i.complete && i.naturalWidth > 0",
                f'.deck-card[data-title="{title}"] .deck-thumb img'), "the new card's thumbnail")

            upload = driver.find_element(By.ID, "file-input")
            upload.send_keys(str(broken))
            failed = wait_for(driver, lambda d: visible(d, '.deck-card[data-title="meeting-notes"][data-status="failed"]'),
                              "the broken upload's card", timeout=60)
            error = failed.find_element(By.CSS_SELECTOR, '[data-role="error"]').text
            self.assertIn(expected_error, error)
            wait_for(driver, lambda d: any(expected_error in t.text for t in d.find_elements(By.CSS_SELECTOR, ".toast-error")),
                     "the error in a toast")
            screenshot(driver, "library-upload")

            # Dropping a file on the page uploads it too (the browser builds the drop, as a drag would).
            driver.execute_script("""
                const data = new DataTransfer();
                data.items.add(new File(['not a PDF either'], 'dropped-notes.pdf', {type: 'application/pdf'}));
                for (const type of ['dragenter', 'dragover', 'drop'])
                  document.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
            """)
            wait_for(driver, lambda d: visible(d, '.deck-card[data-title="dropped-notes"][data-status="failed"]'),
                     "the dropped file's card")

            # Rename through the menu.
            card = visible(driver, f'.deck-card[data-title="{title}"]')
            dismiss_toasts(driver)
            card.find_element(By.CSS_SELECTOR, '[data-action="more"]').click()
            card.find_element(By.CSS_SELECTOR, '[data-action="rename"]').click()
            field = wait_for(driver, lambda d: visible(d, "dialog[open] input"), "the rename dialog")
            field.clear()
            field.send_keys("Renamed deck" + Keys.ENTER)
            wait_for(driver, lambda d: visible(d, '.deck-card[data-title="Renamed deck"]'), "the renamed card")
            status, deck = SERVER.api("GET", f"/api/v1/decks/{deck['id']}")
            self.assertEqual(deck["title"], "Renamed deck")

            # A folder, created in the sidebar; the deck moves into it through the menu.
            driver.find_element(By.ID, "new-folder").click()
            field = wait_for(driver, lambda d: visible(d, "dialog[open] input"), "the new-folder dialog")
            field.send_keys("Conference talks" + Keys.ENTER)
            wait_for(driver, lambda d: text_of(d, "#folder-title") == "Conference talks", "the new, empty folder")
            self.assertTrue(visible(driver, "#decks-empty"), "an empty folder says so")
            driver.find_element(By.CSS_SELECTOR, '.folder-button[data-folder-id=""]').click()
            card = wait_for(driver, lambda d: visible(d, '.deck-card[data-title="Renamed deck"]'), "all decks again")
            dismiss_toasts(driver)
            card.find_element(By.CSS_SELECTOR, '[data-action="more"]').click()
            card.find_element(By.CSS_SELECTOR, '[data-action="move"]').click()
            select = wait_for(driver, lambda d: visible(d, "dialog[open] select"), "the move dialog")
            Select(select).select_by_visible_text("Conference talks")
            driver.find_element(By.CSS_SELECTOR, 'dialog[open] button[type="submit"]').click()
            status, folders = SERVER.api("GET", "/api/v1/folders")
            folder = next(f for f in folders if f["name"] == "Conference talks")
            wait_for(driver, lambda d: SERVER.api("GET", f"/api/v1/decks/{deck['id']}")[1].get("folderId") == folder["id"],
                     "the deck moved into the folder")
            # The page has drawn the move too (its folder list is drawn anew): only then click in it.
            wait_for(driver, lambda d: any("Moved to Conference talks" in t.text for t in d.find_elements(By.CSS_SELECTOR, ".toast")),
                     "the move confirmed on the page")
            driver.find_element(By.CSS_SELECTOR, f'.folder-button[data-folder-id="{folder["id"]}"]').click()
            wait_for(driver, lambda d: visible(d, '.deck-card[data-title="Renamed deck"]'), "the deck in its folder")
            self.assertEqual(len(driver.find_elements(By.CSS_SELECTOR, ".deck-card")), 1)
            screenshot(driver, "library-folder")

            # Delete it, after confirming.
            card = visible(driver, '.deck-card[data-title="Renamed deck"]')
            dismiss_toasts(driver)
            card.find_element(By.CSS_SELECTOR, '[data-action="more"]').click()
            card.find_element(By.CSS_SELECTOR, '[data-action="delete"]').click()
            wait_for(driver, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the delete confirmation").click()
            wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, '.deck-card[data-title="Renamed deck"]'),
                     "the card gone")
            self.assertEqual(SERVER.api("GET", f"/api/v1/decks/{deck['id']}")[0], 404)

            # Rename, then delete the folder from the header.
            dismiss_toasts(driver)
            driver.find_element(By.ID, "rename-folder").click()
            field = wait_for(driver, lambda d: visible(d, "dialog[open] input"), "the rename-folder dialog")
            field.clear()
            field.send_keys("Talks 2026" + Keys.ENTER)
            wait_for(driver, lambda d: text_of(d, "#folder-title") == "Talks 2026", "the renamed folder")
            driver.find_element(By.ID, "delete-folder").click()
            wait_for(driver, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the folder delete confirmation").click()
            wait_for(driver, lambda d: text_of(d, "#folder-title") == "All decks", "back to all decks")
            self.assertFalse([f for f in SERVER.api("GET", "/api/v1/folders")[1] if f["id"] == folder["id"]])
        finally:
            shutil.rmtree(broken_dir, ignore_errors=True)

    def test_5_rehearsal(self):
        """Rehearsal pages through a deck alone, with the presenter's controls."""
        driver = self.driver(1280, 800)
        self.sign_in_with_cookie(driver)
        driver.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the rehearsal stage")
        self.assertEqual(stage_attr(driver, "data-page"), "1")
        self.press(driver, Keys.ARROW_RIGHT)
        self.assertEqual(stage_attr(driver, "data-page"), "2")
        driver.find_elements(By.CSS_SELECTOR, ".thumb")[3].click()
        self.assertEqual(stage_attr(driver, "data-page"), "4")
        self.press(driver, "+")
        self.assertNotEqual(stage_attr(driver, "data-viewport"), "0,0,1,1")
        self.press(driver, "0")
        self.assertEqual(stage_attr(driver, "data-viewport"), "0,0,1,1")
        wait_settled(driver)
        screenshot(driver, "rehearse")

    def test_7_reconnect_after_server_restart(self):
        """The server restarts: everyone reconnects with lastSeq; a command sent meanwhile is delivered."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(1024, 768)
        self.join_as_viewer(viewer, code)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == "2", "the viewer on page 2")

        SERVER.terminate()
        for driver in (presenter, viewer):
            wait_for(driver, lambda d: d.execute_script("return document.body.dataset.connection") == "reconnecting",
                     "the clients to notice the server went away")
        self.assertIn("Reconnecting", text_of(viewer, "#status-text"))
        # A graceful stop said why: the viewer is told the server is restarting, not that it lost
        # its connection.
        self.assertIn("server is restarting", text_of(viewer, "#notice"))
        screenshot(viewer, "viewer-reconnecting")
        # The presenter moves on while the server is down: the command waits for the reconnect.
        self.press(presenter, Keys.ARROW_RIGHT)
        self.assertEqual(stage_attr(presenter, "data-page"), "3")
        SERVER.launch()
        for driver in (presenter, viewer):
            wait_for(driver, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                     "the clients back live", timeout=40)
        self.wait_synced(presenter)
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == "3", "the viewer on page 3 after the restart")
        self.assertEqual(stage_attr(presenter, "data-page"), "3")
        # And it goes on as before.
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == "4", "the viewer following after the restart")

    def test_8_ended_session_stays_readable(self):
        """A session ended before the viewer came still opens, read-only, on its last page."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        self.press(presenter, Keys.END)
        self.wait_synced(presenter)
        # A second console on a phone, its join panel open (the whole screen there).
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        self.open_console(phone, code)
        phone.find_element(By.ID, "code-chip").click()
        wait_for(phone, lambda d: visible(d, "#join-panel"), "the phone's join panel open")
        status, _ = SERVER.api("POST", f"/api/v1/sessions/{code}/end")
        self.assertEqual(status, 200)
        wait_for(presenter, lambda d: visible(d, "#ended-overlay"), "the console to learn the session ended")
        # Ended from elsewhere: the phone's panel gives way, so the notice and its report link are seen.
        wait_for(phone, lambda d: visible(d, "#ended-overlay"), "the phone's ended notice")
        covered = phone.execute_script(
            "const r = document.querySelector('#ended-report').getBoundingClientRect();"
            "const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
            "return !!hit && !!hit.closest('#ended-report');")
        self.assertTrue(covered, "the report link on the phone's ended notice is on top")
        screenshot(phone, "console-ended-elsewhere-phone")
        self.release(phone)

        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}")
        wait_for(viewer, lambda d: visible(d, "#gate-ended"), "the gate saying the session ended")
        self.assertEqual(viewer.find_element(By.ID, "join-button").text, "View slides")
        viewer.find_element(By.ID, "join-button").click()
        self.wait_watching(viewer)
        self.assertEqual(stage_attr(viewer, "data-page"), str(DEMO_DECK["pageCount"]))
        wait_for(viewer, lambda d: text_of(d, "#status-text") == "Session ended", "the ended status")
        # Reading on alone is allowed now.
        self.press(viewer, Keys.ARROW_LEFT)
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == str(DEMO_DECK["pageCount"] - 1), "browsing an ended session")

    def test_6_unknown_code(self):
        """A mistyped code gets a friendly page."""
        driver = self.driver(390, 844)
        driver.get(f"{SERVER.base}/s/ZZZZZZ")
        wait_for(driver, lambda d: visible(d, "#not-found"), "the not-found page")
        self.assertIn("No session with code ZZZZZZ", text_of(driver, "#not-found-title"))
        screenshot(driver, "viewer-not-found")


# A fake WebSocket and fake timers for live/socket.js and its users (the storyboard's
# connection.js in test_live_socket.py): Tests/JS/fake-env.mjs, which the pure-module tests under
# `node --test` import, put into a page without its `export`. Nothing happens until the test says
# so: a socket opens when the test calls open(), time moves only with advance(ms).
FAKE_ENV_JS = (REPO / "Tests" / "JS" / "fake-env.mjs").read_text().replace("export const fakeEnv", "const fakeEnv")


def collect_tests(patterns):
    """Every test of this module and the modules beside it that share the harness, filtered by
    name as the command line asks."""
    loader = unittest.TestLoader()
    if patterns:  # only the tests whose name contains one of the arguments
        loader.testNamePatterns = [f"*{pattern}*" for pattern in patterns]
    suite = loader.loadTestsFromModule(sys.modules[__name__])
    # The other files share this harness (and this module): every test_*.py beside this one.
    sys.modules.setdefault("run_browser_tests", sys.modules[__name__])
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    for path in sorted(here.glob("test_*.py")):
        suite.addTests(loader.loadTestsFromModule(importlib.import_module(path.stem)))
    return suite


def flatten(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


class TimedResult(unittest.TextTestResult):
    """Prints how long each test took, and collects it for the summary."""

    durations = []

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        seconds = time.monotonic() - self._started
        TimedResult.durations.append((seconds, test.id()))
        self.stream.write(f"    ({seconds:.1f} s)\n")
        self.stream.flush()
        super().stopTest(test)


def run_here(tests):
    """Runs the tests in this process, one after the other, on one server; prints the slowest."""
    TimedResult.durations = []
    runner = unittest.TextTestRunner(verbosity=2, stream=sys.stdout, resultclass=TimedResult)
    result = runner.run(unittest.TestSuite(tests))
    failed = len(result.failures) + len(result.errors)
    for seconds, name in sorted(TimedResult.durations, reverse=True)[:5]:
        print(f"slowest: {seconds:6.1f} s  {name}")
    for message, (seconds, count) in sorted(WAITED.items(), key=lambda item: -item[1][0])[:15]:
        print(f"waited: {seconds:6.1f} s  {count:3d}x  {message}")
    if PROFILE:
        print(f"asked: {ASKED[0]} times by the waits")
    WAITED.clear()
    ASKED[0] = 0
    return result.testsRun - failed - len(result.skipped), failed, len(result.skipped)


DONE = "@@done "


def serve_groups(tests):
    """A runner started by `run_side_by_side`: runs each group of tests it is sent (one JSON line
    on stdin: the tests' ids and the server log's name), then answers with a DONE line. Its
    browsers (POOL) stay open from one group to the next."""
    global SERVER_LOG
    by_id = {test.id(): test for test in tests}
    try:
        for line in sys.stdin:
            order = json.loads(line)
            SERVER_LOG = order["log"]
            counts = run_here([by_id[name] for name in order["tests"]])
            sys.stdout.flush()
            sys.stderr.flush()
            print(DONE + json.dumps(counts), flush=True)
    finally:
        POOL.close()
        drop_template()


def run_side_by_side(groups, jobs):
    """Runs the groups of tests on `jobs` runner processes, each group on a server of its own
    (one of them restarts its server), a runner taking the next group (the longest first) as it
    ends one; prints each group's output whole as it ends. A runner keeps its browsers from one
    group to the next (see BrowserPool)."""
    import threading

    pending = list(enumerate(groups))
    lock = threading.Lock()
    totals = [0, 0, 0]
    classes = []  # (seconds, class, tests): the summary at the end

    def work():
        process = subprocess.Popen(
            [sys.executable, "-u", str(Path(__file__).resolve()), "--worker"],
            env=dict(os.environ, PODIUM_BROWSER_JOBS="1"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        try:
            while True:
                with lock:
                    if not pending:
                        return
                    index, group = pending.pop(0)
                log = f"browser-server-{index + 1}.log"
                started = time.monotonic()
                process.stdin.write(json.dumps({"tests": [test.id() for test in group], "log": log}) + "\n")
                process.stdin.flush()
                output, counts = [], None
                for line in process.stdout:
                    if line.startswith(DONE):
                        counts = json.loads(line[len(DONE):])
                        break
                    output.append(line)
                with lock:
                    seconds = time.monotonic() - started
                    classes.append((seconds, type(group[0]).__name__, len(group)))
                    print(f"---- {type(group[0]).__name__} ({seconds:.0f} s, log test-artifacts/{log})")
                    print("".join(output), end="", flush=True)
                    if counts is None:  # the runner itself failed: count it as a failure, and stop it
                        print(f"---- the runner ended while running {type(group[0]).__name__}", flush=True)
                        totals[1] += 1
                        return
                    for slot, value in enumerate(counts):
                        totals[slot] += value
        finally:
            process.stdin.close()
            process.wait()

    threads = [threading.Thread(target=work) for _ in range(min(jobs, len(groups)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, group in pending:  # groups no runner was left to run
        print(f"---- {type(group[0]).__name__} not run: its runners ended")
        totals[1] += len(group)
    print_classes(classes)
    return tuple(totals)


def print_classes(classes):
    """One line per class, the slowest first: its whole time on its runner (server start, browsers,
    the tests), then what its tests took, and the runners' time in all."""
    print("---- classes, slowest first (whole class: server start and tests)")
    for seconds, name, count in sorted(classes, reverse=True):
        print(f"class: {seconds:6.1f} s  {name} ({count} tests)")
    print(f"classes: {sum(seconds for seconds, _, _ in classes):.0f} s on the runners in all")


# Roughly how long each class of tests takes, in seconds, measured on a loaded two-core machine:
# the longest start first, so that the runners end together. A class not listed counts as 30.
EXPECTED_SECONDS = {
    "ChannelLanguageTests": 21,
    "ReportLanguageTests": 14,
    "RoomLanguageTests": 20,
    "ChannelAdminLanguageTests": 20,
    "StoryboardLanguageTests": 16,
    "RoomTests": 68,
    "LiveBroadcastTests": 57,
    "RecordingTests": 30,
    "AccessTests": 54,
    "MoreInteractionTests": 50,
    "ScreensTests": 49,
    "SpotlightTests": 36,
    "PresentingPagesTests": 34,
    "InkTests": 34,
    "AudienceInteractionTests": 19,
    "ScreenDetailsTests": 20,
    # live/socket.js with a fake socket and fake timers (#39): four scripts, no waiting.
    "LiveSocketTests": 5,
    # Storyboards, measured on a busy two-core machine.
    "StoryboardTests": 60,
    "StoryboardToolsTests": 25,
    # The storyboard artist's tablet (#38): seven tests at 820 x 1180, two browsers in one.
    "StoryboardTabletTests": 35,
    "ChannelTests": 15,
    "FreehandTests": 4,
    # The channel's places and quizzes, measured on a busy two-core machine.
    "ChannelPlacesTests": 18,
    "ChannelQuizzesTests": 10,
    # The channel's radio: its own server, two tracks packaged by ffmpeg, their window on air, then
    # both tests (~45 s).
    "ChannelRadioTests": 45,
    # The channel's videos: two 8 s clips packaged in setUpModule, then three tests (27 s in all).
    "ChannelVideoTests": 28,
    # #37: the stage's players at three sizes (a 6 s clip); the channel on a phone (an 8 s clip);
    # 3 s stream links on a server of their own (a 14 s clip and a station).
    "StagePlayerSizeTests": 30,
    "ChannelPhoneTests": 35,
    "ChannelStreamLinkTests": 45,
    # The catalogues and the language choice (#22).
    "LanguageTests": 5,
    # The pages of i18n-live in the pseudo-language, German and Arabic (#22), on a busy two-core machine.
    "I18nLiveLayoutTests": 24,
    "I18nLiveViewerTests": 20,
    "I18nLiveConsoleTests": 16,
    "I18nLiveEntryTests": 8,
    "I18nLiveLibraryTests": 6,
    # Office decks: a PPTX converted by LibreOffice through the library, then the console's notes
    # (23-26 s measured); then three images picked together (about 5 s).
    "OfficeDeckTests": 31,
    # The console's presenter view: a PDF deck, then a PPTX converted by LibreOffice (about 40 s).
    "PresenterViewTests": 40,
    # The page-health sweep (#36), each test under 30 s on a busy two-core machine; the channel's
    # classes first seed a 3 s clip, a station, places and quizzes (about 10 s).
    "LiveResultsHealthTests": 110,
    "ChannelVisitorHealthTests": 80,
    "ChannelMemberHealthTests": 80,
    "RoomHealthTests": 75,
    "ChannelAdminHealthTests": 75,
    "LivePresentingHealthTests": 60,
    "LibraryHealthTests": 55,
    "EntryHealthTests": 50,
}


def groups_for(tests):
    """The tests by class, longest first: a class's tests run in order, on one server."""
    classes = {}
    for test in tests:
        classes.setdefault(type(test).__name__, []).append(test)
    return sorted(classes.values(), key=lambda group: -EXPECTED_SECONDS.get(type(group[0]).__name__, 30))


def main():
    SHOTS.mkdir(parents=True, exist_ok=True)
    arguments = sys.argv[1:]
    if arguments[:1] == ["--worker"]:  # a runner started by `run_side_by_side`
        serve_groups(list(flatten(collect_tests([]))))
        return 0
    tests = list(flatten(collect_tests(arguments)))
    # Three runners on two cores: with two, the suite kept the cores about half busy (its tests
    # wait on real time: clips play, countdowns count, the radio's allowance runs out), 800 s of
    # CPU in 850 s; with three, 482 s.
    jobs = max(1, int(os.environ.get("PODIUM_BROWSER_JOBS", "3")))
    groups = groups_for(tests)
    started = time.monotonic()
    if jobs > 1 and len(groups) > 1:
        passed, failed, skipped = run_side_by_side(groups, jobs)
    else:
        try:
            passed, failed, skipped = run_here(tests)
        finally:
            POOL.close()
            drop_template()
        by_class = {}
        for seconds, name in TimedResult.durations:  # (the tests' times: server starts not counted)
            count, total = by_class.get(name.split(".")[-2], (0, 0.0))
            by_class[name.split(".")[-2]] = (count + 1, total + seconds)
        print_classes([(total, name, count) for name, (count, total) in by_class.items()])
    print(f"browser tests took {time.monotonic() - started:.0f} s")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 0 if failed == 0 and passed + skipped > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
