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

A third test looks at the waiting line ("Connection lost — retrying in N s") in the library's
card and in a room's clip list (a presenter's page) on a phone (390x844) and a tablet (820x1180):
the whole line inside its card, not cut off, on top (elementFromPoint), and the bar showing what
went.

A second test cuts the line instead (a proxy between the browser and the server drops every
connection and closes new ones): the card counts down to the next try ("Connection lost — retrying
in N s"), and once the line is back the same upload goes on from the server's offset.

State the tests read: `[data-upload][data-upload-state][data-resumed-at][data-retry-in]` (the card
of an upload, where it resumed in percent, the seconds to its next try) and its `.progress-label`.
Alone:
python3 Tests/Browser/run_browser_tests.py resumable
"""

import json
import re
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
                entry = next(iter(remembered.values()))
                url = entry["url"]
                # Remembered with the server's expiry (Upload-Expires: a day by default), to be forgotten after it.
                now_ms = driver.execute_script("return Date.now()")
                self.assertGreater(entry["expires"], now_ms + 3600 * 1000, entry)
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


    def test_the_card_lines_fit_on_a_phone_and_a_tablet(self):
        """The lines of an upload that waits for the line to come back ("Connection lost —
        retrying in N s"), in the library's card and in a room's clip list (a presenter's page), on a phone (390x844)
        and a tablet (820x1180): the whole line is inside its card, not cut off, and on top."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Wi-Fi check"})
        self.assertEqual(status, 201, room)
        proxy = CuttableProxy(SERVER.port)
        harness.add_origin(proxy.port)
        base = f"http://127.0.0.1:{proxy.port}"
        try:
            with tempfile.TemporaryDirectory() as scratch:
                clip = Path(scratch) / "Conference Wi-Fi rehearsal with a long name.mp4"
                subprocess.run(
                    ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi",
                     "-i", "testsrc2=size=480x270:rate=15:duration=2,noise=alls=60:allf=t",
                     "-c:v", "libx264", "-preset", "ultrafast", "-qp", "24", "-pix_fmt", "yuv420p", str(clip)], check=True)
                driver = self.driver(390, 844)
                harness.size_driver(driver, 390, 844)
                driver.get(base + "/healthz")
                driver.add_cookie({"name": "podium_auth", "value": SERVER.token, "path": "/"})
                driver.execute_cdp_cmd("Network.enable", {})
                line = {"offline": False, "latency": 5, "downloadThroughput": -1, "uploadThroughput": SLOW}
                places = (
                    ("library", base + "/library", "#video-input",
                     '[data-upload][data-title="Conference Wi-Fi rehearsal with a long name"]',
                     '[data-upload] .progress-label span', "[data-upload]"),
                    ("room", f"{base}/r/{room['code']}", "#video-file",
                     "#video-upload-status", "#video-upload-status .room-upload-label", "#videos-card"),
                )
                for place, url, chooser, waiting, label, card in places:
                    try:
                        driver.get(url)
                        wait_translated(driver)
                        if place == "room":  # a presenter's page: the clip list is theirs once they joined
                            name = wait_for(driver, lambda d: visible(d, "#presenter-name"), "the presenter's join gate")
                            name.clear()
                            name.send_keys("Ann")
                            driver.find_element(By.ID, "join-button").click()
                            wait_for(driver, lambda d: d.execute_script("return document.body.dataset.presenterId"), "Ann in the room")
                        driver.execute_cdp_cmd("Network.emulateNetworkConditions", line)
                        driver.find_element(By.CSS_SELECTOR, chooser).send_keys(str(clip))
                        wait_for(driver, lambda d: (lambda m: m and int(m.group(1)) >= 20)(
                            re.search(r"(\d+)\s*%", text_of(d, label) or "")), f"a fifth sent ({place})", timeout=30)
                        proxy.cut()
                        wait_for(driver, lambda d: "retrying in" in (text_of(d, label) or "").lower(),
                                 f"the {place}'s line waiting to try again")
                        for width, height in ((390, 844), (820, 1180)):
                            harness.size_driver(driver, width, height)
                            driver.execute_script(SHOW_JS, label)
                            fit = wait_for(driver, lambda d: d.execute_script(LINE_FITS, label, card), f"the {place}'s line laid out")
                            self.assertEqual(fit["problems"], [], f"{place} at {width}x{height}: {fit}")
                            self.assertRegex(fit["text"], r"(?i)connection lost — retrying in [1-8] s")
                            screenshot(driver, f"upload-retrying-{place}-{width}")
                    finally:
                        proxy.restore()
                        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {**line, "uploadThroughput": -1})
                        harness.size_driver(driver, 390, 844)
                    wait_for(driver, lambda d: not (text_of(d, label) or "").lower().count("retrying"),
                             f"the {place}'s upload going on", timeout=30)
        finally:
            proxy.close()
            harness.remove_origin(proxy.port)


# Whether the line `label` (a selector) is whole inside its card (`card`, its closest ancestor
# matching it) and on top: {text, problems: [...]}; null while it is not laid out.
LINE_FITS = """
const [labelSelector, cardSelector] = arguments;
const label = document.querySelector(labelSelector);
if (!label) return null;
const card = label.closest(cardSelector);
const l = label.getBoundingClientRect(), c = card.getBoundingClientRect();
if (!l.width || !l.height) return null;
const problems = [];
if (l.left < c.left - 0.5 || l.right > c.right + 0.5 || l.top < c.top - 0.5 || l.bottom > c.bottom + 0.5)
  problems.push(`outside its card: ${JSON.stringify(l)} in ${JSON.stringify(c)}`);
if (l.left < 0 || l.right > innerWidth) problems.push('outside the screen');
for (let box = label; box && box !== card.parentElement; box = box.parentElement) {
  const style = getComputedStyle(box);
  if (style.overflowX !== 'visible' && box.scrollWidth > box.clientWidth + 1) problems.push(`cut off by ${box.className || box.tagName}`);
  if (box.scrollWidth > box.clientWidth + 1 && style.textOverflow === 'ellipsis') problems.push(`ellipsis on ${box.className}`);
}
for (const range of label.getClientRects()) {
  const hit = document.elementFromPoint(range.left + range.width / 2, range.top + range.height / 2);
  if (!hit || !(label === hit || label.contains(hit) || hit.contains(label))) problems.push(`covered by ${hit && (hit.className || hit.tagName)}`);
}
// The bar shows what went before the line was lost (a fifth or more).
const bar = card.querySelector('.progress-bar');
const track = bar && bar.parentElement.getBoundingClientRect();
const filled = bar ? bar.getBoundingClientRect().width / track.width : 0;
if (!(filled >= 0.15) || !(bar.getBoundingClientRect().height > 0)) problems.push(`the bar shows ${filled}`);
return { text: label.textContent, filled, problems };
"""

# Brings `arguments[0]` to the middle of its scroller, as a person scrolls to it: a page whose
# body does not scroll (overflow: hidden, the rooms' pages) is left where it is.
SHOW_JS = """
const target = document.querySelector(arguments[0]);
target.scrollIntoView({block: 'center'});
for (let box = target.parentElement; box; box = box.parentElement) {
  const style = getComputedStyle(box);
  if (style.overflowY === 'hidden' || (box === document.body && getComputedStyle(document.documentElement).overflowY === 'hidden')) box.scrollTop = 0;
}
if (getComputedStyle(document.body).overflowY === 'hidden') document.scrollingElement.scrollTop = 0;
"""


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
