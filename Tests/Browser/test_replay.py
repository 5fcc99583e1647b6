#!/usr/bin/python3
"""Browser tests of the replay (issue #44): /s/{code}/replay shows a session as a viewer saw it.

A presenter records a short session (the console's Record switch with Chromium's fake
microphone; a slide change, a stroke drawn over half a second, a poll answered by a viewer with
its chart on screen, a clip played) while a viewer watches; at three moments the test keeps what the viewer showed (page, strokes, the chart's
counts, the clip's position). The replay, seeked to those instants, shows the same: the page,
the strokes, the chart and the clip within a tolerance; sizes and visibility, not only presence.
Then the controls: play at 2x moves the clock and the clip at that rate, pause stops both, the
keys and the chapters seek, a phone has no horizontal overflow, and a replay not shared is a
clear page for someone else.

State the tests read: <body data-replay data-playing data-time>, window.podiumReplay (the
ReplayClient), podium-stage[data-page][data-strokes][data-inking], #spotlight .spot-bar,
#video-screen (its sample()), .replay-mark, .replay-chapter, #time.
Alone:  python3 Tests/Browser/run_browser_tests.py replay
"""

import sys
import time

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

import test_ink  # noqa: E402  (the ink's pixels)
import test_page_health  # noqa: E402  (the layout sweep)
import test_screens  # noqa: E402  (axe-core)
import test_spotlight  # noqa: E402  (answering a poll on a viewer)
import test_video  # noqa: E402  (its clip upload)
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
stage_attr = harness.stage_attr
screenshot = harness.screenshot
spot_bars = test_spotlight.spot_bars

CLIP_SECONDS = 8
# A clip's position in the replay against the viewer's at the same instant (seconds): the
# viewer itself is within 0.1 s of the reference, the replay's seek lands within a frame or two.
VIDEO_SLACK = 0.4
RED = "#e53935"
# The voice against the replay's clock (seconds): the replay seeks it past 0.3 s of drift.
VOICE_SLACK = 0.45


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# What a page shows now: its own clock's time (the server's: the same machine), the stage's page
# and strokes, the chart on screen, the stage's clip.
SEEN_JS = """
const stage = document.querySelector('podium-stage');
const spot = document.getElementById('spotlight');
const video = document.querySelector('#video-screen:not([hidden]) video');
const box = (e) => { if (!e) return null; const r = e.getBoundingClientRect(); return {w: r.width, h: r.height}; };
const onTop = (e) => { if (!e) return false; const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return Boolean(hit && (hit === e || e.contains(hit) || e.parentElement.contains(hit))); };
return {
  now: Date.now(),
  page: stage.dataset.page, strokes: stage.dataset.strokes, inking: stage.dataset.inking,
  stage: box(stage),
  spot: spot && !spot.hidden ? spot.dataset.kind : null, spotBox: spot && !spot.hidden ? box(spot) : null,
  bars: [...document.querySelectorAll('#spotlight:not([hidden]) .spot-bar')].map((r) => [Number(r.dataset.count), Number(r.dataset.percent)]),
  video: video ? {time: video.currentTime, paused: video.paused, w: video.getBoundingClientRect().width, h: video.getBoundingClientRect().height, onTop: onTop(video)} : null,
};
"""


def seen(driver):
    return driver.execute_script(SEEN_JS)


VOICE_JS = """
const box = document.getElementById('replay-audio');
const media = box && box.querySelector('video');
return {state: box ? box.dataset.state : null, take: box ? box.dataset.take || null : null,
  time: media ? media.currentTime : null, paused: media ? media.paused : null, rate: media ? media.playbackRate : null,
  ready: media ? media.readyState : 0, replay: window.podiumReplay.time, playing: window.podiumReplay.playing};
"""


def timeline_now(driver):
    return driver.execute_script("return window.podiumReplay.timeline")


def voice(driver):
    return driver.execute_script(VOICE_JS)


def wait_take_ready(code, timeout=60):
    """The session's one take once packaged."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = SERVER.api("GET", f"/api/v1/sessions/{code}/recordings")
        takes = (body or {}).get("recordings", []) if status == 200 else []
        take = takes[0] if len(takes) == 1 else None
        if take and take["status"] in ("ready", "failed"):
            if take["status"] != "ready":
                raise AssertionError(f"the take failed: {take}")
            return take
        if time.monotonic() > deadline:
            raise AssertionError(f"the take is not ready after {timeout} s: {takes}")
        time.sleep(0.25)


class ReplayTests(BrowserTest):
    unfold = test_spotlight.SpotlightTests.unfold
    answer_choice = test_spotlight.SpotlightTests.answer_choice

    @classmethod
    def setUpClass(cls):
        cls.video_id = test_video.upload_clip(CLIP_SECONDS)

    def fake_microphone_driver(self, width, height):
        """A browser of this test's own with Chromium's fake microphone (a beep a second), allowed
        without a prompt (the pool's browsers have none); quit when the test ends."""
        driver = harness.launch_driver(width, height, extra=harness.FAKE_MEDIA)
        harness.size_driver(driver, width, height)
        self.addCleanup(self.quit_own, driver)
        return driver

    def quit_own(self, driver):
        try:
            if any(test is self for test, _ in self._outcome.result.errors + self._outcome.result.failures):
                screenshot(driver, f"FAILED-{self._testMethodName}-console")
            driver.quit()
        except WebDriverException:
            pass

    def presenter_socket(self, driver, code, navigate=True, role="presenter"):
        """A presenter's live client in `driver` (signed in): commands and ephemeral messages through it."""
        if navigate:
            driver.get(SERVER.base + "/")
        driver.set_script_timeout(harness.WAIT)
        connected = driver.execute_async_script("""
            const [code, role, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
            import('/app/live/live.js').then(({ LiveClient }) => {
              const live = new LiveClient(code, { role });
              window.presenterLive = live;
              live.addEventListener('welcome', () => done(true), { once: true });
              live.addEventListener('fatal', (e) => done(e.detail.code), { once: true });
              live.connect();
            });""", code, role)
        self.assertIs(connected, True)

        def command(message):
            answer = driver.execute_async_script("""
                const [message, done] = [arguments[0], arguments[arguments.length - 1]];
                window.presenterLive.send(message).then((ack) => done(ack), (error) => done({ error: error.code, message: error.message }));""",
                message)
            self.assertNotIn("error", answer, f"{message['type']} refused: {answer}")
            return answer
        return command

    def draw_stroke(self, driver, command, stroke_id, page):
        """A stroke drawn as the ink tools draw one: `inking` messages for half a second, then committed."""
        points = [[0.15 + i * 0.03, 0.3 + i * 0.01, 0.5] for i in range(16)]
        driver.execute_async_script("""
            const [points, page, color, done] = arguments;
            let shown = 1;
            const timer = setInterval(() => {
              window.presenterLive.sendEphemeral({ type: 'inking', page, tool: 'pen', color, width: 0.008, points: points.slice(0, shown) });
              shown += 1;
              if (shown > points.length) { clearInterval(timer); done(true); }
            }, 35);""", points, page, RED)
        command({"type": "stroke", "id": stroke_id, "stroke": {"page": page, "tool": "pen", "color": RED, "width": 0.008, "points": points}})
        driver.execute_script("window.presenterLive.sendEphemeral({ type: 'inking', done: true })")

    def open_replay(self, driver, code, width_check=True):
        driver.get(f"{SERVER.base}/s/{code}/replay")
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.replay") in ("ready", "refused"), "the replay page")
        self.assertEqual(driver.execute_script("return document.body.dataset.replay"), "ready",
                         text_of(driver, "#refused") or "the replay refused")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "a slide on the replay")

    def seek(self, driver, t):
        driver.execute_script("window.podiumReplay.seek(arguments[0])", t)

    def seek_into_take(self, driver, take_id, t):
        """Seeks the paused replay to `t` inside a take and waits for its voice to be loaded there:
        the replay's clock does not wait for the voice, so a take of a few seconds played before
        its files arrive (a busy machine) could end before the voice ever played in step."""
        self.seek(driver, t)
        wait_for(driver, lambda d: (lambda v: v["take"] == take_id and v["state"] == "paused" and v["ready"] >= 3)(voice(d)),
                 "the voice loaded at the replay's place in its take")

    def test_replay_shows_what_a_viewer_saw_at_three_instants(self):
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        # The presenter's console in a browser with Chromium's fake microphone; the test's own
        # commands go through a second presenter socket in the same page.
        presenter = self.fake_microphone_driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        command = self.presenter_socket(presenter, code, navigate=False)
        viewer = self.driver(1024, 768)
        self.join_as_viewer(viewer, code, name="Ana")
        # Record: the microphone and, with it, the `recording` switch (pointer and ink kept).
        wait_for(presenter, lambda d: visible(d, "#record-switch"), "the console's Record switch").click()
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.recording") == "on", "recording on")
        wait_for(viewer, lambda d: visible(d, "#recording-badge"), "the viewer's Recording badge")

        # Moment A: page 2 with a red stroke drawn over half a second.
        command({"type": "goto", "page": 2})
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == "2", "page 2 on the viewer")
        self.draw_stroke(presenter, command, "stroke-a", 2)
        wait_for(viewer, lambda d: stage_attr(d, "data-strokes") == "1" and stage_attr(d, "data-inking") == "false", "the stroke on the viewer")
        a = seen(viewer)
        self.assertGreater(test_ink.ink_pixels(viewer, (0xE5, 0x39, 0x35))["count"], 100, "the red stroke on the viewer")

        # Moment B: a poll answered, its chart on everyone's screen.
        # (Each moment's instant in the replay is just before the next change the presenter made:
        # until then the viewer showed what the test kept. The browser's and the server's wall
        # clocks need not agree; the events' offsets are the server's.)
        opened = command({"type": "openPoll", "poll": {"kind": "choice", "question": "Which planet is largest?", "choices": ["Mars", "Jupiter"]}})
        poll_id = opened["seq"]
        self.answer_choice(viewer, 1)
        command({"type": "spotlight", "spotlight": {"kind": "pollResults", "pollId": poll_id}})
        wait_for(viewer, lambda d: spot_bars(d) == [[0, 0, False], [1, 100, False]], "the chart on the viewer")
        b = seen(viewer)
        screenshot(viewer, "replay-live-viewer-chart")

        # Moment C: page 3 and the clip playing, two seconds in; its instant is when, by the
        # playing clip's reference (its anchor on the server's clock), the clip was where the
        # viewer showed it.
        after_b = command({"type": "spotlight", "spotlight": None})["seq"]
        command({"type": "goto", "page": 3})
        command({"type": "showVideo", "videoId": self.video_id})
        command({"type": "playback", "action": "play"})
        wait_for(viewer, lambda d: (seen(d)["video"] or {}).get("time", 0) > 2 and not seen(d)["video"]["paused"], "the clip playing on the viewer",
                 timeout=30)
        c = seen(viewer)
        c_sample = test_video.sample(viewer)
        screenshot(viewer, "replay-live-viewer-clip")
        # On the stage a while more (the replay plays it at 2x below).
        wait_for(viewer, lambda d: (seen(d)["video"] or {}).get("time", 0) > 4.5, "the clip further on", timeout=30)
        command({"type": "hideVideo"})
        # The microphone off (the take goes to be packaged), then the session ended.
        presenter.find_element(By.ID, "record-switch").click()
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.recording") == "off", "recording off")
        status, _ = SERVER.api("POST", f"/api/v1/sessions/{code}/end")
        self.assertEqual(status, 200)
        take = wait_take_ready(code)
        take_id = take["id"]
        self.assertGreater(take["duration"], 4000, take)
        self.assertEqual((a["page"], a["strokes"]), ("2", "1"))
        self.assertEqual((b["spot"], b["bars"]), ("pollResults", [[0, 0], [1, 100]]))
        self.assertEqual(c["page"], "3")

        # The replay, by the presenter: seeked to each moment, the stage shows what the viewer did.
        status, timeline = SERVER.api("GET", f"/api/v1/sessions/{code}/replay")
        self.assertEqual(status, 200, timeline)
        self.assertEqual(timeline["drawn"].get("stroke-a") is not None, True, f"the stroke's drawing recorded: {timeline['drawn']}")
        replay = self.driver(1280, 800)
        self.sign_in_with_cookie(replay)
        self.open_replay(replay, code)
        started = replay.execute_script("return window.podiumReplay.timeline.startedAt")
        at_seq = {e["event"]["seq"]: e["at"] for e in timeline["events"]}
        ta = at_seq[poll_id] - 1
        tb = at_seq[after_b] - 1
        playing = [e for e in timeline["events"] if e["event"]["type"] == "playback" and (e["event"]["playback"] or {}).get("state") == "playing"][-1]
        reference = playing["event"]["playback"]
        tc = (reference["anchor"] + (c_sample["actual"] - reference["position"]) / reference["rate"]) * 1000 - started
        hidden = next(e["at"] for e in timeline["events"] if e["event"]["type"] == "playback" and e["event"]["playback"] is None)
        self.assertTrue(playing["at"] < tc < hidden, (playing["at"], tc, hidden))
        self.assertTrue(0 < ta < tb < tc, (ta, tb, tc))

        self.seek(replay, ta)
        wait_for(replay, lambda d: stage_attr(d, "data-page") == "2" and stage_attr(d, "data-strokes") == "1", "moment A on the replay")
        shown = seen(replay)
        self.assertIsNone(shown["spot"], "nothing on screen at moment A")
        self.assertGreater(test_ink.ink_pixels(replay, (0xE5, 0x39, 0x35))["count"], 100, "the red stroke drawn on the replay")
        self.assertGreater(shown["stage"]["w"], 600)
        self.assertGreater(shown["stage"]["h"], 300)
        screenshot(replay, "replay-moment-a")

        self.seek(replay, tb)
        wait_for(replay, lambda d: seen(d)["spot"] == "pollResults", "the chart on the replay")
        shown = seen(replay)
        self.assertEqual(shown["bars"], b["bars"], "the chart's counts as the viewer saw them")
        self.assertEqual((shown["page"], shown["strokes"]), (b["page"], b["strokes"]))
        self.assertGreater(shown["spotBox"]["w"], 600, "the chart covers the stage")
        self.assertIn("Which planet is largest?", text_of(replay, "#spotlight .spot-title"))
        screenshot(replay, "replay-moment-b")

        self.seek(replay, tc)

        def clip_there(d):
            shown = seen(d)
            video = shown["video"]
            return video and video["paused"] and abs(video["time"] - c_sample["actual"]) < VIDEO_SLACK and shown
        shown = wait_for(replay, clip_there, f"the clip near {c_sample['actual']:.2f} s on the replay", timeout=30)
        self.assertIsNone(shown["spot"])
        self.assertEqual(shown["page"], "3")
        self.assertGreater(shown["video"]["w"], 400, shown["video"])
        self.assertTrue(shown["video"]["onTop"], "the clip is on top of the stage")
        screenshot(replay, "replay-moment-c")

        # Between A's stroke start and its commit, the stroke grows on the replay.
        drawn = timeline["drawn"]["stroke-a"]
        committed = next(e["at"] for e in timeline["events"] if e["event"]["type"] == "stroke")
        self.seek(replay, (drawn + committed) / 2)
        wait_for(replay, lambda d: stage_attr(d, "data-inking") == "true" and stage_attr(d, "data-strokes") == "0", "the stroke being drawn")

        # Playing at 2x from the clip's start: the clock and the clip move at twice the speed; pause stops both.
        self.seek(replay, playing["at"] + 500)
        wait_for(replay, lambda d: (seen(d)["video"] or {}).get("paused") is True, "the clip at its start")
        self.assertTrue(visible(replay, "#play"), "the Play/Pause button")
        # Play is pressed here (a person's click: it also lets the page play sound later, the
        # voice below); Pause by the page itself 300 ms after the clip starts: the clip's part of
        # the replay lasts a few seconds at 2x, which a test's round trips on a busy machine can
        # outlast (the clip then ends and hides before a click from here arrives).
        start_t = replay.execute_script("""
            const video = document.querySelector('#video-screen video');
            video.addEventListener('playing', () => setTimeout(() => {
              window.clipRateAtPause = video.playbackRate;
              window.clipPlayedBeforePause = !video.paused;
              document.getElementById('play').click();
            }, 300), { once: true });
            window.podiumReplay.setSpeed(2); return window.podiumReplay.time""")
        replay.find_element(By.ID, "play").click()
        wait_for(replay, lambda d: d.execute_script("return document.body.dataset.playing") == "false", "paused")
        self.assertIs(replay.execute_script("return window.clipPlayedBeforePause"), True, "the clip played in the replay")
        self.assertAlmostEqual(replay.execute_script("return window.clipRateAtPause"), 2, delta=0.2)
        wait_for(replay, lambda d: (seen(d)["video"] or {}).get("paused") is True, "the clip paused with the replay")
        self.assertGreater(replay.execute_script("return window.podiumReplay.time"), start_t + 200, "the replay moved")
        self.assertEqual(text_of(replay, "#speed option:checked"), "2×")

        # The voice: played with the replay inside its take, at the take's position and the
        # replay's speed; paused with it; quiet outside the take.
        replay_take = next(t for t in timeline_now(replay)["recordings"] if t["id"] == take_id)
        take_start = replay.execute_script("return window.podiumReplay.takes.find((t) => t.id === arguments[0]).start", take_id)
        self.assertIsNotNone(replay_take["playlistUrl"])
        self.seek(replay, take_start + 500)
        replay.execute_script("window.podiumReplay.setSpeed(1); window.podiumReplay.play()")

        def voice_in_step(d):
            v = voice(d)
            return (v["state"] == "playing" and v["paused"] is False and v["time"] is not None
                    and abs(v["time"] - (v["replay"] - take_start) / 1000) < VOICE_SLACK and v)
        try:
            v = wait_for(replay, voice_in_step, "the voice playing in step with the replay")
        except AssertionError as error:
            raise AssertionError(f"{error}; the voice last: {voice(replay)}, take start {take_start}") from None
        self.assertEqual(v["take"], take_id)
        self.assertAlmostEqual(v["rate"], 1, delta=0.01)
        self.assertTrue(visible(replay, "#audio-state"), "the Voice chip while the take plays")
        body = replay.find_element(By.TAG_NAME, "body")
        body.send_keys("k")
        wait_for(replay, lambda d: voice(d)["paused"] is True and voice(d)["state"] == "paused", "the voice paused with the replay")
        # At 1.5x: the voice too.
        self.seek(replay, take_start + 500)
        replay.execute_script("window.podiumReplay.setSpeed(1.5); window.podiumReplay.play()")
        v = wait_for(replay, lambda d: voice(d)["rate"] == 1.5 and voice_in_step(d), "the voice at 1.5x")
        body.send_keys("k")
        wait_for(replay, lambda d: voice(d)["paused"] is True, "the voice paused again")
        # Outside the take (before it began): quiet, even while playing.
        self.assertGreater(take_start, 400, "the take began after the session")
        self.seek(replay, 0)
        replay.execute_script("window.podiumReplay.setSpeed(0.5)")
        body.send_keys("k")
        wait_for(replay, lambda d: d.execute_script("return document.body.dataset.playing") == "true", "playing before the take")
        self.assertIn(voice(replay)["state"], ("paused", "idle"), "no voice before the take")
        self.assertNotEqual(voice(replay)["paused"], False)
        body.send_keys("k")
        wait_for(replay, lambda d: d.execute_script("return document.body.dataset.playing") == "false", "paused at last")

    def test_controls_keys_chapters_phone_and_access(self):
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        command = self.presenter_socket(presenter, code)
        command({"type": "goto", "page": 2})
        command({"type": "openPoll", "poll": {"kind": "choice", "question": "Ready?", "choices": ["Yes", "No"]}})
        command({"type": "goto", "page": 3})
        # A running session replays up to now.
        replay = presenter
        self.open_replay(replay, code)
        self.assertTrue(visible(replay, "#live-badge"), "a running session says it replays up to now")
        marks = replay.execute_script("return [...document.querySelectorAll('.replay-mark')].map((m) => m.dataset.kind)")
        self.assertEqual(marks, ["page", "poll", "page"])
        chapters = replay.find_elements(By.CSS_SELECTOR, ".replay-chapter")
        self.assertEqual(len(chapters), 3)
        self.assertIn("Ready?", chapters[1].text)
        chapters[0].click()
        wait_for(replay, lambda d: stage_attr(d, "data-page") == "2", "the first chapter's page")
        # Keys: End, Home, speed.
        body = replay.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.END)
        wait_for(replay, lambda d: stage_attr(d, "data-page") == "3", "End: the last page")
        body.send_keys(Keys.HOME)
        wait_for(replay, lambda d: stage_attr(d, "data-page") == "1" and d.execute_script("return window.podiumReplay.time") == 0, "Home: the start")
        body.send_keys(">")
        self.assertEqual(replay.execute_script("return window.podiumReplay.speed"), 1.25)
        body.send_keys("<")
        body.send_keys("<")
        self.assertEqual(replay.execute_script("return window.podiumReplay.speed"), 0.75)
        body.send_keys("k")
        wait_for(replay, lambda d: d.execute_script("return document.body.dataset.playing") == "true", "K plays")
        body.send_keys("k")
        wait_for(replay, lambda d: d.execute_script("return document.body.dataset.playing") == "false", "K pauses")
        # A click on the timeline seeks there.
        timeline = replay.find_element(By.ID, "timeline")
        harness.ActionChains(replay).move_to_element_with_offset(timeline, timeline.rect["width"] // 2 - 2, 0).click().perform()
        duration = replay.execute_script("return window.podiumReplay.duration")
        wait_for(replay, lambda d: abs(d.execute_script("return window.podiumReplay.time") - duration) < duration * 0.05 + 50, "a click at the end")
        # The shortcuts list names the replay's keys.
        body.send_keys("?")
        wait_for(replay, lambda d: visible(d, "dialog.shortcuts-dialog"), "the shortcuts")
        keys = replay.execute_script("return [...document.querySelectorAll('.shortcut-row')].map((r) => r.dataset.keys)")
        for expected in ("Space K", "ArrowLeft", "ArrowRight", "J", "L", "Home", "End", "<", ">"):
            self.assertIn(expected, keys)
        screenshot(replay, "replay-shortcuts")

        # A phone: nothing wider than the screen, the stage and the controls shown.
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        self.open_replay(phone, code)
        overflow = phone.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        self.assertLessEqual(overflow, 0, "no horizontal overflow on a phone")
        stage = seen(phone)["stage"]
        self.assertGreater(stage["w"], 380)
        self.assertGreater(stage["h"], 200)
        self.assertTrue(visible(phone, "#play"))
        screenshot(phone, "replay-phone-390")
        findings = test_page_health.page_findings(phone) + test_screens.axe_findings(phone)
        # A projector, full size.
        projector = self.driver(1920, 1080)
        self.sign_in_with_cookie(projector)
        self.open_replay(projector, code)
        stage = seen(projector)["stage"]
        self.assertGreater(stage["w"], 1500)
        self.assertGreater(stage["h"], 850)
        screenshot(projector, "replay-projector-1920")
        findings += test_page_health.page_findings(projector) + test_screens.axe_findings(projector)
        self.assertEqual(findings, [], "\n".join(findings))

        # Someone else, signed out: not shared.
        stranger = self.driver(1024, 768)
        stranger.get(f"{SERVER.base}/s/{code}/replay")
        wait_for(stranger, lambda d: d.execute_script("return document.body.dataset.replay") == "refused", "the refusal")
        self.assertTrue(visible(stranger, '[data-role="replay-refused"]'))
        self.assertIn("not shared", text_of(stranger, "#refused-title"))
        self.assertTrue(visible(stranger, "#sign-in"), "a way to sign in")
        screenshot(stranger, "replay-not-shared")
        # The presenter's report and history link to it.
        presenter.get(f"{SERVER.base}/report.html?code={code}")
        link = wait_for(presenter, lambda d: visible(d, 'a[data-role="replay"]'), "the report's Replay link")
        self.assertTrue(link.get_attribute("href").endswith(f"/s/{code}/replay"))
        presenter.get(SERVER.base + "/library")
        wait_for(presenter, lambda d: visible(d, "#past-button"), "the library").click()
        row = f'.past-row[data-code="{code}"] a[data-role="replay"]'
        link = wait_for(presenter, lambda d: visible(d, row), "the history's Replay link")
        self.assertTrue(link.get_attribute("href").endswith(f"/s/{code}/replay"))

    def test_a_rooms_replay(self):
        """/r/{code}/replay: the deck the moderator put on the stage, its pages and ink, as the projector showed them."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Replay room"})
        self.assertEqual(status, 201)
        code = room["code"]
        moderator = self.driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        command = self.presenter_socket(moderator, code, role="moderator")
        status, added = SERVER.api("POST", f"/api/v1/sessions/{code}/decks", {"deckId": DEMO_DECK["id"]})
        self.assertEqual(status, 201, added)
        command({"type": "showDeck", "deckId": DEMO_DECK["id"], "page": 2})
        command({"type": "goto", "page": 3})
        command({"type": "stroke", "stroke": {"page": 3, "tool": "pen", "color": RED, "width": 0.008,
                                              "points": [[0.2, 0.2, 0.5], [0.6, 0.5, 0.5]]}})
        moderator.get(f"{SERVER.base}/r/{code}/replay")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.replay") == "ready", "the room's replay")
        body = moderator.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.END)
        wait_for(moderator, lambda d: stage_attr(d, "data-page") == "3" and stage_attr(d, "data-strokes") == "1"
                 and stage_attr(d, "data-deck") == DEMO_DECK["id"], "the room's deck, page and stroke at the end")
        wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the slide")
        self.assertGreater(test_ink.ink_pixels(moderator, (0xE5, 0x39, 0x35))["count"], 50)
        # Where the deck went on the stage (at page 2; the turn to 3 followed within a second and a
        # half, so the chapters have it as one).
        shown = moderator.execute_script("return window.podiumReplay.timeline.events.find((e) => e.event.type === 'deckShown').at")
        self.seek(moderator, shown)
        wait_for(moderator, lambda d: stage_attr(d, "data-page") == "2" and stage_attr(d, "data-strokes") == "0", "the deck's first page")
        screenshot(moderator, "replay-room")

    def test_a_replay_shared_with_the_link_asks_for_the_passcode(self):
        """Shared with the link (`replay: link`), a session with a passcode: the audience types it
        once (a wrong one is said so), then watches; the pointer moves as it did, and the
        presenter's recorded voice plays (its files ask for the passcode too)."""
        code = SERVER.start_session(DEMO_DECK["id"], passcode="4711")["code"]
        status, body = SERVER.api("PATCH", f"/api/v1/sessions/{code}", {"replay": "link"})
        self.assertEqual(status, 200, body)
        # The console records its microphone (Chromium's fake one: a beep a second).
        presenter = self.fake_microphone_driver(1024, 768)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        command = self.presenter_socket(presenter, code, navigate=False)
        wait_for(presenter, lambda d: visible(d, "#record-switch"), "the console's Record switch").click()
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.recording") == "on", "recording on")
        command({"type": "goto", "page": 2})
        presenter.execute_script("window.presenterLive.sendEphemeral({ type: 'pointer', x: 0.25, y: 0.75 })")
        wait_for(presenter, lambda d: text_of(d, "#on-air .on-air-time") in ("0:03", "0:04", "0:05"), "three seconds recorded")
        # Off: the pointer's side log is written at once, the take goes to be packaged.
        presenter.find_element(By.ID, "record-switch").click()
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.recording") == "off", "recording off")
        take = wait_take_ready(code)
        self.assertTrue(take["playlistUrl"].endswith("/master.m3u8"), take)
        # Without the passcode the take's files are refused, as the timeline is.
        status, refused = SERVER.request("GET", take["playlistUrl"])
        self.assertEqual((status, (refused or {}).get("error", {}).get("code")), (401, "passcode_required"))

        audience = self.driver(1024, 768)
        audience.get(f"{SERVER.base}/s/{code}/replay")
        field = wait_for(audience, lambda d: visible(d, "#passcode-form #passcode"), "the passcode form")
        self.assertEqual(text_of(audience, "#refused-title"), "This replay needs the passcode")
        field.send_keys("0000\n")
        wait_for(audience, lambda d: "not right" in (text_of(d, "#refused-text") or ""), "a wrong passcode said")
        field = audience.find_element(By.ID, "passcode")
        field.clear()
        field.send_keys("4711\n")
        wait_for(audience, lambda d: d.execute_script("return document.body.dataset.replay") == "ready", "the replay after the passcode")
        body = audience.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.END)
        wait_for(audience, lambda d: stage_attr(d, "data-page") == "2" and stage_attr(d, "data-pointer") == "0.25,0.75",
                 "page 2 with the pointer where the presenter left it")
        screenshot(audience, "replay-shared-with-link")

        # The voice: played in step inside its take (every request for its files with the passcode).
        take_start = audience.execute_script("return window.podiumReplay.takes.find((t) => t.id === arguments[0]).start", take["id"])
        self.seek_into_take(audience, take["id"], take_start + 300)
        audience.execute_script("window.podiumReplay.setSpeed(1); window.podiumReplay.play()")

        def voice_in_step(d):
            v = voice(d)
            return (v["state"] == "playing" and v["paused"] is False and v["time"] is not None and v["time"] > 0.5
                    and abs(v["time"] - (v["replay"] - take_start) / 1000) < VOICE_SLACK and v)
        v = wait_for(audience, voice_in_step, "the voice playing in step on the replay shared by link")
        self.assertEqual(v["take"], take["id"])
        body.send_keys("k")
        wait_for(audience, lambda d: voice(d)["paused"] is True, "the voice paused with the replay")
