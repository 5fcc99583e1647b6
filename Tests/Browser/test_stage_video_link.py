#!/usr/bin/python3
"""Browser test of a stage clip's expiring stream URL (#37, the members-only wall).

A clip put on a session's stage plays through a capability URL that expires
(``--stage-video-link-hours``); its files are never at ``/blobs/``. A server of this module's own
gives stage links of 10 s (``PODIUM_STAGE_VIDEO_LINK_HOURS``). The presenter shows a clip and
leaves; once the link answers 410, a viewer who joins is told plainly that the video's link has
expired (not a bare "could not be played"); the presenter's console, opened again, finds the
link expired and shows the clip again, which renews it for every screen: the viewer's clip loads.
Alone: python3 Tests/Browser/run_browser_tests.py stage_video_link
"""

import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

LIFETIME = 10  # seconds a stage link works on this module's server
SETTINGS = {"PODIUM_STAGE_VIDEO_LINK_HOURS": str(LIFETIME / 3600)}
CLIP = {}


def setUpModule():
    # A server of this module's own, started with the short stage links above.
    if SERVER.proc and SERVER.proc.poll() is None:
        harness.tearDownModule()
    DEMO_DECK.clear()
    os.environ.update(SETTINGS)
    harness.setUpModule()
    CLIP["id"] = upload_clip()


def tearDownModule():
    harness.tearDownModule()
    for name in SETTINGS:
        os.environ.pop(name, None)


def upload_clip():
    """An 8 s clip (320x240, a tone) uploaded and packaged; its id."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "clip.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15:duration=8",
             "-f", "lavfi", "-i", "sine=frequency=440:duration=8", "-c:v", "libx264", "-preset", "ultrafast",
             "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(path)],
            check=True)
        status, video = SERVER.request(
            "POST", "/api/v1/videos?title=Short%20link", token=SERVER.token, raw=path.read_bytes(), content_type="video/mp4")
    assert status == 201, video
    deadline = time.monotonic() + 120
    while True:
        status, video = SERVER.api("GET", f"/api/v1/videos/{video['id']}")
        if status == 200 and video["status"] in ("ready", "failed"):
            assert video["status"] == "ready", video
            return video["id"]
        assert time.monotonic() < deadline, f"still packaging after 120 s: {video}"
        time.sleep(0.25)


def status_of(url, method="GET"):
    try:
        with urllib.request.urlopen(urllib.request.Request(SERVER.base + url, method=method), timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def stage_playlist(driver, code):
    """The playlist of the clip on the session's stage, as a screen is told it (the welcome's snapshot)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const ws = new WebSocket(location.origin.replace('http', 'ws') + '/api/v1/sessions/' + arguments[0] + '/live');"
        "ws.onopen = () => ws.send(JSON.stringify({type: 'hello', role: 'viewer'}));"
        "ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m.type !== 'welcome') return; ws.close();"
        " const p = m.snapshot && m.snapshot.playback; done(p && p.media ? p.media.playlist : null); };", code)


def notice(driver):
    """The video screen's message, when one shows."""
    return driver.execute_script(
        "const n = document.querySelector('#video-screen .video-notice');"
        "return n && !n.hidden && n.getClientRects().length ? n.textContent : null;")


def loaded_at_start(driver):
    """The clip loaded (its picture decoded) and waiting at its start, with no message."""
    return driver.execute_script(
        "const v = document.querySelector('#video-screen video');"
        "return Boolean(v && v.readyState >= 2 && v.currentTime < 0.5 && v.getBoundingClientRect().height > 0);"
    ) and notice(driver) is None


class StageVideoLinkTests(BrowserTest):
    def test_an_expired_stage_link_is_said_and_renewed_by_the_presenter(self):
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        presenter.find_element(By.CSS_SELECTOR, '[data-action="show-video"]').click()
        choice = wait_for(presenter, lambda d: visible(d, "dialog[open] select"), "the video picker")
        Select(choice).select_by_value(CLIP["id"])
        presenter.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()
        wait_for(presenter, loaded_at_start, "the clip loaded on the console")
        # The presenter leaves; the clip stays on the stage.
        presenter.get(SERVER.base + "/healthz")

        viewer = self.driver(390, 844)
        viewer.get(SERVER.base + "/healthz")
        playlist = stage_playlist(viewer, code)
        self.assertTrue(playlist and playlist.startswith("/stream/"), playlist)
        name = playlist.rsplit("/", 1)[1]
        self.assertEqual(status_of("/blobs/" + name), 404, "the playlist is not at a permanent address")
        wait_for(viewer, lambda d: status_of(playlist, "HEAD") == 410, "the stage link expired", timeout=LIFETIME + 20)

        # A viewer joining now is told why the clip does not play.
        self.join_as_viewer(viewer, code)
        # "Loading the video…" shows first, until the player's request for the playlist is refused.
        expired = "This video's link has expired. It plays again when the presenter shows it again."
        wait_for(viewer, lambda d: notice(d) == expired, "the expired link said on the viewer's video screen")
        screenshot(viewer, "stage-link-expired-viewer")

        # The presenter's console, opened again, renews the link: every screen loads the clip.
        self.open_console(presenter, code)
        wait_for(viewer, loaded_at_start, "the clip loaded on the viewer once renewed", timeout=30)
        renewed = stage_playlist(viewer, code)
        self.assertNotEqual(renewed, playlist)
        self.assertEqual(renewed.rsplit("/", 1)[1], name)
        wait_for(presenter, loaded_at_start, "the clip loaded on the console once renewed", timeout=30)
        screenshot(viewer, "stage-link-renewed-viewer")
