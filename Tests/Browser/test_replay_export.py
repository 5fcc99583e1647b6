#!/usr/bin/python3
"""Browser test of the replay's MP4 export (issue #44): on the replay page a host presses Export
MP4, a progress bar follows the job, then Download (the MP4, video/mp4) and Publish to channel
(the session's title prefilled) end with a link to the channel video. Someone who is not a host
sees no export controls on a replay shared by link.

State the test reads: .replay-export (export-controls.js), its progress, status, download link,
publish form and channel link.
Alone:  python3 Tests/Browser/run_browser_tests.py replay_export
"""

import sys
import urllib.request

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

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


class ReplayExportTests(BrowserTest):
    def open_replay(self, driver, code):
        driver.get(f"{SERVER.base}/s/{code}/replay")
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.replay") in ("ready", "refused"), "the replay page")
        self.assertEqual(driver.execute_script("return document.body.dataset.replay"), "ready")

    def assert_controls_fit(self, driver, where):
        """Download, the title and Publish inside the window and at least 24 px tall; the page no
        wider than the window; the stage still there (not squeezed out by the controls)."""
        found = driver.execute_script("""
          const rect = (css) => { const e = document.querySelector(css); if (!e) return null;
            const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, width: r.width, height: r.height}; };
          return {window: innerWidth, page: document.documentElement.scrollWidth,
                  download: rect('.replay-export-download'), title: rect('.replay-export-title'),
                  publish: rect('.replay-export-publish button'), stage: rect('#stage')};""")
        self.assertLessEqual(found["page"], found["window"], f"{where}: no sideways scrolling: {found}")
        for name in ("download", "title", "publish"):
            box = found[name]
            self.assertIsNotNone(box, f"{where}: {name} missing")
            self.assertGreaterEqual(box["left"], 0, f"{where}: {name} inside the window: {found}")
            self.assertLessEqual(box["right"], found["window"] + 0.5, f"{where}: {name} inside the window: {found}")
            self.assertGreaterEqual(box["height"], 24, f"{where}: {name} tall enough: {found}")
        self.assertGreater(found["stage"]["height"], 150, f"{where}: the stage keeps its room: {found}")

    def test_replay_export_a_host_exports_downloads_and_publishes(self):
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        status, _ = SERVER.api("POST", f"/api/v1/sessions/{code}/end")
        self.assertEqual(status, 200)
        status, _ = SERVER.api("PATCH", f"/api/v1/sessions/{code}", {"replay": "link"})
        self.assertEqual(status, 200)

        host = self.driver(1280, 800)
        self.sign_in_with_cookie(host)
        self.open_replay(host, code)
        wait_for(host, lambda d: visible(d, ".replay-export-start"), "the Export MP4 button")
        self.assertEqual(text_of(host, ".replay-export-start"), "Export MP4")
        host.find_element(By.CSS_SELECTOR, ".replay-export-start").click()
        wait_for(host, lambda d: visible(d, ".replay-export-download"), "the Download link", timeout=60)
        self.assertFalse(visible(host, ".replay-export-progress"), "no progress bar once ready")
        href = host.find_element(By.CSS_SELECTOR, ".replay-export-download").get_attribute("href")
        self.assertRegex(href, r"/api/v1/replay-exports/[^/]+/file$")
        request = urllib.request.Request(href, method="HEAD", headers={"Authorization": "Bearer " + SERVER.token})
        with urllib.request.urlopen(request, timeout=30) as response:
            self.assertEqual(response.headers["Content-Type"], "video/mp4")
        title = host.find_element(By.CSS_SELECTOR, ".replay-export-title")
        self.assertEqual(title.get_attribute("value"), session.get("title") or "")
        screenshot(host, "replay-export-ready")
        self.assert_controls_fit(host, "a laptop")
        # The same on a phone and a tablet: every control on screen, nothing wider than it.
        for width, height in ((390, 844), (820, 1180)):
            other = self.driver(width, height)
            self.sign_in_with_cookie(other)
            self.open_replay(other, code)
            wait_for(other, lambda d: visible(d, ".replay-export-download"), f"the Download link at {width} px")
            self.assert_controls_fit(other, f"{width}x{height}")
            screenshot(other, f"replay-export-ready-{width}")
        title.clear()
        title.send_keys("Welcome, replayed")
        host.find_element(By.CSS_SELECTOR, ".replay-export-publish button").click()
        wait_for(host, lambda d: visible(d, ".replay-export-channel"), "the link to the channel video", timeout=30)
        link = host.find_element(By.CSS_SELECTOR, ".replay-export-channel").get_attribute("href")
        self.assertIn("/channel#videos/", link)
        status, video = SERVER.api("GET", "/api/v1/channel/videos/" + link.split("#videos/")[1])
        self.assertEqual(status, 200)
        self.assertEqual(video["title"], "Welcome, replayed")
        screenshot(host, "replay-export-published")

        # Opened again: the export's state is there, published.
        self.open_replay(host, code)
        wait_for(host, lambda d: visible(d, ".replay-export-channel"), "the published export after a reload")

        # Someone else, on the replay shared by link: no export controls.
        stranger = self.driver(1024, 768)
        self.open_replay(stranger, code)
        wait_for(stranger, lambda d: d.execute_script("return document.getElementById('replay-host-tools').dataset.exportControls"),
                 "the export controls' decision")
        self.assertEqual(stranger.execute_script("return document.getElementById('replay-host-tools').dataset.exportControls"), "none")
        self.assertFalse(stranger.find_elements(By.CSS_SELECTOR, ".replay-export"), "no export controls for a non-host")
