#!/usr/bin/python3
"""Browser tests of "playable in a minute" (#41): a clip plays on the stage before its top rung
exists, and the library's cards say where a clip's packaging is (its place in line and the time
left while it waits, "Playable — adding HD versions (40 %)" once it plays).

Runs inside the suite of ``run_browser_tests.py`` on a server of its own, started with
``PODIUM_TEST_LADDER_HOLD`` naming a file: while the file exists, the server's packaging waits
after each clip's first playable rendition (its lowest rung and the sound), before the rest of its
ladder. Alone:  python3 Tests/Browser/run_browser_tests.py VideoPlayableTests

State the tests read: ``#video-screen[data-video]`` and its ``<video>`` (currentTime, its box) on
the console; ``.video-card[data-video-id] [data-role=processing]`` (its label) in the library.
"""

import os
import subprocess
import sys
import tempfile
import time
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

HOLD = {}
CLIPS = {}


def setUpModule():
    # A server of this module's own, whose ladders wait while the hold file exists.
    if SERVER.proc and SERVER.proc.poll() is None:
        harness.tearDownModule()
    DEMO_DECK.clear()
    HOLD["dir"] = tempfile.mkdtemp(prefix="podium-ladder-hold-")
    HOLD["file"] = os.path.join(HOLD["dir"], "hold")
    Path(HOLD["file"]).touch()
    os.environ["PODIUM_TEST_LADDER_HOLD"] = HOLD["file"]
    harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()
    os.environ.pop("PODIUM_TEST_LADDER_HOLD", None)
    if HOLD.get("file") and os.path.exists(HOLD["file"]):
        os.remove(HOLD["file"])
    if HOLD.get("dir"):
        os.rmdir(HOLD["dir"])


def hold():
    Path(HOLD["file"]).touch()


def release():
    if os.path.exists(HOLD["file"]):
        os.remove(HOLD["file"])


def upload(title, seconds, into="/api/v1/videos"):
    """A 640x480 clip with a tone (two rungs: 480p and 360p), uploaded (to the library, or to the
    room whose clips `into` names); its answer."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "clip.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", f"testsrc2=size=640x480:rate=15:duration={seconds}",
             "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
             "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(path)],
            check=True)
        status, video = SERVER.request(
            "POST", into + "?title=" + title.replace(" ", "%20"), token=SERVER.token, raw=path.read_bytes(),
            content_type="video/mp4")
    if status != 201:
        raise AssertionError(f"video upload answered {status}: {video}")
    return video


def video(video_id):
    status, answer = SERVER.api("GET", f"/api/v1/videos/{video_id}")
    if status != 200:
        raise AssertionError(f"GET video answered {status}: {answer}")
    return answer


def wait_playable(video_id):
    """Waits until the clip plays from its first rendition; its record."""
    deadline = time.monotonic() + 90
    while True:
        answer = video(video_id)
        if answer["status"] in ("ready", "failed"):
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"no first rendition after 90 s: {answer}")
        time.sleep(0.25)


def held_clip():
    """A clip on this server whose first rendition is packaged and whose ladder waits."""
    if CLIPS.get("server") != SERVER.base:
        hold()
        clip = upload("First rung", 12)
        CLIPS.update(server=SERVER.base, id=clip["id"])
        answer = wait_playable(clip["id"])
        if answer["status"] != "ready" or answer.get("ladderComplete") is not False:
            raise AssertionError(f"the clip is not playable before its ladder: {answer}")
    return CLIPS["id"]


def card_line(driver, video_id):
    """The packaging line of a clip's card in the library, or None when it has none."""
    return driver.execute_script(
        "const c = document.querySelector('.video-card[data-video-id=\"' + arguments[0] + '\"]');"
        "if (!c) return undefined;"
        "const p = c.querySelector('[data-role=processing] .progress-label');"
        "return p && p.getClientRects().length ? p.textContent : null;", video_id)


# Whether a line (a CSS selector) is seen whole: inside `box` (its card or list item, a selector)
# and not overflowing itself, nothing of the page on its first and last words or its middle. Found
# again on each call: the lists are drawn anew as packaging goes on.
LINE_FIT_JS = """
const line = document.querySelector(arguments[0]), box = document.querySelector(arguments[1]);
if (!line || !box) return null;
line.scrollIntoView({block: 'center'});
const r = line.getBoundingClientRect(), b = box.getBoundingClientRect();
const range = document.createRange(); range.selectNodeContents(line);
const rects = [...range.getClientRects()].filter((q) => q.width > 0);
const first = rects[0], last = rects[rects.length - 1];
const on = (x, y) => { const hit = document.elementFromPoint(x, y); return Boolean(hit && (hit === line || line.contains(hit))); };
return {
  text: line.textContent, width: r.width, height: r.height, lines: new Set(rects.map((q) => Math.round(q.top))).size,
  inside: r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1,
  overflowing: line.scrollWidth > line.clientWidth + 1,
  seen: Boolean(first && last) && on(first.left + 3, first.top + first.height / 2) && on(last.right - 3, last.top + last.height / 2)
    && on(r.left + r.width / 2, r.top + r.height / 2),
};
"""


def line_fit(driver, line, box):
    return driver.execute_script(LINE_FIT_JS, line, box)


class VideoPlayableTests(BrowserTest):
    def assert_line_whole(self, driver, line, box, where):
        fit = wait_for(driver, lambda d: line_fit(d, line, box), f"{where}: the line")
        self.assertTrue(fit["inside"] and not fit["overflowing"] and fit["seen"], f"{where}: the line is cut off or covered: {fit}")
        return fit

    def test_1_a_clip_on_stage_before_its_top_rung_exists(self):
        clip_id = held_clip()
        before = video(clip_id)
        self.assertEqual([r.get("height") for r in before["renditions"] if r.get("height")], [360],
                         "only the first rendition exists")
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        presenter.find_element(By.CSS_SELECTOR, '[data-action="show-video"]').click()
        choice = wait_for(presenter, lambda d: visible(d, "dialog[open] select"), "the video picker")
        Select(choice).select_by_value(clip_id)
        presenter.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()
        wait_for(presenter, lambda d: d.execute_script(
            "const s = document.getElementById('video-screen'); return s && !s.hidden && s.dataset.video") == clip_id,
            "the clip on the stage")
        presenter.find_element(By.CSS_SELECTOR, '#video-screen [data-role="video-play"]').click()
        # It plays: its time moves on past a second, on the first rendition.
        wait_for(presenter, lambda d: d.execute_script(
            "const v = document.querySelector('#video-screen video'); return v && !v.paused && v.currentTime > 1.5"),
            "the stage's video playing", timeout=30)
        first = presenter.execute_script("return document.querySelector('#video-screen video').currentTime")
        wait_for(presenter, lambda d: d.execute_script(
            "return document.querySelector('#video-screen video').currentTime") > first + 0.5, "its time moving on")
        box = presenter.execute_script(
            "const v = document.querySelector('#video-screen video'); const r = v.getBoundingClientRect();"
            "const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
            "return {width: r.width, height: r.height, videoWidth: v.videoWidth, videoHeight: v.videoHeight,"
            " shown: Boolean(hit && (hit === v || v.closest('#video-screen').contains(hit)))}")
        self.assertGreater(box["width"], 300, f"the picture's size: {box}")
        self.assertGreater(box["height"], 150, f"the picture's size: {box}")
        self.assertTrue(box["shown"], f"nothing covers the picture: {box}")
        self.assertEqual(box["videoHeight"], 360, f"it plays the first rendition: {box}")
        screenshot(presenter, "video-playable-first-rung-on-stage")
        # All the while the top rung did not exist.
        self.assertIs(video(clip_id).get("ladderComplete"), False)

    def test_2_the_card_while_queued_and_while_adding_renditions(self):
        clip_id = held_clip()
        # Two more wait behind the held one.
        queued = [upload("Second clip", 3)["id"], upload("Third clip", 3)["id"]]
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/library")
        wait_for(driver, lambda d: card_line(d, clip_id), "the held clip's card")
        line = card_line(driver, clip_id)
        self.assertTrue(line.startswith("Playable — adding HD versions ("), line)
        self.assertTrue(line.rstrip().endswith("%)") or " · " in line, line)
        # Short clips: "less than a minute left" (a longer wait reads "about 3 min left").
        wait_for(driver, lambda d: card_line(d, queued[0]) == "Next in line · less than a minute left",
                 "the next clip's place in line and time left")
        wait_for(driver, lambda d: card_line(d, queued[1]) == "1 clip ahead of it · less than a minute left",
                 "the last clip's place in line and time left")
        # The held clip's card has its picture already.
        wait_for(driver, lambda d: d.execute_script(
            "const i = document.querySelector('.video-card[data-video-id=\"' + arguments[0] + '\"] .deck-thumb img');"
            "return Boolean(i && i.complete && i.naturalWidth > 0)", clip_id), "the held clip's picture")
        driver.execute_script(
            "document.querySelector('.video-card[data-video-id=\"' + arguments[0] + '\"]').scrollIntoView({block: 'center'})",
            clip_id)
        screenshot(driver, "video-playable-cards-queued")
        # On a phone and a tablet too: each card's line whole, in its card, nothing over it.
        for width, height, name in ((390, 844, "phone"), (820, 1180, "tablet")):
            harness.size_driver(driver, width, height)
            for video_id in [clip_id] + queued:
                card = f'.video-card[data-video-id="{video_id}"]'
                wait_for(driver, lambda d: card_line(d, video_id), "the card's line")
                self.assert_line_whole(driver, card + " [data-role=processing] .progress-label span", card,
                                       f"{name}, {card_line(driver, video_id)}")
            driver.execute_script(
                "document.querySelector('.video-card[data-video-id=\"' + arguments[0] + '\"]').scrollIntoView({block: 'center'})",
                clip_id)
            screenshot(driver, f"video-playable-cards-{name}")
        harness.size_driver(driver, 1280, 900)

        release()
        # The ladder comes: the card says nothing more, and the others follow it.
        wait_for(driver, lambda d: card_line(d, clip_id) is None, "the held clip whole", timeout=60)
        for video_id in queued:
            wait_for(driver, lambda d: card_line(d, video_id) is None, "a queued clip packaged", timeout=90)
        self.assertIs(video(clip_id).get("ladderComplete"), True)
        screenshot(driver, "video-playable-cards-done")

    def test_3_a_rooms_clip_list_says_it_plays_while_adding_renditions(self):
        """A room's own clip, playable from its first rendition, says so in the presenter's clip
        list (as the library's card does), with a Show button; on a phone the line is whole."""
        hold()
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Playable room"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        clip = upload("Room clip", 12, into=f"/api/v1/sessions/{code}/videos")
        answer = wait_playable(clip["id"])
        self.assertIs(answer.get("ladderComplete"), False, answer)
        item_css = f'#room-videos li[data-video-id="{clip["id"]}"]'
        for width, height, name in ((1280, 800, "laptop"), (390, 844, "phone")):
            ann = self.driver(width, height)
            ann.get(f"{SERVER.base}/r/{code}")
            wait_for(ann, lambda d: visible(d, "#gate-form"), "the presenter's join gate")
            ann.find_element(By.ID, "presenter-name").send_keys("Ann")
            ann.find_element(By.ID, "join-button").click()
            wait_for(ann, lambda d: d.execute_script("return document.body.dataset.presenterId"), "Ann in the room")
            detail = wait_for(ann, lambda d: "Playable — adding HD versions (" in d.find_element(
                By.CSS_SELECTOR, item_css + ' [data-role="detail"]').text and d.find_element(
                By.CSS_SELECTOR, item_css + ' [data-role="detail"]'), f"the playable line in the room's list ({name})")
            self.assertTrue(detail.text.startswith("0:12 · Playable — adding HD versions ("), detail.text)
            self.assertEqual(ann.find_element(By.CSS_SELECTOR, item_css).get_attribute("data-status"), "ready")
            self.assertTrue(ann.find_elements(By.CSS_SELECTOR, item_css + ' [data-action="show-room-video"]'), "a Show button")
            self.assert_line_whole(ann, item_css + ' [data-role="detail"]', item_css, name)
            screenshot(ann, f"video-playable-room-list-{name}")
            if name != "phone":
                self.release(ann)
        release()
        # Whole: the list, still following it, says its length alone.
        wait_for(ann, lambda d: d.find_element(By.CSS_SELECTOR, item_css + ' [data-role="detail"]').text == "0:12",
                 "the clip whole in the room's list", timeout=60)
