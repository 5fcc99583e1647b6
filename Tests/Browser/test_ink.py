#!/usr/bin/python3
"""Browser tests of ink on slides: the presenter draws in draw mode, viewers (and late joiners)
see the strokes; undo, the eraser and clear page; the export with the ink.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py ink
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
stage_attr = harness.stage_attr
screenshot = harness.screenshot

RED = "#e53935"


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def attr(driver, css, name):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name)


# How many pixels of the committed-ink canvas are close to a colour (r, g, b), and where the first is
# in page space (read back from the canvas itself).
INK_PIXELS_JS = """
const [r, g, b] = arguments[0];
const stage = document.querySelector('podium-stage');
const canvas = stage.querySelector('canvas.stage-ink:not(.stage-ink-live)');
if (!canvas || !canvas.width || !canvas.height) return {count: 0};
const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
let count = 0;
let first = null;
for (let i = 0; i < data.length; i += 4) {
  if (data[i + 3] > 200 && Math.abs(data[i] - r) < 40 && Math.abs(data[i + 1] - g) < 40 && Math.abs(data[i + 2] - b) < 40) {
    count += 1;
    if (!first) first = (i / 4);
  }
}
if (!first && first !== 0) return {count};
const [vx, vy, vw, vh] = stage.dataset.viewport.split(',').map(Number);
const px = first % canvas.width, py = Math.floor(first / canvas.width);
return {count, x: vx + px / canvas.width * vw, y: vy + py / canvas.height * vh};
"""

FETCH_HEAD_JS = """
const done = arguments[arguments.length - 1];
fetch(arguments[0], {credentials: 'same-origin'})
  .then(async (r) => { const b = new Uint8Array(await r.arrayBuffer());
    done({status: r.status, type: r.headers.get('Content-Type') || '', magic: String.fromCharCode(...b.slice(0, 5)), size: b.length}); })
  .catch((e) => done({status: 0, type: '', magic: String(e), size: 0}));
"""


def ink_pixels(driver, rgb):
    return driver.execute_script(INK_PIXELS_JS, list(rgb))


def fetch_bytes(driver, path):
    driver.set_script_timeout(60)
    return driver.execute_async_script(FETCH_HEAD_JS, path)


class InkTests(BrowserTest):
    def strokes(self, driver):
        return stage_attr(driver, "data-strokes")

    def wait_strokes(self, drivers, count, what):
        for driver in drivers:
            wait_for(driver, lambda d: self.strokes(d) == str(count), f"{what}: {count} stroke(s) shown")

    def draw(self, presenter, start, moves, hold_check=None):
        """A pointer drag on the stage: from `start` (pixels from the stage's centre) by each of `moves`."""
        stage = presenter.find_element(By.CSS_SELECTOR, "podium-stage")
        actions = ActionChains(presenter, duration=harness.DRAG_MOVE_MS)
        actions.move_to_element_with_offset(stage, *start).click_and_hold()
        for dx, dy in moves:
            actions.move_by_offset(dx, dy)
        actions.perform()
        try:
            if hold_check:
                hold_check()
        finally:
            ActionChains(presenter).release().perform()

    def tap(self, presenter, offset):
        stage = presenter.find_element(By.CSS_SELECTOR, "podium-stage")
        ActionChains(presenter, duration=harness.DRAG_MOVE_MS).move_to_element_with_offset(stage, *offset).click().perform()

    def test_ink_presenter_draws_viewers_see(self):
        """Draw mode: a red stroke reaches a viewer and a late joiner; undo, eraser, clear page; export."""
        session = SERVER.start_session(DEMO_DECK["id"], allow_download=True)
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(1024, 768)
        self.join_as_viewer(viewer, code, name="Ink")
        harness.wait_settled(viewer)
        self.assertEqual(self.strokes(viewer), "0")

        # Draw mode from the toolbar: the tool bar appears, the pen is the tool.
        toggle = presenter.find_element(By.CSS_SELECTOR, '[data-action="draw"]')
        self.assertEqual(toggle.get_attribute("aria-pressed"), "false")
        self.assertFalse(visible(presenter, "#ink-bar"), "no ink tools outside draw mode")
        toggle.click()
        wait_for(presenter, lambda d: visible(d, "#ink-bar"), "the ink tools")
        self.assertEqual(toggle.get_attribute("aria-pressed"), "true")
        self.assertEqual(attr(presenter, '#ink-bar [data-tool="pen"]', "aria-pressed"), "true")
        harness.wait_settled(presenter)
        presenter.find_element(By.CSS_SELECTOR, f'#ink-bar [data-color="{RED}"]').click()
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-width="0.008"]').click()
        self.assertEqual(attr(presenter, f'#ink-bar [data-color="{RED}"]', "aria-pressed"), "true")

        # A stroke across the left part of the slide (where a click would turn the page back).
        def seen_while_drawing():
            wait_for(viewer, lambda d: stage_attr(d, "data-inking") == "true", "the stroke on the viewer while it is drawn")
        self.draw(presenter, (-300, -120), [(25, 6)] * 12 + [(10, 30)] * 4, hold_check=seen_while_drawing)
        self.wait_synced(presenter)
        self.wait_strokes([presenter, viewer], 1, "after the first stroke")
        wait_for(viewer, lambda d: stage_attr(d, "data-inking") == "false", "the live stroke gone once committed")
        self.assertEqual(stage_attr(presenter, "data-page"), "1", "drawing does not turn the page")
        self.assertEqual(stage_attr(viewer, "data-page"), "1")
        red = wait_for(viewer, lambda d: (lambda r: r if r["count"] > 20 else None)(ink_pixels(d, (0xe5, 0x39, 0x35))),
                       "red pixels on the viewer's ink canvas")
        mine = ink_pixels(presenter, (0xe5, 0x39, 0x35))
        self.assertGreater(mine["count"], 20, "the presenter sees the stroke too")
        self.assertAlmostEqual(red["x"], mine["x"], delta=0.02, msg="the same place of the page on both")
        self.assertAlmostEqual(red["y"], mine["y"], delta=0.02, msg="the same place of the page on both")

        # In draw mode a click on the right edge (with the eraser, on no ink) does not turn the page.
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-tool="eraser"]').click()
        self.tap(presenter, (400, 150))
        self.wait_synced(presenter)
        self.assertEqual(stage_attr(presenter, "data-page"), "1", "a click in draw mode does not turn the page")
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-tool="pen"]').click()
        harness.dismiss_toasts(presenter)
        screenshot(presenter, "ink-presenter-draw-mode")
        harness.wait_settled(viewer)
        screenshot(viewer, "ink-viewer")

        # A late joiner sees the committed stroke.
        late = self.driver(390, 844)
        self.join_as_viewer(late, code, name="Late")
        self.wait_strokes([late], 1, "the late joiner")
        wait_for(late, lambda d: ink_pixels(d, (0xe5, 0x39, 0x35))["count"] > 5, "red pixels on the late joiner's canvas")
        harness.wait_settled(late)
        screenshot(late, "ink-viewer-phone-late")

        # Undo (Ctrl+Z) erases it everywhere.
        ActionChains(presenter).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        self.wait_synced(presenter)
        self.wait_strokes([presenter, viewer, late], 0, "after undo")
        self.assertEqual(ink_pixels(viewer, (0xe5, 0x39, 0x35))["count"], 0, "no red left on the viewer")

        # Two strokes (a pen and a highlighter); the eraser takes one; clear page takes the rest.
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-color="#1e88e5"]').click()
        self.draw(presenter, (-200, 100), [(30, 0)] * 10)
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-tool="highlighter"]').click()
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-color="#fdd835"]').click()
        self.draw(presenter, (-200, -40), [(30, 0)] * 10)
        self.wait_synced(presenter)
        self.wait_strokes([presenter, viewer, late], 2, "two strokes")
        harness.dismiss_toasts(presenter)
        screenshot(presenter, "ink-presenter-pen-and-highlighter")
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-tool="eraser"]').click()
        self.tap(presenter, (-50, 100))
        self.wait_synced(presenter)
        self.wait_strokes([presenter, viewer, late], 1, "after erasing the pen stroke")
        blue = ink_pixels(viewer, (0x1e, 0x88, 0xe5))
        self.assertEqual(blue["count"], 0, "the blue stroke was the one erased")
        presenter.find_element(By.CSS_SELECTOR, '#ink-bar [data-tool="pen"]').click()
        self.draw(presenter, (-200, 160), [(30, -5)] * 8)
        self.wait_synced(presenter)
        self.wait_strokes([presenter, viewer], 2, "two strokes again")
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ink-clear"]').click()
        wait_for(presenter, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the clear confirmation").click()
        self.wait_synced(presenter)
        self.wait_strokes([presenter, viewer, late], 0, "after clearing the page")

        # Keyboard paging still works in draw mode; the ink is per page.
        self.draw(presenter, (-100, 0), [(40, 10)] * 5)
        self.wait_synced(presenter)
        self.wait_strokes([viewer], 1, "a stroke on page 1")
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == "2", "the viewer on page 2")
        self.wait_strokes([presenter, viewer], 0, "page 2 has no ink")
        self.press(presenter, Keys.ARROW_LEFT)
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == "1", "the viewer back on page 1")
        self.wait_strokes([presenter, viewer], 1, "page 1 keeps its ink")

        # D leaves draw mode.
        self.press(presenter, "d")
        wait_for(presenter, lambda d: not visible(d, "#ink-bar"), "the ink tools gone")
        self.assertEqual(attr(presenter, '[data-action="draw"]', "aria-pressed"), "false")

        # The export with the ink: the presenter's link, and the viewer's (downloads allowed).
        link = presenter.find_element(By.ID, "export-ink")
        self.assertTrue(link.get_attribute("href").endswith(f"/api/v1/sessions/{code}/export.pdf"))
        result = fetch_bytes(presenter, f"/api/v1/sessions/{code}/export.pdf")
        self.assertEqual(result["status"], 200, result)
        self.assertTrue(result["type"].startswith("application/pdf"), result)
        self.assertEqual(result["magic"], "%PDF-")
        # (The viewer's bar fades out while nobody touches anything: read the link, not its looks.)
        wait_for(viewer, lambda d: d.execute_script("return !document.getElementById('download-ink').hidden"),
                 "the viewer's download with ink")
        ink_link = viewer.find_element(By.ID, "download-ink")
        self.assertTrue(ink_link.get_attribute("href").endswith(f"/api/v1/sessions/{code}/export.pdf"))
        self.assertEqual(fetch_bytes(viewer, f"/api/v1/sessions/{code}/export.pdf")["status"], 200)
        stage = viewer.find_element(By.CSS_SELECTOR, "podium-stage")
        ActionChains(viewer).move_to_element_with_offset(stage, 10, 10).perform()  # wakes the bar
        wait_for(viewer, lambda d: not d.execute_script("return document.getElementById('watch').classList.contains('is-idle')"),
                 "the viewer's bar awake")
        screenshot(viewer, "ink-viewer-download-links")

    def test_ink_no_download_link_without_permission(self):
        """Viewers of a session without downloads get no export link; zoom keeps the ink on the page."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(1024, 768)
        self.join_as_viewer(viewer, code)
        self.assertTrue(viewer.execute_script("return document.getElementById('download-ink').hidden"),
                        "no export link when downloads are off")
        self.press(presenter, "d")
        wait_for(presenter, lambda d: visible(d, "#ink-bar"), "the ink tools")
        harness.wait_settled(presenter)
        self.draw(presenter, (-60, -20), [(20, 4)] * 6)
        self.wait_synced(presenter)
        self.wait_strokes([viewer], 1, "the stroke")
        before = wait_for(viewer, lambda d: (lambda r: r if r["count"] else None)(ink_pixels(d, (0xe5, 0x39, 0x35))), "red ink")
        # Zoom in: the ink stays on the same place of the page.
        presenter.find_element(By.CSS_SELECTOR, '[data-action="zoom-in"]').click()
        rect = stage_attr(presenter, "data-viewport")
        wait_for(viewer, lambda d: stage_attr(d, "data-viewport") == rect, "the viewer zoomed")
        harness.wait_settled(viewer)
        after = wait_for(viewer, lambda d: (lambda r: r if r["count"] else None)(ink_pixels(d, (0xe5, 0x39, 0x35))),
                         "red ink when zoomed")
        self.assertGreater(after["count"], before["count"], "a zoomed stroke covers more pixels")
        self.assertAlmostEqual(after["x"], before["x"], delta=0.01)
        self.assertAlmostEqual(after["y"], before["y"], delta=0.01)
        screenshot(viewer, "ink-viewer-zoomed")

    def test_ink_tools_on_a_tablet(self):
        """On a tablet-sized console the ink tools fit on screen, each a finger-sized target."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        tablet = self.driver(820, 1180)
        self.sign_in_with_cookie(tablet)
        self.open_console(tablet, code)
        tablet.find_element(By.CSS_SELECTOR, '[data-action="draw"]').click()
        wait_for(tablet, lambda d: visible(d, "#ink-bar"), "the ink tools")
        boxes = tablet.execute_script(
            "return [...document.querySelectorAll('#ink-bar button')].map(b => { const r = b.getBoundingClientRect();"
            " return [r.left, r.right, r.width, r.height]; });")
        self.assertGreaterEqual(len(boxes), 14)
        for left, right, width, height in boxes:
            self.assertGreaterEqual(left, 0, "every tool on screen")
            self.assertLessEqual(right, 820, "every tool on screen")
            self.assertGreaterEqual(min(width, height), 36, "finger-sized targets")
        self.draw(tablet, (-120, -40), [(30, 10)] * 6)
        self.wait_synced(tablet)
        self.wait_strokes([tablet], 1, "the stroke on the tablet")
        harness.wait_settled(tablet)
        screenshot(tablet, "ink-presenter-tablet")
