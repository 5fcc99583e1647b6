#!/usr/bin/python3
"""Browser tests of captions (issue #41).

In the library, a video card's Captions dialog takes an SRT file for a language, lists the track,
shows its cues in a small editor (a cue's text edited and saved) and plays the clip with them; the
card says which languages the clip has, or that it has none. On a session's stage every screen
shows the cue of the synced position: the viewer's <video> has the track's active cue (a hidden
TextTrack) and our overlay shows its text, visibly, over the lower part of the picture; the big
screen (1920x1080) shows it large (a line at least 1/20 of the screen's height), with nothing on
top. A refused file is explained in the page's language (German here), not in the server's English.

State the tests read: ``dialog#caption-editor`` with ``[data-field=caption-file|caption-language|
caption-label]``, ``[data-action=upload-captions|save-cue]``, ``ol[data-role=caption-cues]``; the
card's ``[data-role=captions-badge][data-captions]``; the stage's ``.caption-overlay[data-role=captions]``.
Alone:  python3 Tests/Browser/run_browser_tests.py caption
"""

import sys
import tempfile
from pathlib import Path

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

import test_video  # noqa: E402  (its clip upload and stage helpers)
from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

CLIP_SECONDS = 4
SRT = "1\r\n00:00:00,000 --> 00:00:02,000\r\nHello <font color=\"red\">room</font>\r\n\r\n2\r\n00:00:02,000 --> 00:00:04,000\r\nSecond cue\r\n"
CUES = [(0, 2, "Hello room"), (2, 4, "Second cue")]
# A WebVTT file whose second cue ends before it starts: refused with 422 caption_order, cue 2.
BAD_VTT = "WEBVTT\n\n00:00.000 --> 00:01.000\nFine\n\n00:03.000 --> 00:02.000\nBackwards\n"


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def stage_caption(driver):
    """What a stage screen shows at one instant: the <video>'s time, its hidden track's active cue
    texts, and the overlay's text and box (None before the clip is there)."""
    return driver.execute_script(
        "const v = document.querySelector('#video-screen:not([hidden]) video'); if (!v) return null;"
        "const track = [...v.textTracks].find((t) => t.mode === 'hidden');"
        "const active = track && track.activeCues ? [...track.activeCues].map((c) => c.text) : [];"
        "const o = document.querySelector('#video-screen .caption-overlay');"
        "const r = o && !o.hidden ? o.getBoundingClientRect() : null; const s = v.getBoundingClientRect();"
        "const style = o ? getComputedStyle(o.querySelector('.caption-line') || o) : null;"
        "return {time: v.currentTime, paused: v.paused, active, text: o && !o.hidden ? o.textContent : '',"
        " box: r && {left: r.left, top: r.top, width: r.width, height: r.height},"
        " video: {left: s.left, top: s.top, width: s.width, height: s.height},"
        " color: style && style.color, visible: Boolean(r && r.width > 0 && style.visibility === 'visible' && style.opacity !== '0'),"
        # What a person sees at the caption's centre (the overlay lets the pointer through: asked with it catching it).
        " onTop: Boolean(r && (() => { o.style.pointerEvents = 'auto'; o.querySelectorAll('*').forEach((e) => { e.style.pointerEvents = 'auto'; });"
        "   const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); o.style.pointerEvents = '';"
        "   o.querySelectorAll('*').forEach((e) => { e.style.pointerEvents = ''; }); return o.contains(hit); })()),"
        " picture: v.videoWidth ? (() => { const k = Math.min(s.width / v.videoWidth, s.height / v.videoHeight);"
        "   const h = v.videoHeight * k; return {top: s.top + (s.height - h) / 2, bottom: s.top + (s.height + h) / 2}; })() : null};")


class CaptionTests(BrowserTest):
    @classmethod
    def setUpClass(cls):
        cls.video_id = test_video.upload_clip(CLIP_SECONDS)
        status, track = SERVER.request(
            "PUT", f"/api/v1/videos/{cls.video_id}/captions/en?label=English", token=SERVER.token,
            raw=SRT.encode(), content_type="application/x-subrip")
        if status != 201:
            raise AssertionError(f"the caption upload answered {status}: {track}")

    def test_a_viewer_sees_the_caption_of_the_synced_position_on_the_stage(self):
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code)
        presenter.find_element(By.CSS_SELECTOR, '[data-action="show-video"]').click()
        choice = wait_for(presenter, lambda d: visible(d, "dialog[open] select"), "the video picker")
        test_video.Select(choice).select_by_value(self.video_id)
        presenter.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()
        wait_for(viewer, lambda d: test_video.still_at(d, 0), "the clip on the viewer's stage")
        # Stopped at 0: the first cue already shows, on the viewer as on the console.
        for driver, who in ((viewer, "viewer"), (presenter, "console")):
            wait_for(driver, lambda d: (stage_caption(d) or {}).get("text") == CUES[0][2], f"the first cue on the {who}")
        self.press(presenter, " ")
        # Playing: every sample's cue is the one of the viewer's own position, in the track and on screen.
        seen = set()

        def synced(d):
            sample = stage_caption(d)
            if not sample or sample["paused"] or not sample["text"]:
                return False
            expected = [text for start, end, text in CUES if start + 0.15 <= sample["time"] < end - 0.15]
            if expected:
                self.assertEqual(sample["active"], expected, sample)
                self.assertEqual(sample["text"], expected[0], sample)
                seen.add(expected[0])
            return CUES[1][2] in seen

        wait_for(viewer, synced, "the second cue at the synced position on the viewer", timeout=15)
        sample = stage_caption(viewer)
        box, video = sample["box"], sample["video"]
        # Readable and over the picture's lower part, inside the screen.
        self.assertTrue(sample["visible"], sample)
        self.assertGreater(box["height"], 14, sample)
        self.assertGreaterEqual(box["left"], video["left"] - 1, sample)
        self.assertLessEqual(box["left"] + box["width"], video["left"] + video["width"] + 1, sample)
        picture = sample["picture"]
        self.assertTrue(sample["onTop"], f"the caption is covered: {sample}")
        self.assertGreater(box["top"], (picture["top"] + picture["bottom"]) / 2, f"in the picture's lower half: {sample}")
        self.assertLessEqual(box["top"] + box["height"], picture["bottom"] + 1, f"over the picture, not below it: {sample}")
        screenshot(viewer, "captions-viewer-stage")
        # The viewer turns them off: the overlay goes, and stays off for this browser.
        picker = wait_for(viewer, lambda d: visible(d, '#video-screen [data-role="captions-choice"]'), "the CC choice")
        test_video.Select(picker).select_by_value("off")
        wait_for(viewer, lambda d: not (stage_caption(d) or {}).get("text"), "no caption once turned off")

    def test_the_channel_player_shows_the_caption_of_its_position(self):
        # The clip published on the channel, free: its player shows the track of the page's language.
        status, category = SERVER.api("POST", "/api/v1/channel/videos/categories", {"name": "Captioned"})
        self.assertEqual(status, 201, category)
        status, entry = SERVER.api("POST", "/api/v1/channel/videos", {
            "videoId": self.video_id, "categoryId": category["id"], "title": "A captioned clip",
            "published": True, "free": True})
        self.assertEqual(status, 201, entry)
        driver = self.driver(1280, 800)
        driver.get(f"{SERVER.base}/channel#videos/{entry['id']}")
        player = "[data-role=video-player]"
        wait_for(driver, lambda d: d.execute_script(
            f"const v = document.querySelector('{player} video'); return Boolean(v && v.readyState >= 1);"),
            "the channel's player with the clip loaded", timeout=20)

        def shown(d):
            return d.execute_script(
                f"const o = document.querySelector('{player} .caption-overlay'); const v = document.querySelector('{player} video');"
                "if (!o || o.hidden) return null; const r = o.getBoundingClientRect(); const s = v.getBoundingClientRect();"
                "o.style.pointerEvents = 'auto'; o.querySelectorAll('*').forEach((e) => { e.style.pointerEvents = 'auto'; });"
                "const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                "o.style.pointerEvents = ''; o.querySelectorAll('*').forEach((e) => { e.style.pointerEvents = ''; });"
                "return {text: o.textContent, time: v.currentTime, onTop: o.contains(hit), top: r.top, height: r.height,"
                " videoTop: s.top, videoBottom: s.bottom};")

        # Moved to 2.5 s (the second cue) and paused there: its cue, over the picture's lower part.
        driver.execute_script(f"const v = document.querySelector('{player} video'); v.muted = true; v.currentTime = 2.5;")
        sample = wait_for(driver, lambda d: (lambda s: s if s and s["text"] == CUES[1][2] else None)(shown(d)),
                          "the second cue on the channel's player", timeout=15)
        self.assertTrue(sample["onTop"], f"the caption is covered: {sample}")
        self.assertGreater(sample["height"], 14, sample)
        self.assertGreater(sample["top"], (sample["videoTop"] + sample["videoBottom"]) / 2, sample)
        driver.execute_script(f"document.querySelector('{player} video').currentTime = 0.5;")
        wait_for(driver, lambda d: (shown(d) or {}).get("text") == CUES[0][2], "the first cue after a seek back")
        screenshot(driver, "captions-channel-player")

    def test_a_rooms_projector_shows_the_caption_of_the_synced_position(self):
        # A room: its moderator shows the captioned clip from their library; the projector shows the cue.
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Captioned room"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        moderator = self.driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the moderator console")
        projector = self.driver(1280, 720)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        moderator.find_element(By.CSS_SELECTOR, '[data-action="show-video"]').click()
        choice = wait_for(moderator, lambda d: visible(d, "dialog[open] select"), "the video picker")
        test_video.Select(choice).select_by_value(self.video_id)
        moderator.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()
        wait_for(projector, lambda d: (stage_caption(d) or {}).get("text") == CUES[0][2], "the first cue on the projector")
        # Moved to 2.5 s by the moderator: the projector's cue follows the synced position.
        bar = wait_for(moderator, lambda d: visible(d, '#video-screen [data-role="video-seek"]'), "the seek bar")
        moderator.execute_script("arguments[0].value = '2.5'; arguments[0].dispatchEvent(new Event('change'))", bar)
        sample = wait_for(projector, lambda d: (lambda s: s if s and s["text"] == CUES[1][2] else None)(stage_caption(d)),
                          "the second cue on the projector", timeout=15)
        # What shows is drawn from the picture's position: a paused clip moved by a seek may leave
        # the hidden track's active cues empty in Chromium (see captions.js render), not the overlay.
        self.assertTrue(sample["visible"] and sample["onTop"], f"the caption is covered: {sample}")
        self.assertAlmostEqual(sample["time"], 2.5, delta=0.3, msg=sample)
        screenshot(projector, "captions-room-projector")

    def test_the_big_screen_shows_the_caption_large_and_uncovered(self):
        """The projector's screen (1920x1080, read from the back of a room) shows the cue of the
        synced position large, over the picture's lower part, with nothing on top of it."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        presenter.find_element(By.CSS_SELECTOR, '[data-action="show-video"]').click()
        choice = wait_for(presenter, lambda d: visible(d, "dialog[open] select"), "the video picker")
        test_video.Select(choice).select_by_value(self.video_id)
        presenter.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()
        # The presenter moves the clip to 2.5 s (the second cue) with the seek bar: paused there.
        bar = wait_for(presenter, lambda d: visible(d, '#video-screen [data-role="video-seek"]'), "the seek bar")
        wait_for(presenter, lambda d: test_video.still_at(d, 0) and float(bar.get_attribute("max")) >= CLIP_SECONDS - 0.2, "the clip on the console")
        presenter.execute_script("arguments[0].value = '2.5'; arguments[0].dispatchEvent(new Event('change'))", bar)
        wait_for(presenter, lambda d: test_video.still_at(d, 2.5), "the console's clip at 2.5 s")
        screen = self.driver(1920, 1080)
        self.sign_in_with_cookie(screen)
        screen.get(f"{SERVER.base}/s/{code}/screen")
        wait_for(screen, lambda d: (stage_caption(d) or {}).get("text") == CUES[1][2], "the second cue on the big screen")
        wait_for(screen, lambda d: (stage_caption(d) or {}).get("picture"), "the picture's size known")
        sample = stage_caption(screen)
        self.assertAlmostEqual(sample["time"], 2.5, delta=0.3, msg=sample)
        box, picture = sample["box"], sample["picture"]
        size = screen.execute_script(
            "const line = document.querySelector('#video-screen .caption-overlay .caption-line');"
            "return {font: parseFloat(getComputedStyle(line).fontSize), height: line.getBoundingClientRect().height};")
        # Large: at least 1/20 of the screen's height a line (54 px at 1080p; a phone's is 16-28 px).
        self.assertGreaterEqual(size["font"], 1080 / 20, size)
        self.assertGreaterEqual(size["height"], 1080 / 20, size)
        self.assertTrue(sample["visible"], sample)
        self.assertTrue(sample["onTop"], f"the caption is covered on the big screen: {sample}")
        # Nothing on top at its ends either (the corner's controls, a notice, the tap button).
        ends = screen.execute_script(
            "const o = document.querySelector('#video-screen .caption-overlay .caption-line'); const r = o.getBoundingClientRect();"
            "o.style.pointerEvents = 'auto'; const hits = [[r.left + 4, r.top + 4], [r.right - 4, r.top + 4], [r.left + 4, r.bottom - 4],"
            " [r.right - 4, r.bottom - 4]].map(([x, y]) => o.contains(document.elementFromPoint(x, y))); o.style.pointerEvents = ''; return hits;")
        self.assertEqual(ends, [True] * 4, f"something covers the caption's corners: {sample}")
        # No one stands at a big screen to pick captions or a quality: no picker over the picture.
        pickers = screen.execute_script(
            "return [...document.querySelectorAll('#video-screen select')].filter((s) => s.getClientRects().length)"
            ".map((s) => s.dataset.role || s.className)")
        self.assertEqual(pickers, [], "the big screen shows a player's pickers over the picture")
        self.assertGreater(box["top"], (picture["top"] + picture["bottom"]) / 2, f"in the picture's lower half: {sample}")
        self.assertLessEqual(box["top"] + box["height"], picture["bottom"] + 1, f"over the picture: {sample}")
        # The picture itself at 2.5 s too before the screenshot (the cue is drawn from the position at once).
        wait_for(screen, lambda d: d.execute_script(
            "const v = document.querySelector('#video-screen video'); return v.readyState >= 2 && !v.seeking"), "the frame at 2.5 s")
        screenshot(screen, "captions-big-screen")

    def test_the_library_dialog_uploads_lists_and_edits_cues(self):
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/library")
        card = f'.video-card[data-video-id="{self.video_id}"]'
        badge = wait_for(driver, lambda d: visible(d, card + ' [data-role="captions-badge"]'), "the card's captions badge")
        self.assertEqual(badge.get_attribute("data-captions"), "en")
        driver.find_element(By.CSS_SELECTOR, card + ' [data-action="edit-captions"]').click()
        wait_for(driver, lambda d: visible(d, 'dialog#caption-editor[open] [data-role="caption-tracks"] li[data-language="en"]'), "the English track")
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "german.srt"
            path.write_text(SRT.replace("Hello", "Hallo"), encoding="utf-8")
            driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-field="caption-file"]').send_keys(str(path))
            language = driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-field="caption-language"]')
            language.clear()
            language.send_keys("de")
            driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-field="caption-label"]').send_keys("Deutsch")
            driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-action="upload-captions"]').click()
            first = wait_for(driver, lambda d: visible(d, '#caption-editor ol[data-language="de"] li[data-index="0"] textarea'), "the German cues")
        self.assertEqual(first.get_attribute("value"), "Hallo room")
        first.clear()
        first.send_keys("Hallo Saal")
        driver.find_element(By.CSS_SELECTOR, '#caption-editor ol[data-language="de"] li[data-index="0"] [data-action="save-cue"]').click()
        wait_for(driver, lambda d: SERVER.api("GET", f"/api/v1/videos/{self.video_id}/captions/de")[1]["cues"][0]["text"] == "Hallo Saal",
                 "the edited cue stored")
        screenshot(driver, "captions-library-dialog")
        driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-action="close-captions"]').click()
        badge = wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, card + ' [data-role="captions-badge"][data-captions="de en"]'), "the badge with both languages")
        status, _ = SERVER.request("DELETE", f"/api/v1/videos/{self.video_id}/captions/de", token=SERVER.token)
        self.assertEqual(status, 204)

    def test_a_refused_caption_file_says_why_in_the_persons_language(self):
        """The server refuses a bad file with a code (and the cue at fault); the dialog says why in
        the page's language, not the server's English message."""
        expected = "Untertitel 2 endet, bevor er beginnt. Prüfen Sie seine Zeiten."  # errors.caption_order, de
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/library?lang=de")
        card = f'.video-card[data-video-id="{self.video_id}"]'
        wait_for(driver, lambda d: visible(d, card + ' [data-action="edit-captions"]'), "the card's Captions button").click()
        wait_for(driver, lambda d: visible(d, 'dialog#caption-editor[open] [data-field="caption-file"]'), "the Captions dialog")
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "rueckwaerts.vtt"
            path.write_text(BAD_VTT, encoding="utf-8")
            driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-field="caption-file"]').send_keys(str(path))
            language = driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-field="caption-language"]')
            language.clear()
            language.send_keys("fr")
            driver.find_element(By.CSS_SELECTOR, '#caption-editor [data-action="upload-captions"]').click()
            error = wait_for(driver, lambda d: visible(d, '#caption-editor [data-role="caption-error"]'), "the refusal's reason")
        self.assertEqual(error.text, expected)
        self.assertNotIn("before it starts", error.text)
        # Readable where it is: inside the dialog, not covered.
        on_top = driver.execute_script(
            "const e = arguments[0]; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            "return e.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));", error)
        self.assertTrue(on_top, "the reason is covered")
        screenshot(driver, "captions-refused-german")
        # Nothing was stored.
        self.assertNotIn("fr", [t["language"] for t in SERVER.api("GET", f"/api/v1/videos/{self.video_id}/captions")[1]])
