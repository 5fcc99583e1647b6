#!/usr/bin/python3
"""Browser tests of recording the presenter's voice (media/recorder.js, issue #44): the console
records a few seconds of Chromium's fake microphone (a beep), sending MediaRecorder's chunks as
they come; the on-air indicator is shown while it records (red, large enough, not covered) and a
viewer sees the "Recording" badge; stopped, the take is packaged as HLS audio whose duration
(ffprobe, over HTTP) is the time recorded. Without a microphone allowed, a clear message and
nothing sent.

Runs inside the suite of ``run_browser_tests.py``. Alone:
PODIUM_BIN=.build/debug/podium python3 Tests/Browser/run_browser_tests.py Recording

State the tests read: ``<body data-recording="on|off">``, ``#record-switch[aria-pressed]``,
``#on-air`` with ``.on-air-time``, the viewer's ``#recording-badge``.
"""

import json
import subprocess
import sys
import time

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# The box of an element, whether it is on top at its centre, and its background colour.
BOX_JS = """
const e = document.querySelector(arguments[0]);
if (!e) return null;
const r = e.getBoundingClientRect();
const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return { width: r.width, height: r.height, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
         onTop: Boolean(hit && (hit === e || e.contains(hit))), hit: hit ? hit.outerHTML.slice(0, 80) : null,
         background: getComputedStyle(e).backgroundColor,
         viewport: { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight } };
"""


def takes(code):
    status, body = SERVER.api("GET", f"/api/v1/sessions/{code}/recordings")
    assert status == 200, (status, body)
    return body["recordings"]


def probe_duration(url):
    """The duration ffprobe finds playing an HLS playlist over HTTP as the admin (seconds)."""
    output = subprocess.run(
        ["ffprobe", "-v", "error", "-headers", f"Authorization: Bearer {SERVER.token}\r\n",
         "-show_entries", "format=duration", "-of", "json", url],
        capture_output=True, text=True, timeout=30, check=True).stdout
    return float(json.loads(output)["format"]["duration"])


class RecordingTests(BrowserTest):
    def fake_microphone_driver(self, width, height):
        """A browser of this test's own with Chromium's fake microphone, allowed without a prompt
        (the pool's browsers have none); quit when the test ends."""
        driver = harness.launch_driver(width, height, extra=harness.FAKE_MEDIA)
        harness.size_driver(driver, width, height)
        self.addCleanup(self.quit_own, driver)
        return driver

    def quit_own(self, driver):
        try:
            if any(test is self for test, _ in self._outcome.result.errors + self._outcome.result.failures):
                screenshot(driver, f"FAILED-{self._testMethodName}-presenter")
            driver.quit()
        except WebDriverException:
            pass

    def test_1_console_records_viewer_sees_badge_take_plays(self):
        """Record on the console: indicator and badge while on; a few seconds later stop; the take is
        packaged and its playlist plays as long as was recorded."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.fake_microphone_driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(1280, 800)
        self.join_as_viewer(viewer, code)
        self.assertFalse(visible(viewer, "#recording-badge"), "no badge before recording")

        switch = wait_for(presenter, lambda d: visible(d, "#record-switch"), "the microphone switch")
        self.assertEqual(switch.get_attribute("aria-pressed"), "false")
        self.assertFalse(visible(presenter, "#on-air"), "not on air yet")
        switch.click()
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.recording") == "on", "recording on")
        started = time.monotonic()
        self.assertEqual(switch.get_attribute("aria-pressed"), "true")
        wait_for(presenter, lambda d: visible(d, "#on-air"), "the on-air indicator")
        wait_for(viewer, lambda d: visible(d, "#recording-badge"), "the viewer's Recording badge")
        self.assertEqual(text_of(viewer, "#recording-badge"), "Recording")

        # The indicator: readable, inside the window, not covered, red.
        box = presenter.execute_script(BOX_JS, "#on-air")
        self.assertGreaterEqual(box["width"], 80, f"the indicator is wide enough: {box}")
        self.assertGreaterEqual(box["height"], 24, f"the indicator is tall enough: {box}")
        self.assertTrue(box["onTop"], f"the indicator is not covered (found {box['hit']})")
        self.assertGreaterEqual(box["left"], 0)
        self.assertLessEqual(box["right"], box["viewport"]["width"])
        r, g, b = (int(v) for v in box["background"].split("(")[1].split(")")[0].split(",")[:3])
        self.assertGreater(r, 180, f"red: {box['background']}")
        self.assertLess(g, 80, f"red: {box['background']}")
        # The bar keeps its room: ending the session is still on screen and not covered.
        end = presenter.execute_script(BOX_JS, "#end-session")
        self.assertTrue(end["onTop"] and end["right"] <= end["viewport"]["width"] + 0.5, f"End session on screen: {end}")
        self.assertEqual(presenter.find_element(By.ID, "record-switch").get_attribute("aria-label"), "Stop recording")
        badge = viewer.execute_script(BOX_JS, "#recording-badge")
        self.assertTrue(badge["onTop"], f"the badge is not covered (found {badge['hit']})")
        self.assertGreaterEqual(badge["height"], 20)

        # Chunks arrive while it records; the time recorded counts up.
        wait_for(presenter, lambda d: len(takes(code)) == 1 and takes(code)[0]["chunks"] >= 2, "two chunks on the server",
                 timeout=15)
        take = takes(code)[0]
        self.assertEqual(take["status"], "recording")
        wait_for(presenter, lambda d: text_of(d, "#on-air .on-air-time") in ("0:05", "0:06", "0:07"), "5 s recorded",
                 timeout=15)
        screenshot(presenter, "recording/console-on-air")
        screenshot(viewer, "recording/viewer-badge")

        switch.click()
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.recording") == "off", "recording off")
        recorded = time.monotonic() - started
        wait_for(presenter, lambda d: not visible(d, "#on-air"), "the indicator gone")
        wait_for(viewer, lambda d: not visible(d, "#recording-badge"), "the viewer's badge gone")
        wait_for(presenter, lambda d: takes(code)[0]["status"] in ("ready", "failed"), "the take packaged", timeout=30)
        take = takes(code)[0]
        self.assertEqual(take["status"], "ready", take)
        self.assertIsNone(take["error"])
        duration = take["duration"] / 1000
        # What the browser recorded: from the switch to the stop, less its start-up.
        self.assertLess(abs(duration - recorded), 1.5, f"{duration} s packaged for {recorded:.2f} s recorded")
        played = probe_duration(SERVER.base + take["playlistUrl"])
        self.assertLess(abs(played - duration), 0.3, f"the playlist plays {played} s of {duration} s")
        wait_for(presenter, lambda d: any("Recording saved" in t.text for t in d.find_elements(By.CSS_SELECTOR, ".toast")),
                 "the saved message")
        screenshot(presenter, "recording/console-saved")

    def test_2_no_microphone_is_said_clearly_and_nothing_is_sent(self):
        """A browser with no microphone it may use: a clear message, no take on the server."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)  # the pool's: no fake microphone, nothing allowed
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        switch = wait_for(presenter, lambda d: visible(d, "#record-switch"), "the microphone switch")
        switch.click()
        toast = wait_for(presenter, lambda d: [t for t in d.find_elements(By.CSS_SELECTOR, ".toast-error")
                                               if "nothing is recorded" in t.text], "the refusal message")
        self.assertTrue(toast[0].is_displayed())
        self.assertEqual(presenter.execute_script("return document.body.dataset.recording"), "off")
        self.assertFalse(visible(presenter, "#on-air"))
        self.assertEqual(takes(code), [])
        screenshot(presenter, "recording/no-microphone")

    def test_3_room_presenter_in_control_records(self):
        """A room's presenter: no switch until they have the stage; in control they record (as the
        presenter in control, by their browser's identity), and the take is packaged."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Recorded room", "passcode": "4321"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        moderator = self.driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                 "the moderator console to connect")
        ann = self.fake_microphone_driver(1280, 800)
        ann.get(f"{SERVER.base}/r/{code}")
        wait_for(ann, lambda d: visible(d, "#passcode"), "the presenter's join gate")
        ann.find_element(By.ID, "presenter-name").send_keys("Ann")
        ann.find_element(By.ID, "passcode").send_keys("4321")
        ann.find_element(By.ID, "join-button").click()
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.connection") == "live"
                 and d.execute_script("return document.body.dataset.presenterId"), "Ann in the room")
        ann_id = ann.execute_script("return document.body.dataset.presenterId")
        self.assertFalse(visible(ann, "#record-switch"), "no microphone switch without the stage")
        wait_for(ann, lambda d: visible(d, "#request"), "the request button").click()
        wait_for(moderator, lambda d: visible(d, f'.queue-item[data-presenter-id="{ann_id}"] [data-action="grant"]'),
                 "Ann's request on the console").click()
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.drives") == "true", "Ann in control")
        wait_for(ann, lambda d: visible(d, "#record-switch"), "the microphone switch").click()
        wait_for(ann, lambda d: visible(d, "#on-air"), "Ann on air")
        wait_for(ann, lambda d: len(takes(code)) == 1 and takes(code)[0]["chunks"] >= 2, "Ann's chunks on the server",
                 timeout=15)
        box = ann.execute_script(BOX_JS, "#on-air")
        self.assertTrue(box["onTop"] and box["right"] <= box["viewport"]["width"] + 0.5, f"the indicator on screen: {box}")
        screenshot(ann, "recording/room-presenter-on-air")
        ann.find_element(By.ID, "record-switch").click()
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.recording") == "off", "recording off")
        wait_for(ann, lambda d: takes(code)[0]["status"] in ("ready", "failed"), "Ann's take packaged", timeout=30)
        take = takes(code)[0]
        self.assertEqual(take["status"], "ready", take)
        self.assertGreater(take["duration"], 3000, take)

    def test_4_room_moderator_records(self):
        """A room's moderator records from the moderator page, with the console's switch and on-air
        indicator (the `recording` command is a moderator's); the take is packaged; the switch
        leaves the bar when the room ends."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Moderated recording"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        moderator = self.fake_microphone_driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                 "the moderator console to connect")
        wait_for(moderator, lambda d: visible(d, "#record-switch"), "the moderator's microphone switch").click()
        wait_for(moderator, lambda d: visible(d, "#on-air"), "the moderator on air")
        self.assertEqual(moderator.execute_script("return document.body.dataset.recording"), "on")
        wait_for(moderator, lambda d: len(takes(code)) == 1 and takes(code)[0]["chunks"] >= 2, "the moderator's chunks on the server",
                 timeout=15)
        box = moderator.execute_script(BOX_JS, "#on-air")
        self.assertTrue(box["onTop"] and box["right"] <= box["viewport"]["width"] + 0.5, f"the indicator on screen: {box}")
        self.assertGreaterEqual(box["width"], 80)
        self.assertGreaterEqual(box["height"], 24)
        self.assertIn(box["background"], ("rgb(220, 38, 38)", "rgba(220, 38, 38, 1)"))
        end = moderator.execute_script(BOX_JS, "#end-room")
        self.assertTrue(end["right"] <= end["viewport"]["width"] + 0.5, f"End room still on screen: {end}")
        screenshot(moderator, "recording/moderator-on-air")
        moderator.find_element(By.ID, "record-switch").click()
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.recording") == "off", "recording off")
        wait_for(moderator, lambda d: takes(code)[0]["status"] in ("ready", "failed"), "the take packaged", timeout=30)
        take = takes(code)[0]
        self.assertEqual(take["status"], "ready", take)
        self.assertGreater(take["duration"], 1500, take)
        status, _ = SERVER.api("POST", f"/api/v1/sessions/{code}/end")
        self.assertEqual(status, 200)
        wait_for(moderator, lambda d: not visible(d, "#record-switch"), "no switch once the room ended")
