#!/usr/bin/python3
"""Browser tests of presenting clips (issue #41): a clip's trim and loop.

In the library, a video card's "Trim and loop" dialog sets the start and end (typed, or taken from
its preview player) and the loop switch; the card says what was set. On a session's stage a
trimmed, looping clip plays between its start and end on every screen and, past its end, starts
again from its start, together: a viewer's <video> never leaves [start, end] and wraps.

State the tests read: ``dialog#clip-editor`` with ``[data-field=trim-start|trim-end|loop]``,
``[data-action=set-start|set-end|save-clip]``, ``video[data-role=clip-preview]``; the card's
``[data-role=clip-badge]``; the stage's ``#video-screen`` and its ``sample()`` (test_video.py).
Alone:  python3 Tests/Browser/run_browser_tests.py clip
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

import test_video  # noqa: E402  (its clip upload and stage samples)
from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

CLIP_SECONDS = 6
# The trim on stage: a lap of 1.6 s, so a viewer wraps several times within a test's waits.
START, END = 1.5, 3.1
# A screen corrects itself every 100 ms (sooner at the trim's end): a sample may be a frame
# or a seek's landing past a bound, never a second.
SLACK = 0.25


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def viewer_video(driver):
    """{time, paused, width, height, on top} of the viewer's stage <video>, or None before it is there."""
    return driver.execute_script(
        "const v = document.querySelector('#video-screen:not([hidden]) video'); if (!v) return null;"
        "const r = v.getBoundingClientRect();"
        "const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
        "return {time: v.currentTime, paused: v.paused, width: r.width, height: r.height,"
        " onTop: Boolean(hit && (hit === v || v.parentElement.contains(hit)))};")


class ClipTrimLoopTests(BrowserTest):
    @classmethod
    def setUpClass(cls):
        cls.video_id = test_video.upload_clip(CLIP_SECONDS)

    def test_library_card_sets_trim_from_the_preview_and_loop(self):
        SERVER.api("PUT", f"/api/v1/videos/{self.video_id}/clip", {"loop": False})
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/library")
        card = f'.video-card[data-video-id="{self.video_id}"]'
        wait_for(driver, lambda d: visible(d, card + ' [data-action="edit-clip"]'), "the clip's Trim and loop button")
        self.assertFalse(driver.find_elements(By.CSS_SELECTOR, card + ' [data-role="clip-badge"]'), "no badge before a trim")
        # Every action of the card is whole and on top (none overlaps the next).
        covered = driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' .deck-actions .btn')].filter((b) => {"
            " b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect();"
            " return ![[r.left + 3, r.top + r.height / 2], [r.right - 3, r.top + r.height / 2]].every(([x, y]) => b.contains(document.elementFromPoint(x, y)));"
            "}).map((b) => b.dataset.action);", card)
        self.assertEqual(covered, [], "actions of the card overlapped")
        driver.find_element(By.CSS_SELECTOR, card + ' [data-action="edit-clip"]').click()
        preview = wait_for(driver, lambda d: visible(d, 'dialog#clip-editor[open] video[data-role="clip-preview"]'), "the preview")
        wait_for(driver, lambda d: d.execute_script("return arguments[0].readyState >= 1", preview), "the preview's metadata")
        # "Set from player": the preview's current time becomes the start.
        driver.execute_script("arguments[0].currentTime = 2", preview)
        wait_for(driver, lambda d: d.execute_script("return !arguments[0].seeking && Math.abs(arguments[0].currentTime - 2) < 0.05", preview),
                 "the preview at 2 s")
        driver.find_element(By.CSS_SELECTOR, '#clip-editor [data-action="set-start"]').click()
        start = driver.find_element(By.CSS_SELECTOR, '#clip-editor [data-field="trim-start"]')
        self.assertEqual(start.get_attribute("value"), "2")
        end = driver.find_element(By.CSS_SELECTOR, '#clip-editor [data-field="trim-end"]')
        end.send_keys("4.5")
        driver.find_element(By.CSS_SELECTOR, '#clip-editor [data-field="loop"]').click()
        box = preview.rect
        self.assertGreater(box["width"], 200, f"the preview is shown large enough: {box}")
        screenshot(driver, "video-clip-editor")
        # The preview keeps to the trim: played from before it, it starts at the trim's start.
        driver.execute_script("arguments[0].currentTime = 0.2; arguments[0].muted = true; arguments[0].play()", preview)
        wait_for(driver, lambda d: d.execute_script("const v = arguments[0]; return !v.paused && v.currentTime >= 2 && v.currentTime < 4.5", preview),
                 "the preview playing inside the trim")
        driver.find_element(By.CSS_SELECTOR, '#clip-editor [data-action="save-clip"]').click()
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog#clip-editor[open]"), "the dialog closed")
        badge = wait_for(driver, lambda d: visible(d, card + ' [data-role="clip-badge"]'), "the card's trim badge")
        self.assertEqual(badge.text, "0:02–0:04 · loops")
        status, video = SERVER.api("GET", f"/api/v1/videos/{self.video_id}")
        self.assertEqual((video.get("trimStart"), video.get("trimEnd"), video.get("loop")), (2, 4.5, True), video)
        screenshot(driver, "video-clip-card")
        # An end before the start is refused with the reason, in the dialog.
        driver.find_element(By.CSS_SELECTOR, card + ' [data-action="edit-clip"]').click()
        end = wait_for(driver, lambda d: visible(d, '#clip-editor [data-field="trim-end"]'), "the dialog again")
        end.clear()
        end.send_keys("1")
        driver.find_element(By.CSS_SELECTOR, '#clip-editor [data-action="save-clip"]').click()
        error = wait_for(driver, lambda d: visible(d, '#clip-editor [data-role="clip-error"]'), "the refusal")
        self.assertIn("start before its end", error.text)

    def test_a_trim_changed_while_on_stage_applies_at_once_and_the_seek_bar_spans_it(self):
        """The lecturer trims the clip in the library while it is on stage: every screen takes the
        trim now (not at the next show), and the console's seek bar spans start..end."""
        SERVER.api("PUT", f"/api/v1/videos/{self.video_id}/clip", {})
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
        for driver, who in ((presenter, "console"), (viewer, "viewer")):
            wait_for(driver, lambda d: test_video.still_at(d, 0), f"the whole clip at 0 on the {who}")

        def bar(d):
            return d.execute_script(
                "const b = document.querySelector('#video-screen [data-role=\"video-seek\"]');"
                "const t = document.querySelector('#video-screen [data-role=\"video-time\"]');"
                "return {min: Number(b.min), max: Number(b.max), value: Number(b.value), time: t.textContent};")

        wait_for(presenter, lambda d: abs(bar(d)["max"] - CLIP_SECONDS) < 0.2, "the bar spanning the whole clip")
        self.assertEqual(bar(presenter)["min"], 0)
        status, _ = SERVER.api("PUT", f"/api/v1/videos/{self.video_id}/clip", {"trimStart": START, "trimEnd": END, "loop": True})
        self.assertEqual(status, 200)
        # Every screen moves into the new trim at once: stopped at 0, the clip waits at its start.
        for driver, who in ((presenter, "console"), (viewer, "viewer")):
            wait_for(driver, lambda d: test_video.still_at(d, START), f"the clip at the new trim's start on the {who}")
        # The bar spans the trim, its value at the trim's start; the time counts from the trim's
        # start, as PowerPoint and Keynote show a trimmed clip (0:00 of its 1.6 s).
        wait_for(presenter, lambda d: bar(d)["min"] == START and bar(d)["max"] == END, "the bar spanning the trim")
        self.assertEqual(bar(presenter), {"min": START, "max": END, "value": START, "time": "0:00 / 0:01"})
        screenshot(presenter, "video-clip-trimmed-seek-bar")
        # Playing, the viewer keeps inside the new trim and wraps (it loops now).
        self.press(presenter, " ")
        samples = []

        def wrapped(d):
            video = viewer_video(d)
            if video and not video["paused"]:
                samples.append(video["time"])
            near_end = next((i for i, t in enumerate(samples) if t > END - 0.5), None)
            return near_end is not None and any(t < START + 0.5 for t in samples[near_end:])

        wait_for(viewer, wrapped, "the viewer's clip wrapping inside the new trim", timeout=20)
        outside = [round(t, 2) for t in samples if not (START - SLACK <= t <= END + SLACK)]
        self.assertFalse(outside, f"the viewer's clip left [{START}, {END}]: {samples}")
        value = bar(presenter)["value"]
        self.assertTrue(START <= value <= END, f"the bar's value inside the trim: {value}")

    def test_a_trimmed_looping_clip_wraps_inside_its_trim_on_a_viewer(self):
        status, _ = SERVER.api("PUT", f"/api/v1/videos/{self.video_id}/clip", {"trimStart": START, "trimEnd": END, "loop": True})
        self.assertEqual(status, 200)
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
        # Put on stage stopped at the trim's start, on every screen.
        for driver, who in ((presenter, "console"), (viewer, "viewer")):
            wait_for(driver, lambda d: test_video.still_at(d, START), f"the clip at its trim's start on the {who}")
        self.press(presenter, " ")
        # The viewer plays it; every sample stays inside the trim and it passes the end back to the start.
        samples = []

        def wrapped(d):
            video = viewer_video(d)
            if video and not video["paused"]:
                samples.append(video)
            times = [s["time"] for s in samples]
            near_end = next((i for i, t in enumerate(times) if t > END - 0.5), None)
            return near_end is not None and any(t < START + 0.5 for t in times[near_end:]) and len(times) > 20

        wait_for(viewer, wrapped, "the viewer's clip wrapping from its end to its start", timeout=20)
        times = [round(s["time"], 2) for s in samples]
        outside = [t for t in times if not (START - SLACK <= t <= END + SLACK)]
        self.assertFalse(outside, f"the viewer's clip left [{START}, {END}]: {times}")
        last = samples[-1]
        self.assertGreater(last["width"], 100, f"the viewer's player has a size: {last}")
        self.assertGreater(last["height"], 50, f"the viewer's player has a size: {last}")
        self.assertTrue(last["onTop"], f"nothing covers the viewer's player: {last}")
        screenshot(viewer, "video-clip-looping-viewer")
        # A second lap too, in sync with the reference (which wrapped on its own, with no event).
        samples.clear()
        wait_for(viewer, wrapped, "a second wrap", timeout=20)
        sample = test_video.sample(viewer)
        self.assertTrue(sample and START - SLACK <= sample["target"] <= END + SLACK, sample)
        self.assertFalse([s["time"] for s in samples if not (START - SLACK <= s["time"] <= END + SLACK)])
