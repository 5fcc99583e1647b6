#!/usr/bin/python3
"""Browser tests of a video on the stage: played in sync on every screen.

A room's moderator puts a clip from the library on the stage, plays, pauses and seeks it with the
player's controls; the projector and two viewers follow the one playback reference, each with its
own estimate of the server's clock; a viewer who joins while it plays lands at the right moment.
In a plain session the presenter drives it from the console with the keyboard, and "Back to
slides" takes it off.

The clip is made here with ffmpeg (testsrc2 and a sine tone) and packaged by the server (HLS).

State the tests read: ``#video-screen[data-video][data-state][data-sound]`` and its ``sample()``
(``{actual, target, drift}``: where the <video> is, where the reference says it should be, in
seconds) on every screen; ``[data-action=show-video]`` and the player's ``[data-role=video-*]``
controls on the console. Alone:  python3 Tests/Browser/run_browser_tests.py video
"""

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

# Installed before the library's own scripts: its folders arrive only once its videos have, and
# the test has called `releaseFolders()`; every "Short film" card put into the page is counted.
LATE_FOLDERS = """(() => {
  const fetch = window.fetch;
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  window.releaseFolders = release;
  window.videosArrived = false;
  window.filmCardsDrawn = 0;
  window.fetch = (input, init) => {
    const url = String(input);
    if (url.endsWith('/api/v1/folders')) return released.then(() => fetch.call(window, input, init));
    const answer = fetch.call(window, input, init);
    if (url.endsWith('/api/v1/videos')) answer.then(() => { window.videosArrived = true; });
    return answer;
  };
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.matches?.('.video-card[data-title="Short film"]')) window.filmCardsDrawn += 1;
      }
    }
  }).observe(document, { childList: true, subtree: true });
})();"""

CLIP = {}
# Long enough that a late joiner after the seek to 12.5 s still finds it playing on a busy machine
# (at 20 s it had ended before the late joiner's browser was up, with three runners on two cores).
CLIP_SECONDS = 45
# The players' sizes (StagePlayerSizeTests) need only a clip loaded, paused at its start: a short
# one spares packaging 45 s of video again on that class's own server (about 15 s of CPU).
SIZES_CLIP_SECONDS = 6
# Once converged, a screen is within this of the reference (the goal is far tighter: see
# Benchmarks/video-sync.py; a test on a busy machine must not fail on a slow frame).
CONVERGED = 0.35


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()
    # The clip is uploaded by each class (setUpClass): a class may run on a server of its own.


def use_clip(seconds):
    """The test clip of this length on the server the tests run on (uploaded once per server and
    length: a runner that ran another of this module's classes before has it on another server)."""
    if CLIP.get("server") != SERVER.base or CLIP.get("seconds") != seconds:
        started = time.monotonic()
        CLIP["id"] = upload_clip(seconds)
        CLIP.update(server=SERVER.base, seconds=seconds)
        harness.profiled(f"(a {seconds} s test clip made and packaged)", started)


def tearDownModule():
    harness.tearDownModule()


def upload_clip(seconds=CLIP_SECONDS):
    """A small clip (640x480, 15 fps, a tone: two renditions, 480p and 360p) uploaded and packaged; its id."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "clip.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", f"testsrc2=size=640x480:rate=15:duration={seconds}",
             "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
             "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(path)],
            check=True)
        status, video = SERVER.request(
            "POST", "/api/v1/videos?title=Test%20pattern", token=SERVER.token, raw=path.read_bytes(), content_type="video/mp4")
    if status != 201:
        raise AssertionError(f"video upload answered {status}: {video}")
    deadline = time.monotonic() + 120
    while True:
        status, video = SERVER.api("GET", f"/api/v1/videos/{video['id']}")
        # Packaged whole: a clip plays from its first rendition (ready, ladderComplete false) while
        # its ladder is packaged behind it; the sync tests want no ffmpeg beside them.
        if status == 200 and (video["status"] == "failed" or (video["status"] == "ready" and video.get("ladderComplete") is not False)):
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"the clip is still packaging after 120 s: {video}")
        time.sleep(0.25)
    if video["status"] != "ready":
        raise AssertionError(f"packaging failed: {video}")
    return video["id"]


def screen_attr(driver, name):
    return driver.execute_script(
        "const s = document.getElementById('video-screen'); return s && !s.hidden ? s.getAttribute(arguments[0]) : null;", name)


def sample(driver):
    """{actual, target, drift, state} of the screen's video, or None before it can say."""
    return driver.execute_script("const s = document.getElementById('video-screen'); return s && !s.hidden ? s.sample() : null;")


def playing_in_sync(driver, after=0.0):
    """The video moves, past `after` seconds into the clip, within CONVERGED of the reference."""
    s = sample(driver)
    moving = driver.execute_script("const v = document.querySelector('#video-screen video'); return Boolean(v && !v.paused);")
    return s and moving and s["state"] == "playing" and s["actual"] > after and abs(s["drift"]) < CONVERGED and s


def still_at(driver, position):
    """Paused at `position` (the reference's), give or take a frame."""
    s = sample(driver)
    paused = driver.execute_script("const v = document.querySelector('#video-screen video'); return Boolean(v && v.paused);")
    return s and paused and abs(s["actual"] - position) < 0.1 and abs(s["target"] - position) < 0.01


def control(driver, role):
    return driver.find_element(By.CSS_SELECTOR, f'#video-screen [data-role="{role}"]')


class VideoTests(BrowserTest):
    @classmethod
    def setUpClass(cls):
        use_clip(CLIP_SECONDS)

    def show_from_library(self, driver):
        """The console's "Show a video": the library's ready clips in a dialog; show the test clip."""
        driver.find_element(By.CSS_SELECTOR, '[data-action="show-video"]').click()
        choice = wait_for(driver, lambda d: visible(d, "dialog[open] select"), "the video picker")
        Select(choice).select_by_value(CLIP["id"])
        driver.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()

    def test_room_projector_and_viewers_follow_the_moderator(self):
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Film club"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        moderator = self.driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the moderator console")
        projector = self.driver(960, 540)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        ada = self.driver(390, 844)
        self.join_room_viewer(ada, code)

        self.show_from_library(moderator)
        screens = ((moderator, "moderator"), (projector, "projector"), (ada, "viewer"))
        for driver, who in screens:
            wait_for(driver, lambda d: screen_attr(d, "data-video") == CLIP["id"] and screen_attr(d, "data-state") == "stopped",
                     f"the clip on the {who}'s screen, stopped")
            wait_for(driver, lambda d: still_at(d, 0), f"the {who}'s video loaded at the start")
        # The projector has the sound; a viewer follows muted until they choose to listen.
        self.assertEqual(screen_attr(projector, "data-sound"), "on")
        self.assertEqual(screen_attr(ada, "data-sound"), "off")
        control(ada, "video-sound").click()
        wait_for(ada, lambda d: screen_attr(d, "data-sound") == "on", "the viewer's sound on")
        # Only whoever drives has the controls.
        self.assertTrue(visible(moderator, '#video-screen [data-role="video-play"]'))
        self.assertFalse(visible(projector, '#video-screen [data-role="video-play"]'))
        self.assertFalse(visible(ada, '#video-screen [data-role="video-play"]'))
        screenshot(moderator, "video-moderator-stopped")

        # Play: every screen moves, at the reference's moment.
        control(moderator, "video-play").click()
        for driver, who in screens:
            wait_for(driver, lambda d: playing_in_sync(d, after=1.0), f"the {who}'s video playing in sync", timeout=20)
        screenshot(projector, "video-projector-playing")
        screenshot(ada, "video-viewer-playing")

        # Pause: every screen stops where the reference says.
        control(moderator, "video-play").click()
        wait_for(moderator, lambda d: screen_attr(d, "data-state") == "paused", "the clip paused")
        position = sample(moderator)["target"]
        for driver, who in screens:
            wait_for(driver, lambda d: still_at(d, position), f"the {who}'s video paused at {position:.2f} s")

        # Seek with the scrub bar (paused, it waits there), then play on from there.
        moderator.execute_script(
            "const bar = document.querySelector('[data-role=video-seek]'); bar.value = '12.5';"
            "bar.dispatchEvent(new Event('change', {bubbles: true}));")
        for driver, who in screens:
            wait_for(driver, lambda d: still_at(d, 12.5), f"the {who}'s video at 12.5 s")
        control(moderator, "video-play").click()
        for driver, who in screens:
            wait_for(driver, lambda d: playing_in_sync(d, after=12.6), f"the {who}'s video playing on from 12.5 s", timeout=20)

        # A late joiner lands within a second of where the clip is, and then converges.
        bea = self.driver(390, 844)
        self.join_room_viewer(bea, code)
        first = wait_for(bea, lambda d: (lambda s: s if s and s["actual"] > 0 else None)(sample(d)), "the late joiner's video")
        self.assertGreater(first["target"], 12.5)
        landed = wait_for(bea, lambda d: playing_in_sync(d), "the late joiner playing in sync", timeout=20)
        self.assertGreater(landed["actual"], 12.5)

        # Off the stage: every screen shows the room again.
        control(moderator, "video-off").click()
        for driver, who in screens + ((bea, "late viewer"),):
            wait_for(driver, lambda d: not visible(d, "#video-screen"), f"the video gone from the {who}'s screen")

    def join_room_viewer(self, driver, code):
        driver.get(f"{SERVER.base}/s/{code}")
        wait_for(driver, lambda d: visible(d, "#gate-form"), "the join gate")
        driver.find_element(By.ID, "join-button").click()
        wait_for(driver, lambda d: visible(d, "#watch"), "the viewer's page")

    def test_session_console_keys_and_back_to_slides(self):
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code)

        self.show_from_library(presenter)
        for driver, who in ((presenter, "console"), (viewer, "viewer")):
            wait_for(driver, lambda d: still_at(d, 0), f"the clip loaded on the {who}")
        # Space plays (not the next slide), → skips 10 s, Space pauses.
        self.press(presenter, " ")
        for driver, who in ((presenter, "console"), (viewer, "viewer")):
            wait_for(driver, lambda d: playing_in_sync(d, after=0.5), f"the {who} playing", timeout=20)
        self.press(presenter, "\ue014")  # → (Keys.ARROW_RIGHT)
        for driver, who in ((presenter, "console"), (viewer, "viewer")):
            wait_for(driver, lambda d: playing_in_sync(d, after=10.5), f"the {who} 10 s further on", timeout=20)
        self.press(presenter, " ")
        wait_for(viewer, lambda d: screen_attr(d, "data-state") == "paused", "the viewer's clip paused")
        self.assertEqual(harness.stage_attr(presenter, "data-page"), "1", "the keys drove the video, not the slides")
        # The scrub bar shows a thumbnail of the clip where the pointer is.
        bar = control(presenter, "video-seek")
        wait_for(presenter, lambda d: d.execute_script(
            "const s = document.getElementById('video-screen'); return s && s.querySelector('.video-preview') !== null"), "the preview")
        harness.ActionChains(presenter).move_to_element_with_offset(bar, 20, 0).perform()
        wait_for(presenter, lambda d: visible(d, ".video-preview-image"), "a thumbnail over the scrub bar")
        screenshot(presenter, "video-console-paused")
        # Each screen may pick its own rendition; Auto lets the player choose by bandwidth.
        quality = wait_for(viewer, lambda d: visible(d, '#video-screen [data-role="video-quality"]'), "the viewer's quality menu")
        self.assertEqual([o.text for o in Select(quality).options], ["Auto", "480p", "360p"])
        Select(quality).select_by_visible_text("360p")
        enabled = viewer.execute_script(
            "const p = videojs.getPlayers(); const player = Object.values(p).find(Boolean);"
            "const tech = player.tech({IWillNotUseThisInPlugins: true});"
            "return (tech.vhs || tech.hls).representations().filter(r => r.enabled()).map(r => r.height);")
        self.assertEqual(enabled, [360])
        # A viewer cannot drive it.
        refused = viewer.execute_script(
            "const ws = new WebSocket(location.origin.replace('http', 'ws') + '/api/v1/sessions/' + arguments[0] + '/live');"
            "return new Promise((done) => { ws.onopen = () => ws.send(JSON.stringify({type: 'hello', role: 'viewer'}));"
            " ws.onmessage = (e) => { const m = JSON.parse(e.data);"
            "  if (m.type === 'welcome') ws.send(JSON.stringify({type: 'playback', id: 'x', action: 'play'}));"
            "  else if (m.type === 'error') { ws.close(); done(m.code); } }; });", code)
        self.assertEqual(refused, "forbidden")
        # Back to slides: the page shows again everywhere.
        control(presenter, "video-off").click()
        for driver, who in ((presenter, "console"), (viewer, "viewer")):
            wait_for(driver, lambda d: not visible(d, "#video-screen"), f"the slide back on the {who}")

    def test_library_upload_with_progress_and_refusals(self):
        """Upload from the library page: progress, then a ready card with its poster and length;
        a file that is not a video is refused with a reason, and leaves no card behind."""
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/library")
        wait_for(driver, lambda d: visible(d, f'#videos [data-video-id="{CLIP["id"]}"][data-status="ready"]'), "the test clip's card")
        with tempfile.TemporaryDirectory() as scratch:
            clip = Path(scratch) / "Short film.webm"
            subprocess.run(
                ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15:duration=3",
                 "-c:v", "libvpx-vp9", "-deadline", "realtime", "-b:v", "200k", str(clip)], check=True)
            fake = Path(scratch) / "Not a film.mp4"
            fake.write_bytes(b"this is plain text, not a video\n" * 100)
            pdf = Path(scratch) / "Slides.mp4"
            pdf.write_bytes(b"%PDF-1.4\n" + b"0" * 2000)
            field = driver.find_element(By.ID, "video-input")
            field.send_keys(str(clip))
            # Upload, then packaging: the card says which, then it is ready with its length.
            wait_for(driver, lambda d: visible(d, '#videos [data-title="Short film"]'), "the new video's card")
            card = wait_for(driver, lambda d: visible(d, '#videos .video-card[data-title="Short film"][data-status="ready"]'),
                            "the new video packaged", timeout=60)
            self.assertEqual(card.find_element(By.CSS_SELECTOR, '[data-role="duration"]').text, "0:03")
            wait_for(driver, lambda d: d.execute_script(
                "const i = document.querySelector('#videos [data-title=\"Short film\"] img'); return i && i.complete && i.naturalWidth > 0"),
                "its poster")
            screenshot(driver, "library-videos")
            # Refused: text named .mp4 (by the server, by its bytes), a PDF (before sending).
            field.send_keys(str(fake))
            wait_for(driver, lambda d: "“Not a film.mp4” was not uploaded: This video could not be read"
                     in d.find_element(By.ID, "toasts").text, "the refusal of a text file")
            field.send_keys(str(pdf))
            wait_for(driver, lambda d: "upload it as a deck" in d.find_element(By.ID, "toasts").text, "the refusal of a PDF")
        # Each refused file's card says why, until dismissed; nothing of it is in the library.
        failed = driver.find_element(By.CSS_SELECTOR, '#videos [data-title="Not a film"][data-upload-state="failed"]')
        self.assertIn("could not be read", failed.find_element(By.CSS_SELECTOR, '[data-role="error"]').text)
        failed.find_element(By.CSS_SELECTOR, '[data-action="dismiss"]').click()
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, '#videos [data-title="Not a film"]'), "the card dismissed")
        status, listed = SERVER.api("GET", "/api/v1/videos")
        self.assertNotIn("Not a film", [v["title"] for v in listed])
        # Into a folder, like a deck: the folder then lists it, and the clip it does not hold is not there.
        status, folder = SERVER.api("POST", "/api/v1/folders", {"name": "Films"})
        self.assertEqual(status, 201, folder)
        # The page draws its cards once, with everything they need, even when its folders come
        # last: a card drawn before them had no move button, and was drawn again under the pointer.
        late = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LATE_FOLDERS})
        try:
            driver.get(SERVER.base + "/library")
            wait_for(driver, lambda d: d.execute_script("return window.videosArrived"), "the videos, before the folders")
            driver.execute_script("window.releaseFolders()")
            card = wait_for(driver, lambda d: visible(d, '#videos [data-title="Short film"][data-status="ready"]'), "the card again")
            self.assertEqual(driver.execute_script("return window.filmCardsDrawn"), 1, "the card was drawn more than once")
        finally:
            driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", late)
        card.find_element(By.CSS_SELECTOR, '[data-action="move-video"]').click()
        choice = wait_for(driver, lambda d: visible(d, "dialog[open] select"), "the folder choice")
        Select(choice).select_by_visible_text("Films")
        driver.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()
        # The dialog closes once the move is answered; until then it covers the folder list.
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the folder choice closed")
        # Scrolled to the middle first: scrolled to the top (Selenium's way), the sticky header covers it.
        button = driver.find_element(By.CSS_SELECTOR, f'.folder-button[data-folder-id="{folder["id"]}"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        wait_for(driver, lambda d: [e.get_attribute("data-title") for e in d.find_elements(By.CSS_SELECTOR, "#videos .video-card")]
                 == ["Short film"], "only the moved clip in the folder")
        status, moved = SERVER.api("GET", "/api/v1/videos?folderId=" + folder["id"])
        self.assertEqual([v["title"] for v in moved], ["Short film"])
        SERVER.api("DELETE", "/api/v1/folders/" + folder["id"])

    def test_room_presenter_uploads_and_shows_a_clip(self):
        """A presenter (no account) uploads a clip into the room from their page, follows its
        packaging, and shows it once the moderator hands them control; the viewer plays it."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Show and tell"})
        code = room["code"]
        moderator = self.driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the moderator console")
        ann = self.driver(1280, 800)
        ann.get(f"{SERVER.base}/r/{code}")
        wait_for(ann, lambda d: visible(d, "#gate-form"), "the presenter's join gate")
        ann.find_element(By.ID, "presenter-name").send_keys("Ann")
        ann.find_element(By.ID, "join-button").click()
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.presenterId"), "Ann in the room")
        ann_id = ann.execute_script("return document.body.dataset.presenterId")
        viewer = self.driver(390, 844)
        self.join_room_viewer(viewer, code)

        with tempfile.TemporaryDirectory() as scratch:
            clip = Path(scratch) / "Holiday.mp4"
            subprocess.run(
                ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=15:duration=6",
                 "-f", "lavfi", "-i", "sine=frequency=660:duration=6", "-c:v", "libx264", "-preset", "ultrafast",
                 "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(clip)], check=True)
            ann.find_element(By.ID, "video-file").send_keys(str(clip))
            item = wait_for(ann, lambda d: visible(d, '#room-videos [data-title="Holiday"][data-status="ready"]'),
                            "Ann's clip packaged", timeout=60)
        show = item.find_element(By.CSS_SELECTOR, '[data-action="show-room-video"]')
        self.assertFalse(show.is_enabled(), "no Show before Ann has control")
        # Not in the moderator's library, but in their picker as the room's.
        status, library = SERVER.api("GET", "/api/v1/videos")
        self.assertNotIn("Holiday", [v["title"] for v in library])

        ann.find_element(By.ID, "request").click()
        grant = wait_for(moderator, lambda d: visible(d, f'.queue-item[data-presenter-id="{ann_id}"] [data-action="grant"]'),
                         "Ann's request on the console")
        grant.click()
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.drives") == "true", "Ann in control")
        wait_for(ann, lambda d: d.find_element(By.CSS_SELECTOR, '#room-videos [data-title="Holiday"] [data-action="show-room-video"]').is_enabled(),
                 "Show enabled for Ann")
        ann.find_element(By.CSS_SELECTOR, '#room-videos [data-title="Holiday"] [data-action="show-room-video"]').click()
        for driver, who in ((ann, "Ann"), (viewer, "viewer"), (moderator, "moderator")):
            wait_for(driver, lambda d: still_at(d, 0), f"Ann's clip loaded on the {who}'s screen")
        control(ann, "video-play").click()
        wait_for(viewer, lambda d: playing_in_sync(d, after=0.5), "the viewer playing Ann's clip", timeout=20)
        # Only Ann has the controls now; the moderator watches.
        self.assertFalse(visible(moderator, '#video-screen [data-role="video-play"]'))
        screenshot(ann, "video-room-presenter")

    def test_sync_rules(self):
        """The client's rules, run in the browser: where the clip should be (as the core computes
        it), what drift calls for, how the seek delay is learnt, which clock sample counts."""
        driver = self.driver(800, 600)
        driver.get(SERVER.base + "/healthz")
        driver.get(SERVER.base + "/login")
        result = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            Promise.all([import('/app/media/video-sync.js'), import('/app/live/clock.js')]).then(([sync, clock]) => {
              const playing = {state: 'playing', position: 10, anchor: 100, rate: 2, duration: 30};
              done({
                beforeAnchor: sync.referencePosition(playing, 99),
                after: sync.referencePosition(playing, 103),
                clamped: sync.referencePosition(playing, 200),
                paused: sync.referencePosition({...playing, state: 'paused'}, 200),
                unknownLength: sync.referencePosition({...playing, duration: null}, 200),
                waitsForAnchor: sync.shouldPlay(playing, 99.9),
                playsAfter: sync.shouldPlay(playing, 100.1),
                endedStops: sync.shouldPlay(playing, 200),
                small: sync.correction(0.01, 1),
                ahead: sync.correction(0.15, 1),
                behind: sync.correction(-0.15, 1),
                farBehind: sync.correction(-0.5, 1.5),
                capped: sync.correction(0.24, 1),
                firstDelay: sync.learnSeekDelay(null, 0.2),
                nextDelay: sync.learnSeekDelay(0.2, 0.1),
                best: clock.bestOffset([{offset: 5, rtt: 40}, {offset: 9, rtt: 12}, {offset: 1, rtt: 30}]),
              });
            }, (error) => done({error: String(error)}));
        """)
        self.assertNotIn("error", result)
        self.assertEqual(result["beforeAnchor"], 10)
        self.assertEqual(result["after"], 16)
        self.assertEqual(result["clamped"], 30)
        self.assertEqual(result["paused"], 10)
        self.assertEqual(result["unknownLength"], 210)
        self.assertFalse(result["waitsForAnchor"])
        self.assertTrue(result["playsAfter"])
        self.assertFalse(result["endedStops"])
        self.assertEqual(result["small"], {"action": "none", "rate": 1})
        self.assertEqual(result["ahead"]["action"], "nudge")
        self.assertLess(result["ahead"]["rate"], 1)
        self.assertGreater(result["behind"]["rate"], 1)
        self.assertEqual(result["farBehind"], {"action": "seek", "rate": 1.5})
        self.assertAlmostEqual(result["capped"]["rate"], 0.92)  # 0.24 s ahead over 1 s would be 24 %: capped at 8 %
        self.assertAlmostEqual(result["firstDelay"], 0.2)
        self.assertAlmostEqual(result["nextDelay"], 0.16)
        self.assertEqual(result["best"], {"offset": 9, "rtt": 12})


# Where a stage's player is on the page (#37 defect 1): the <video>'s box, the video screen's, its
# stage's (the element the screen covers), the viewport's, the page's width, and whether the
# presenter's play button is what a tap at its centre reaches.
STAGE_PLAYER_BOXES = """
const box = (e) => { if (!e) return null; const r = e.getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
const hit = (e) => { if (!e || !e.getClientRects().length) return null; const r = e.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return Boolean(at && (at === e || e.contains(at))); };
const screen = document.getElementById('video-screen');
if (!screen || screen.hidden) return null;
const video = screen.querySelector('video');
const controls = screen.querySelector('.video-controls');
const play = screen.querySelector('[data-role=video-play]');
const shown = controls && !controls.hidden && controls.getClientRects().length > 0;
// Every control shown on the screen (Back to slides, quality, sound, the player's buttons) is what
// a tap at its centre reaches: none covers another.
const covered = [...screen.querySelectorAll('button, select, input')]
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden' && !e.closest('[hidden]'))
  .filter((e) => hit(e) === false).map((e) => e.dataset.role || e.className);
return {covered, video: box(video), screen: box(screen), stage: box(screen.parentElement),
        viewport: {left: 0, top: 0, right: innerWidth, bottom: innerHeight},
        scrollWidth: document.documentElement.scrollWidth, innerWidth,
        ready: Boolean(video && video.readyState >= 1),
        controls: shown ? box(controls) : null, play: shown ? box(play) : null, playHit: shown ? hit(play) : null};
"""
PLAYER_SIZES = ((390, 844), (820, 1180), (1366, 768))


def inside(inner, outer, slack=1):
    return (inner["left"] >= outer["left"] - slack and inner["top"] >= outer["top"] - slack
            and inner["right"] <= outer["right"] + slack and inner["bottom"] <= outer["bottom"] + slack)


class StagePlayerSizeTests(BrowserTest):
    """Every stage that embeds a player shows the picture (#37 defect 1), at a phone's, a tablet's
    and a laptop's size: the <video> is taller than 0 and inside its screen, the screen inside its
    stage and the window, the presenter's controls inside the screen and on top, and the page does
    not scroll sideways."""

    @classmethod
    def setUpClass(cls):
        use_clip(SIZES_CLIP_SECONDS)

    def player_fits(self, driver, who, controls=False):
        for width, height in PLAYER_SIZES:
            harness.size_driver(driver, width, height)
            wait_for(driver, lambda d: d.execute_script("return innerWidth") == width, f"the {who} at {width}x{height}")
            where = f"the {who} at {width}x{height}"
            last = {}

            def settled(d):
                # The same boxes twice in a row: laid out for this size (transitions over).
                b = d.execute_script(STAGE_PLAYER_BOXES)
                same = b and b["ready"] and b == last.get("boxes")
                last["boxes"] = b
                return b if same else None

            boxes = wait_for(driver, settled, f"the player on {where}")
            screenshot(driver, f"video-size-{who.replace(' ', '-')}-{width}x{height}")
            self.assertGreater(boxes["video"]["height"], 40, f"the picture's height on {where}: {boxes}")
            self.assertGreater(boxes["video"]["width"], 40, f"the picture's width on {where}: {boxes}")
            self.assertTrue(inside(boxes["video"], boxes["screen"]), f"the video inside its screen on {where}: {boxes}")
            self.assertTrue(inside(boxes["screen"], boxes["stage"]), f"the screen inside its stage on {where}: {boxes}")
            self.assertTrue(inside(boxes["screen"], boxes["viewport"]), f"the screen inside the window on {where}: {boxes}")
            self.assertLessEqual(boxes["scrollWidth"], boxes["innerWidth"], f"no sideways scrolling on {where}")
            self.assertEqual(boxes["covered"], [], f"controls covered by another on {where}")
            if controls:
                self.assertIsNotNone(boxes["controls"], f"the player's controls on {where}")
                self.assertTrue(inside(boxes["controls"], boxes["screen"]), f"the controls inside the screen on {where}: {boxes}")
                self.assertTrue(boxes["playHit"], f"the play button on top on {where}: {boxes}")

    def test_session_viewer_console_and_big_screen(self):
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1366, 768)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code)
        big = self.driver(1366, 768)
        self.sign_in_with_cookie(big)  # the presenter's own browser: no gate
        big.get(f"{SERVER.base}/s/{code}/screen")
        wait_for(big, lambda d: visible(d, "#projector") and d.execute_script("return document.body.dataset.connection") == "live",
                 "the big screen")
        VideoTests.show_from_library(self, presenter)
        for driver, who in ((presenter, "console"), (viewer, "viewer"), (big, "big screen")):
            wait_for(driver, lambda d: still_at(d, 0), f"the clip loaded on the {who}")
        self.player_fits(presenter, "session console", controls=True)
        self.player_fits(viewer, "session viewer")
        self.player_fits(big, "big screen")

    def test_room_moderator_presenter_projector_and_viewer(self):
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Screen sizes"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        moderator = self.driver(1366, 768)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the moderator console")
        projector = self.driver(1366, 768)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        ann = self.driver(820, 1180)
        ann.get(f"{SERVER.base}/r/{code}")
        wait_for(ann, lambda d: visible(d, "#gate-form"), "the presenter's join gate")
        ann.find_element(By.ID, "presenter-name").send_keys("Ann")
        ann.find_element(By.ID, "join-button").click()
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.presenterId"), "Ann in the room")
        viewer = self.driver(390, 844)
        VideoTests.join_room_viewer(self, viewer, code)
        VideoTests.show_from_library(self, moderator)
        for driver, who in ((moderator, "moderator"), (projector, "projector"), (ann, "presenter"), (viewer, "viewer")):
            wait_for(driver, lambda d: still_at(d, 0), f"the clip loaded on the {who}'s screen")
        self.player_fits(moderator, "room moderator", controls=True)
        self.player_fits(projector, "room projector")
        self.player_fits(ann, "room presenter")
        self.player_fits(viewer, "room viewer")
