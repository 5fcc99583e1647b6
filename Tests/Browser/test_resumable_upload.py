#!/usr/bin/python3
"""Browser test of a resumable upload (issue #41, the tus protocol of /api/v1/uploads): an
upload cut off by a page load and resumed from the next one.

A clip of a few MB is made here with ffmpeg (noise, so it does not shrink) and chosen in the
library on a slow line (chromedriver's network conditions). Once the card says part of it went,
the page is loaded again, which cuts the upload off; the server keeps the bytes it received. The
same file chosen again continues from the server's offset: the card says "Resuming at N %", the
clip goes on to be packaged and is ready in the library. That it really resumed is read from the
page's own requests (its PATCHes, counted by a script put in before the page's own) and from the
server: the upload the page remembered (localStorage `podium.uploads`) is the one that finished
(GET /api/v1/uploads/{id}), and the bytes sent after the reload are the file's rest, not all of it.

A second test cuts the line instead (a proxy between the browser and the server drops every
connection and closes new ones): the card counts down to the next try ("Connection lost — retrying
in N s"), and once the line is back the same upload goes on from the server's offset.

State the tests read: `[data-upload][data-upload-state][data-resumed-at][data-retry-in]` (the card
of an upload, where it resumed in percent, the seconds to its next try) and its `.progress-label`.
Alone:
python3 Tests/Browser/run_browser_tests.py resumable
"""

import json
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

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
wait_translated = harness.wait_translated

# The page's PATCHes, counted before its own scripts run: [{url, offset, bytes}] of this page load.
COUNT_PATCHES = """(() => {
  window.patches = [];
  const open = XMLHttpRequest.prototype.open;
  const header = XMLHttpRequest.prototype.setRequestHeader;
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    this.counted = method.toUpperCase() === 'PATCH' ? { url: String(url), offset: null, bytes: 0 } : null;
    return open.call(this, method, url, ...rest);
  };
  XMLHttpRequest.prototype.setRequestHeader = function (name, value) {
    if (this.counted && name.toLowerCase() === 'upload-offset') this.counted.offset = Number(value);
    return header.call(this, name, value);
  };
  XMLHttpRequest.prototype.send = function (body) {
    if (this.counted) {
      this.counted.bytes = body && body.size !== undefined ? body.size : 0;
      window.patches.push(this.counted);
    }
    return send.call(this, body);
  };
})();"""

# The slow line while the clip goes up (bytes a second): a clip of about 3 MB takes some 10 s.
SLOW = 300 * 1024


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def card_percent(driver, title):
    """The percent the upload card of `title` says ("Uploading 43 %"), or None."""
    label = text_of(driver, f'[data-upload][data-title="{title}"] .progress-label span') or ""
    digits = "".join(c for c in label if c.isdigit())
    return int(digits) if label.startswith("Uploading") and digits else None


class ResumableUploadTests(BrowserTest):
    def test_upload_cut_off_and_resumed_from_another_page_load(self):
        """An upload cut off by a reload continues from the server's offset when the same file is
        chosen again, with the same upload, and the clip is ready in the library."""
        title = "Keynote rehearsal"
        with tempfile.TemporaryDirectory() as scratch:
            clip = Path(scratch) / f"{title}.mp4"
            subprocess.run(
                ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi",
                 "-i", "testsrc2=size=480x270:rate=15:duration=2,noise=alls=60:allf=t",
                 "-c:v", "libx264", "-preset", "ultrafast", "-qp", "24", "-pix_fmt", "yuv420p", str(clip)], check=True)
            size = clip.stat().st_size
            self.assertGreater(size, 1_500_000, "a clip of a few MB")

            driver = self.driver(1280, 900)
            self.sign_in_with_cookie(driver)
            counting = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COUNT_PATCHES})
            try:
                driver.get(SERVER.base + "/library")
                wait_translated(driver)
                driver.set_network_conditions(offline=False, latency=5, download_throughput=50 * 1024 * 1024, upload_throughput=SLOW)
                driver.find_element(By.ID, "video-input").send_keys(str(clip))

                # Part of it is on its way (the card's percentage): the server holds the bytes it got.
                wait_for(driver, lambda d: (card_percent(d, title) or 0) >= 20, "a fifth of the clip sent", timeout=30)
                remembered = driver.execute_script("return JSON.parse(localStorage.getItem('podium.uploads') || '{}')")
                self.assertEqual(len(remembered), 1, remembered)
                url = next(iter(remembered.values()))
                self.assertRegex(url, r"^/api/v1/uploads/[A-Za-z0-9_-]{16,}$")
                first = driver.execute_script("return window.patches")
                self.assertEqual([(p["url"], p["offset"]) for p in first], [(url, 0)], "one PATCH of the whole clip, from 0")

                # Another page load cuts the upload off; the server keeps what arrived.
                driver.refresh()
                wait_translated(driver)
                held = wait_for(driver, lambda d: (lambda s, u: s == 200 and u["offset"] > 0 and u)(*SERVER.api("GET", url)),
                                "the server to hold part of the clip")
                self.assertEqual(held["state"], "receiving")
                self.assertLess(held["offset"], size)
                self.assertEqual(driver.execute_script("return window.patches"), [], "nothing sent by the new page yet")

                # The same file chosen again: it continues where the server stopped.
                driver.find_element(By.ID, "video-input").send_keys(str(clip))
                # (The card is drawn anew as the upload goes on: read from the page as it is now.)
                card = f'[data-upload][data-title="{title}"]'
                resumed_at = int(wait_for(driver, lambda d: d.execute_script(
                    "const c = document.querySelector(arguments[0]); return c && c.dataset.resumedAt", card),
                    "the card of the resumed upload"))
                self.assertEqual(resumed_at, round(held["offset"] * 100 / size))
                label = wait_for(driver, lambda d: (lambda t: t.startswith("Resuming at") and t)(
                    text_of(d, f'[data-upload][data-title="{title}"] .progress-label span') or ""), "Resuming at … %")
                self.assertEqual(label, f"Resuming at {resumed_at} %")
                driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", card)
                screenshot(driver, "upload-resuming")
                driver.delete_network_conditions()

                wait_for(driver, lambda d: visible(d, f'#videos .video-card[data-video-id][data-title="{title}"][data-status="ready"]'),
                         "the clip ready in the library", timeout=60)
                driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})",
                                      f'#videos .video-card[data-title="{title}"]')
                screenshot(driver, "upload-resumed-ready")
                patches = driver.execute_script("return window.patches")
            finally:
                driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", counting)
                try:
                    driver.delete_network_conditions()
                except Exception:  # none set any more
                    pass

        # The bytes after the reload are the rest of the file, sent to the same upload: not all of it again.
        self.assertTrue(patches, "the resumed upload sent its rest")
        self.assertEqual(patches[0]["url"], url, "the same upload")
        self.assertEqual(patches[0]["offset"], held["offset"], f"resumed at the server's offset: {json.dumps(patches)}")
        self.assertEqual(sum(p["bytes"] for p in patches), size - held["offset"])
        print(f"\n    resumed at {held['offset']} of {size} bytes ({resumed_at} %), {len(patches)} PATCH after the reload", end=" ")
        self.assertTrue(all(p["url"] == url for p in patches), patches)
        # The server finished that upload, with the clip now in the library, and the page forgot it.
        status, upload = SERVER.api("GET", url)
        self.assertEqual(status, 200, upload)
        self.assertEqual((upload["state"], upload["offset"], upload["length"]), ("done", size, size))
        result = upload["result"]
        video_id = (result.get("item") or result)["id"]
        status, video = SERVER.api("GET", f"/api/v1/videos/{video_id}")
        self.assertEqual((status, video["title"], video["status"]), (200, title, "ready"))
        self.assertEqual(driver.execute_script("return localStorage.getItem('podium.uploads')"), None)

    def test_upload_goes_on_after_the_connection_comes_back(self):
        """The line drops half way (a proxy between the browser and the server cuts every
        connection and refuses new ones): the card counts down to the next try ("Connection lost —
        retrying in N s"); once the line is back the upload goes on from the server's offset."""
        title = "Offline rehearsal"
        proxy = CuttableProxy(SERVER.port)
        harness.add_origin(proxy.port)
        base = f"http://127.0.0.1:{proxy.port}"
        try:
            with tempfile.TemporaryDirectory() as scratch:
                clip = Path(scratch) / f"{title}.mp4"
                subprocess.run(
                    ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi",
                     "-i", "testsrc2=size=480x270:rate=15:duration=2,noise=alls=60:allf=t",
                     "-c:v", "libx264", "-preset", "ultrafast", "-qp", "24", "-pix_fmt", "yuv420p", str(clip)], check=True)
                size = clip.stat().st_size
                driver = self.driver(1280, 900)
                driver.get(base + "/healthz")
                driver.add_cookie({"name": "podium_auth", "value": SERVER.token, "path": "/"})
                counting = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COUNT_PATCHES})
                try:
                    driver.get(base + "/library")
                    wait_translated(driver)
                    driver.execute_cdp_cmd("Network.enable", {})
                    line = {"offline": False, "latency": 5, "downloadThroughput": -1, "uploadThroughput": SLOW}
                    driver.execute_cdp_cmd("Network.emulateNetworkConditions", line)
                    driver.find_element(By.ID, "video-input").send_keys(str(clip))
                    wait_for(driver, lambda d: (card_percent(d, title) or 0) >= 20, "a fifth of the clip sent", timeout=30)

                    proxy.cut()
                    card = f'[data-upload][data-title="{title}"]'
                    wait_for(driver, lambda d: visible(d, card + "[data-retry-in]"), "the card waiting to try again")
                    label = text_of(driver, card + " .progress-label span")
                    self.assertRegex(label, r"^Connection lost — retrying in [1-8] s$")
                    driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", card)
                    screenshot(driver, "upload-retrying")

                    proxy.restore()
                    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {**line, "uploadThroughput": -1})
                    wait_for(driver, lambda d: visible(d, f'#videos .video-card[data-video-id][data-title="{title}"][data-status="ready"]'),
                             "the clip ready in the library", timeout=60)
                    patches = driver.execute_script("return window.patches")
                finally:
                    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", counting)
        finally:
            proxy.close()
            harness.remove_origin(proxy.port)
        # One upload: the PATCH cut off, then the rest from where the server stopped.
        self.assertGreaterEqual(len(patches), 2, patches)
        self.assertEqual(len({p["url"] for p in patches}), 1, patches)
        self.assertEqual(patches[0]["offset"], 0)
        self.assertGreater(patches[1]["offset"], 0, patches)
        self.assertEqual(patches[-1]["offset"] + patches[-1]["bytes"], size)
        self.assertLess(sum(p["bytes"] for p in patches), 2 * size)


class CuttableProxy:
    """A TCP proxy on a free port of 127.0.0.1 to the server's: `cut()` drops every connection
    and closes new ones at once (a lost Wi-Fi), `restore()` lets them through again."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.open = []
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            if not self.up:
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def pipe(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.up = False
        with self.lock:
            sockets, self.open = self.open, []
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def restore(self):
        self.up = True

    def close(self):
        self.cut()
        self.listener.close()
