#!/usr/bin/python3
"""Browser tests of the channel's radio (issue #20): a non-member listens until the daily
allowance is spent and sees the membership message, never a broken player; a member listens on;
"now playing" follows the track changes.

A server of its own runs these, with a tiny allowance (``--radio-daily-minutes 0.2``: 12 s) and a
station of two short tones (1 s and 2 s, so tracks change every second or two, and the five
segments of a live window are on air 7 s after the station is published) packaged by the
server (AAC in MPEG-TS). Alone: python3 Tests/Browser/run_browser_tests.py channel_radio
"""

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot

RADIO = {}


class RadioServer(harness.Server):
    """The podium binary with the radio's allowance at 12 s, on a data directory of its own."""

    def start(self):
        binary = os.environ.get("PODIUM_BIN", str(harness.REPO / ".build" / "debug" / "podium"))
        self.binary = binary if os.path.isabs(binary) else str(harness.REPO / binary)
        self.data_dir = tempfile.mkdtemp(prefix="podium-radio-")
        harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log = open(harness.ARTIFACTS / "browser-radio-server.log", "wb")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        harness.add_origin(self.port)
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD=harness.ADMIN_PASSWORD)
        env.pop("PODIUM_PUBLIC_URL", None)
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir,
             "--radio-daily-minutes", "0.2"],
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
                raise RuntimeError("the radio test's server did not start")
            time.sleep(0.2)
        status, body = self.request("POST", "/api/v1/auth/login", {"email": "admin", "password": harness.ADMIN_PASSWORD})
        if status != 200:
            raise RuntimeError(f"login failed: {status} {body}")
        self.token = body["token"]


SERVER = RadioServer()


def setUpModule():
    if not harness.SERVER.proc or harness.SERVER.proc.poll() is not None:
        harness.setUpModule()
    if SERVER.proc and SERVER.proc.poll() is None:
        return
    SERVER.start()
    status, radio = SERVER.api("POST", "/api/v1/channel/radios", {"name": "Folk Radio", "description": "Polkas and waltzes"})
    assert status == 201, radio
    with tempfile.TemporaryDirectory() as scratch:
        for seconds, frequency, title, artist in [(1, 440, "Polka in A", "The Band"), (2, 660, "Waltz in E", "The Trio")]:
            path = Path(scratch) / f"{frequency}.mp3"
            subprocess.run(
                ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                 f"sine=frequency={frequency}:duration={seconds}", "-c:a", "libmp3lame", str(path)], check=True)
            status, track = SERVER.request(
                "POST", f"/api/v1/channel/radios/{radio['id']}/tracks?title={title.replace(' ', '%20')}"
                f"&artist={artist.replace(' ', '%20')}", token=SERVER.token, raw=path.read_bytes(),
                content_type="audio/mpeg")
            assert status == 201, track
    deadline = time.monotonic() + 60
    while True:
        status, tracks = SERVER.api("GET", f"/api/v1/channel/radios/{radio['id']}/tracks")
        if all(t["status"] == "ready" for t in tracks):
            break
        assert time.monotonic() < deadline, tracks
        time.sleep(0.3)
    status, _ = SERVER.api("PATCH", f"/api/v1/channel/radios/{radio['id']}", {"published": True})
    assert status == 200
    RADIO["id"] = radio["id"]
    started = time.monotonic()
    wait_for_full_window(radio["id"])
    harness.profiled("(the station's first whole window on air)", started)


def wait_for_full_window(radio_id, segments=5, timeout=60):
    """Until the live playlist lists a whole window of segments (the server's five), so a player
    has segments to start on: what the air has aired, read from the playlist itself."""
    status, stream = SERVER.api("GET", f"/api/v1/channel/radios/{radio_id}/stream")
    assert status == 200, stream
    request = urllib.request.Request(SERVER.base + stream["url"], headers={"Authorization": "Bearer " + SERVER.token})
    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(request, timeout=30) as response:
            playlist = response.read().decode()
        if playlist.count("#EXTINF") >= segments:
            return
        assert time.monotonic() < deadline, f"the playlist still lists fewer than {segments} segments:\n{playlist}"
        time.sleep(0.25)


def tearDownModule():
    SERVER.stop()
    harness.tearDownModule()


def ready(driver):
    return driver.execute_script("return document.body.dataset.ready") == "true"


def state(driver):
    return driver.find_element(By.CSS_SELECTOR, "[data-role=radio-player]").get_attribute("data-state")


class ChannelRadioTests(BrowserTest):
    def open_station(self, driver):
        driver.get(SERVER.base + "/channel#radio")
        wait_for(driver, ready, "the channel page")
        item = wait_for(driver, lambda d: visible(d, f"[data-role=radio-item][data-id='{RADIO['id']}']"), "the station")
        item.click()
        wait_for(driver, lambda d: "Polka" in (text_of(d, "[data-role=radio-title]") or "")
                 or "Waltz" in (text_of(d, "[data-role=radio-title]") or ""), "now playing")

    def test_radio_1_a_non_member_listens_until_the_allowance_is_spent(self):
        """A phone without an account: the minutes left are shown; playing spends them (the
        server counts the segments it serves) and the membership message replaces the player."""
        phone = self.driver(390, 844)
        self.open_station(phone)
        wait_for(phone, lambda d: "left today" in (text_of(d, "[data-role=radio-allowance]") or ""), "the allowance")
        screenshot(phone, "channel-radio-phone")
        phone.find_element(By.CSS_SELECTOR, "[data-role=radio-play]").click()
        wait_for(phone, lambda d: state(d) in ("playing", "limit"), "playback")
        wait_for(phone, lambda d: state(d) == "limit", "the allowance spent", timeout=40)
        message = text_of(phone, "[data-role=radio-limit]")
        self.assertIn("member", message.lower())
        self.assertTrue(phone.find_element(By.CSS_SELECTOR, "[data-role=radio-play]").get_attribute("disabled"))
        screenshot(phone, "channel-radio-limit-phone")
        # Coming back later the same day: the message at once.
        self.open_station(phone)
        wait_for(phone, lambda d: state(d) == "limit", "the message on a new visit")

    def test_radio_2_a_member_listens_on_and_sees_the_track_change(self):
        """The admin (a member) plays with no allowance line; the title follows the schedule."""
        laptop = self.driver(1280, 860)
        laptop.get(SERVER.base + "/healthz")
        laptop.add_cookie({"name": "podium_auth", "value": SERVER.token, "path": "/"})
        self.open_station(laptop)
        self.assertFalse(visible(laptop, "[data-role=radio-allowance]"))
        laptop.find_element(By.CSS_SELECTOR, "[data-role=radio-play]").click()
        wait_for(laptop, lambda d: state(d) == "playing", "playback")
        first = text_of(laptop, "[data-role=radio-title]")
        wait_for(laptop, lambda d: text_of(d, "[data-role=radio-title]") not in ("", first), "the next track", timeout=30)
        self.assertEqual(state(laptop), "playing")
        screenshot(laptop, "channel-radio-playing")
