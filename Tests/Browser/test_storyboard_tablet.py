#!/usr/bin/python3
"""Browser tests of the storyboard artist's tablet (issue #38), at tablet size (820 × 1180): the
canvas is the page (panels fold away and stay folded, full-screen drawing, the paper's share of the
screen measured), palm rejection (a finger pans once a pen was seen; two- and three-finger taps
undo and redo), tools named on a touch screen with a brush preview, a straight stylus line keeps
its pressure as the server stores it, a page put in the back/forward cache lets go of its place.

Runs inside the suite of ``run_browser_tests.py``. Alone:
python3 Tests/Browser/run_browser_tests.py storyboard_tablet
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions import interaction  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.actions.pointer_input import PointerInput  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def create_storyboard(title, aspect="16:9"):
    status, body = SERVER.api("POST", "/api/v1/storyboards", {"title": title, "aspectRatio": aspect})
    if status != 201:
        raise AssertionError(f"POST /api/v1/storyboards answered {status}: {body}")
    return body


def content(storyboard_id):
    status, body = SERVER.api("GET", f"/api/v1/storyboards/{storyboard_id}")
    if status != 200:
        raise AssertionError(f"GET /api/v1/storyboards/{storyboard_id} answered {status}: {body}")
    return body["content"]


def shots_of(storyboard):
    return [shot for scene in storyboard["scenes"] for shot in scene["shots"]]


def strokes_of(shot):
    return [stroke for layer in shot["layers"] for stroke in layer["strokes"]]


def stored_strokes(storyboard_id):
    return strokes_of(shots_of(content(storyboard_id))[0])


def stage_data(driver, name):
    return driver.execute_script("const s = document.getElementById('stage'); return s ? s.dataset[arguments[0]] || null : null;", name)


# The paper (the shot's box on the canvas) against the viewport: [width share, area share].
PAPER_JS = """
const stage = document.getElementById('stage');
if (!stage.dataset.shotRect) return null;
const [, , w, h] = stage.dataset.shotRect.split(',').map(Number);
return [w / innerWidth, (w * h) / (innerWidth * innerHeight)];
"""

# Pointer events on the canvas, as a pen, a finger or a mouse sends them: [type, pointerId,
# pointerType, x, y (shot fractions), pressure]; 'wait' entries pause (ms) between them.
POINTERS_JS = """
const [events, done] = [arguments[0], arguments[arguments.length - 1]];
const canvas = document.getElementById('sketch-canvas');
const stage = document.getElementById('stage');
const [L, T, W, H] = stage.dataset.shotRect.split(',').map(Number);
const r = canvas.getBoundingClientRect();
const down = new Set();
(async () => {
  for (const [type, id, kind, fx, fy, pressure] of events) {
    if (type === 'wait') { await new Promise((go) => setTimeout(go, id)); continue; }
    if (type === 'pointerdown') down.add(id);
    if (type === 'pointerup') down.delete(id);
    canvas.dispatchEvent(new PointerEvent(type, {
      pointerId: id, pointerType: kind, isPrimary: down.size <= 1, clientX: r.left + L + fx * W, clientY: r.top + T + fy * H,
      pressure: type === 'pointerup' ? 0 : pressure, button: type === 'pointermove' ? -1 : 0, buttons: type === 'pointerup' ? 0 : 1,
      width: kind === 'touch' ? 20 : 1, height: kind === 'touch' ? 20 : 1, bubbles: true, cancelable: true, composed: true,
    }));
    await new Promise((go) => requestAnimationFrame(go));
  }
  done(true);
})();
"""


def line(pointer_id, kind, start, end, steps=8, pressure=0.5):
    """A drag from start to end (shot fractions) by one pointer."""
    (x0, y0), (x1, y1) = start, end
    events = [["pointerdown", pointer_id, kind, x0, y0, pressure]]
    for i in range(1, steps + 1):
        f = i / steps
        events.append(["pointermove", pointer_id, kind, x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, pressure])
    events.append(["pointerup", pointer_id, kind, x1, y1, 0])
    return events


def tap(ids, at=(0.5, 0.5)):
    """Fingers put down together and lifted at once: a tap."""
    x, y = at
    events = [["pointerdown", i, "touch", x + 0.05 * n, y, 0.5] for n, i in enumerate(ids)]
    events += [["pointerup", i, "touch", x + 0.05 * n, y, 0] for n, i in enumerate(ids)]
    return events


class StoryboardTabletTests(BrowserTest):
    def open_sketch(self, driver, storyboard_id, shot_id):
        driver.get(f"{SERVER.base}/sketch.html?id={storyboard_id}&shot={shot_id}")
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the editor to connect")
        wait_for(driver, lambda d: stage_data(d, "shotRect") and stage_data(d, "shot") == shot_id, "the shot on the canvas")

    def paper(self, driver):
        return driver.execute_script(PAPER_JS)

    def pointers(self, driver, events):
        driver.execute_async_script(POINTERS_JS, events)

    def wait_saved(self, driver, what):
        wait_for(driver, lambda d: d.execute_script(
            "const s = document.getElementById('save-state'); return s && s.dataset.state") == "saved", f"{what}: saved")

    def test_storyboard_tablet_1_canvas_is_the_page(self):
        """At 820 × 1180 the paper takes most of the screen's width (panels folded), folding is
        remembered across a reload, full-screen drawing hides the bars; landscape and phone too."""
        board = create_storyboard("Tablet canvas")
        shot = shots_of(board["content"])[0]["id"]
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        self.open_sketch(ada, board["id"], shot)
        # A tablet opens with the side panel folded (the tools dock under the canvas, upright).
        self.assertEqual(ada.execute_script("return document.body.dataset.panel"), "folded")
        self.assertFalse(ada.find_element(By.ID, "panel").is_displayed())
        width, area = self.paper(ada)
        self.assertGreaterEqual(width, 0.85, f"the paper is {width:.0%} of the screen's width")
        self.assertGreaterEqual(area, 0.3, f"the paper is {area:.0%} of the screen")
        tools = ada.find_element(By.ID, "tools").rect
        stage = ada.find_element(By.ID, "stage").rect
        self.assertGreaterEqual(tools["y"], stage["y"] + stage["height"] - 1, "the tools dock under the canvas")
        screenshot(ada, "storyboard-tablet-portrait")
        # Fold the tools too: remembered across a reload.
        ada.find_element(By.ID, "rail-toggle").click()
        wait_for(ada, lambda d: not d.find_element(By.ID, "tools").is_displayed(), "the tools folded")
        self.assertGreaterEqual(self.paper(ada)[1], area * 0.99, "the paper keeps its size or grows")
        ada.refresh()
        wait_for(ada, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the editor again")
        wait_for(ada, lambda d: d.execute_script("return document.body.dataset.rail") == "folded", "the tools still folded")
        self.assertFalse(ada.find_element(By.ID, "tools").is_displayed())
        self.assertGreaterEqual(self.paper(ada)[0], 0.9)
        # The panel opens over the canvas (the paper keeps its size) and is remembered open.
        ada.find_element(By.ID, "rail-toggle").click()
        ada.find_element(By.ID, "panel-toggle").click()
        wait_for(ada, lambda d: visible(d, "#panel"), "the panel open")
        self.assertGreaterEqual(self.paper(ada)[0], 0.85)
        screenshot(ada, "storyboard-tablet-portrait-panel")
        ada.refresh()
        wait_for(ada, lambda d: visible(d, "#panel"), "the panel still open after a reload")
        ada.find_element(By.ID, "panel-toggle").click()
        wait_for(ada, lambda d: not d.find_element(By.ID, "panel").is_displayed(), "the panel folded")
        # Full-screen drawing: no bar; a button to leave it; the paper grows.
        ada.find_element(By.ID, "drawing-mode").click()
        wait_for(ada, lambda d: not d.find_element(By.CSS_SELECTOR, ".sk-bar").is_displayed(), "the bar hidden")
        leave = wait_for(ada, lambda d: visible(d, "#leave-drawing-mode"), "Leave full screen")
        self.assertGreaterEqual(self.paper(ada)[1], area)
        screenshot(ada, "storyboard-tablet-drawing-mode")
        leave.click()
        wait_for(ada, lambda d: d.find_element(By.CSS_SELECTOR, ".sk-bar").is_displayed(), "the bar back")
        # Landscape: the paper fills the height it has.
        harness.size_driver(ada, 1180, 820)
        wait_for(ada, lambda d: (self.paper(d) or [0, 0])[1] >= 0.45, "a landscape paper of half the screen or more")
        screenshot(ada, "storyboard-tablet-landscape")
        # A touch screen (a coarse pointer) in landscape: the rail names its tools too.
        ada.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        try:
            wait_for(ada, lambda d: d.execute_script("return matchMedia('(pointer: coarse)').matches"), "a touch screen")
            wait_for(ada, lambda d: visible(d, "#tools [data-tool=lasso] .sk-label"), "the tools named on a touch screen")
            width, area = self.paper(ada)
            self.assertGreaterEqual(area, 0.45, f"the paper is {area:.0%} of a landscape touch screen")
            screenshot(ada, "storyboard-tablet-landscape-touch")
        finally:
            ada.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        self.open_sketch(phone, board["id"], shot)
        self.assertGreaterEqual(self.paper(phone)[0], 0.9)
        screenshot(phone, "storyboard-tablet-phone")

    def test_storyboard_tablet_2_palm_rejection(self):
        """Once a pen was seen, a finger pans instead of drawing and a palm does not break the pen's
        stroke; two fingers tapped undo, three redo; a mouse still draws."""
        board = create_storyboard("Palm rejection")
        shot = shots_of(board["content"])[0]["id"]
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        self.open_sketch(ada, board["id"], shot)
        self.pointers(ada, line(11, "pen", (0.2, 0.3), (0.6, 0.3), pressure=0.6))
        wait_for(ada, lambda d: stage_data(d, "strokes") == "1", "the pen's stroke")
        view = stage_data(ada, "view")
        self.pointers(ada, line(12, "touch", (0.3, 0.6), (0.5, 0.7)))
        wait_for(ada, lambda d: stage_data(d, "view") != view, "a finger pans the view")
        self.assertEqual(stage_data(ada, "strokes"), "1", "a finger does not draw after a pen")
        self.assertEqual(stage_data(ada, "pen"), "seen")
        # A palm lands and lifts while the pen draws: the pen's stroke goes on and is kept.
        events = line(13, "pen", (0.2, 0.5), (0.7, 0.5), steps=10, pressure=0.5)
        events[4:4] = [["pointerdown", 14, "touch", 0.8, 0.8, 0.5]]
        events[8:8] = [["pointerup", 14, "touch", 0.8, 0.8, 0]]
        self.pointers(ada, events)
        wait_for(ada, lambda d: stage_data(d, "strokes") == "2", "the pen's stroke beside a palm")
        self.wait_saved(ada, "two pen strokes")
        self.assertEqual(len(stored_strokes(board["id"])), 2)
        screenshot(ada, "storyboard-tablet-palm")
        # Two fingers tapped: undo (the last stroke); three: redo.
        self.pointers(ada, tap([21, 22]))
        wait_for(ada, lambda d: stage_data(d, "strokes") == "1", "two-finger tap undoes")
        self.wait_saved(ada, "undone")
        self.assertEqual(len(stored_strokes(board["id"])), 1)
        self.pointers(ada, tap([31, 32, 33]))
        wait_for(ada, lambda d: stage_data(d, "strokes") == "2", "three-finger tap redoes")
        self.wait_saved(ada, "redone")
        strokes = stored_strokes(board["id"])
        self.assertEqual(len(strokes), 2, "only the pen's strokes are stored")
        # Two fingers resting as the pen comes down, lifted while it draws: the pen draws, no undo.
        events = [["pointerdown", 41, "touch", 0.85, 0.2, 0.5], ["pointerdown", 42, "touch", 0.9, 0.2, 0.5]]
        events += line(43, "pen", (0.2, 0.7), (0.6, 0.7), steps=6, pressure=0.5)
        events[4:4] = [["pointerup", 41, "touch", 0.85, 0.2, 0], ["pointerup", 42, "touch", 0.9, 0.2, 0]]
        self.pointers(ada, events)
        wait_for(ada, lambda d: stage_data(d, "strokes") == "3", "the pen's stroke, and no undo")
        # A mouse still draws.
        canvas = ada.find_element(By.ID, "sketch-canvas")
        ActionChains(ada, duration=30).move_to_element_with_offset(canvas, -100, 150).click_and_hold() \
            .move_by_offset(60, 10).move_by_offset(60, 10).release().perform()
        wait_for(ada, lambda d: stage_data(d, "strokes") == "4", "a mouse draws")
        self.wait_saved(ada, "four strokes")
        self.assertEqual(len(stored_strokes(board["id"])), 4)

    def test_storyboard_tablet_3_tools_named_and_brush_preview(self):
        """On a tablet every tool shows its name under its icon (no hover needed); a long press on a
        swatch says its name; changing the width shows the brush at its size and opacity."""
        board = create_storyboard("Named tools")
        shot = shots_of(board["content"])[0]["id"]
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        self.open_sketch(ada, board["id"], shot)
        labels = ada.execute_script("""
          return [...document.querySelectorAll('#tools .sk-tool')].map((b) => {
            const l = b.querySelector('.sk-label'); const r = l && l.getBoundingClientRect(); const br = b.getBoundingClientRect();
            return { text: l ? l.textContent : '', w: r ? r.width : 0, h: br.height, inside: !!r && r.left >= br.left - 1 && r.right <= br.right + 1,
                     shown: !!l && getComputedStyle(l).display !== 'none' && r.width > 0 };
          });""")
        self.assertGreaterEqual(len(labels), 11)
        for label in labels:
            self.assertTrue(label["shown"] and label["text"] and label["inside"], label)
            self.assertGreaterEqual(label["h"], 44, "a finger's target")
        # The tools' names are what they are.
        self.assertIn("Pen", [label["text"] for label in labels])
        # Long press on a swatch: its name over the canvas.
        ada.execute_script("""
          const s = document.querySelector('#tools .sk-swatch[data-color="#e53935"]');
          const r = s.getBoundingClientRect();
          s.dispatchEvent(new PointerEvent('pointerdown', { pointerId: 5, pointerType: 'touch', clientX: r.left + 5, clientY: r.top + 5, bubbles: true }));""")
        tip = wait_for(ada, lambda d: visible(d, "#tool-tip"), "the long press's label")
        self.assertIn("#e53935", tip.text)
        ada.execute_script("document.querySelector('#tools .sk-swatch[data-color=\"#e53935\"]').dispatchEvent(new PointerEvent('pointerup', { pointerId: 5, pointerType: 'touch', bubbles: true }))")
        # Thicker: the brush preview, at the width it will draw on this canvas.
        ada.find_element(By.CSS_SELECTOR, "#tools [data-tool=marker]").click()
        ada.find_element(By.CSS_SELECTOR, "#tools [data-action=thicker]").click()
        preview = wait_for(ada, lambda d: visible(d, "#brush-preview"), "the brush preview")
        size, opacity, expected = ada.execute_script("""
          const p = document.getElementById('brush-preview');
          const w = Number(document.getElementById('width-preview').dataset.width);
          const [, , W] = document.getElementById('stage').dataset.shotRect.split(',').map(Number);
          return [Number(p.dataset.size), Number(p.dataset.opacity), w * W];""")
        self.assertAlmostEqual(size, expected, delta=1.5)
        self.assertAlmostEqual(opacity, 0.4, delta=0.01)
        self.assertIn("Marker", preview.text)
        screenshot(ada, "storyboard-tablet-brush-preview")
        # The zoom level is the button that puts the view back (no second full-screen-like icon).
        ada.find_element(By.CSS_SELECTOR, "#view-tools [data-action=zoom-in]").click()
        wait_for(ada, lambda d: d.find_element(By.ID, "zoom-level").text == "125%", "zoomed in")
        ada.find_element(By.ID, "zoom-level").click()
        wait_for(ada, lambda d: d.find_element(By.ID, "zoom-level").text == "100%", "the view reset by its level")
        self.assertIn("100%", ada.find_element(By.ID, "zoom-level").get_attribute("aria-label"))
        wait_for(ada, lambda d: not d.find_element(By.ID, "brush-preview").is_displayed(), "the preview goes")

    def test_storyboard_tablet_4_straight_line_keeps_its_pressure(self):
        """A straight stylus line drawn light, hard, light is stored with its hard middle."""
        board = create_storyboard("Pressure")
        shot = shots_of(board["content"])[0]["id"]
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        self.open_sketch(ada, board["id"], shot)
        canvas = ada.find_element(By.ID, "sketch-canvas")
        left, top, width, height = (float(v) for v in stage_data(ada, "shotRect").split(","))
        rect = ada.execute_script("const r = document.getElementById('sketch-canvas').getBoundingClientRect(); return [r.width, r.height];")
        steps = 20
        spots = [(round(left + (0.2 + 0.6 * i / steps) * width - rect[0] / 2), round(top + 0.5 * height - rect[1] / 2)) for i in range(steps + 1)]
        pressures = [round(0.2 + 0.7 * (1 - abs(2 * i / steps - 1)), 3) for i in range(steps + 1)]
        builder = ActionBuilder(ada, mouse=PointerInput(interaction.POINTER_PEN, "pen"), duration=30)
        builder.pointer_action.move_to(canvas, *spots[0]).pointer_down(pressure=pressures[0])
        for (x, y), p in zip(spots[1:], pressures[1:]):
            builder.pointer_action.move_to(canvas, x, y, pressure=p)
        builder.pointer_action.pointer_up()
        builder.perform()
        wait_for(ada, lambda d: stage_data(d, "strokes") == "1", "the line drawn")
        self.wait_saved(ada, "the line")
        [stroke] = stored_strokes(board["id"])
        points = stroke["points"]
        self.assertGreaterEqual(len(points), 3, points)
        self.assertGreaterEqual(max(p[2] for p in points), 0.85, points)
        self.assertLessEqual(points[0][2], 0.3, points)
        # Straight: every point on the line.
        self.assertLess(max(abs(p[1] - points[0][1]) for p in points), 0.002, points)

    def test_storyboard_tablet_5_back_forward_cache_lets_go(self):
        """A page put in the back/forward cache (pagehide) closes its socket, so the other editor's
        list drops the person; back again (pageshow) it reconnects."""
        board = create_storyboard("Back and forth")
        shot = shots_of(board["content"])[0]["id"]
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        self.open_sketch(ada, board["id"], shot)
        bob = self.driver(1280, 800)
        self.sign_in_with_cookie(bob)
        self.open_sketch(bob, board["id"], shot)
        count = "return document.querySelectorAll('#editors .sb-editor-dot').length"
        wait_for(bob, lambda d: d.execute_script(count) == 2, "two people editing")
        ada.execute_script("window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }))")
        wait_for(bob, lambda d: d.execute_script(count) == 1, "Ada gone from Bob's list once her page is hidden")
        ada.execute_script("window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))")
        wait_for(bob, lambda d: d.execute_script(count) == 2, "Ada back when her page shows again")
        wait_for(ada, lambda d: d.execute_script(
            "const s = document.getElementById('save-state'); return s && s.dataset.state") == "saved", "Ada live again")

    def test_storyboard_tablet_6_library_shows_the_boards(self):
        """The library at tablet size: Storyboards is one tap away (and remembered), New storyboard
        is in the first screen, and a card shows the storyboard's first shot as drawn."""
        board = create_storyboard("Drawn board")
        shot = shots_of(board["content"])[0]["id"]
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        self.open_sketch(ada, board["id"], shot)
        self.pointers(ada, line(3, "pen", (0.2, 0.2), (0.8, 0.8), pressure=0.8))
        wait_for(ada, lambda d: stage_data(d, "strokes") == "1", "a stroke")
        self.wait_saved(ada, "the stroke")
        ada.get(SERVER.base + "/library")
        # Everything shown: New storyboard is still in the first screen (beside the kinds).
        quick = wait_for(ada, lambda d: visible(d, "#new-storyboard-quick"), "New storyboard in the first screen")
        self.assertLessEqual(quick.rect["y"] + quick.rect["height"], 1180)
        # One "New storyboard" on the page at a time (the section's own shows when Storyboards is chosen).
        count_new = "return [...document.querySelectorAll('[data-action=new-storyboard]')].filter(b => b.offsetParent !== null).length"
        self.assertEqual(ada.execute_script(count_new), 1)
        screenshot(ada, "storyboard-tablet-library-everything")
        chip = wait_for(ada, lambda d: visible(d, "#library-kinds [data-kind=storyboards]"), "the Storyboards filter")
        chip.click()
        wait_for(ada, lambda d: not d.find_element(By.ID, "decks").is_displayed(), "the decks out of the way")
        card = f"#storyboards li.storyboard-card[data-storyboard-id='{board['id']}']"
        image = wait_for(ada, lambda d: d.execute_script(
            "const i = document.querySelector(arguments[0] + ' img.storyboard-first-shot'); return i && i.complete && i.naturalWidth > 0 ? i : null;",
            card), "the first shot on the card")
        self.assertEqual(image.get_attribute("data-shot"), shot)
        # The picture is the drawing: dark pixels on white.
        dark = ada.execute_script("""
          const i = arguments[0]; const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight;
          const g = c.getContext('2d'); g.drawImage(i, 0, 0); const d = g.getImageData(0, 0, c.width, c.height).data;
          let n = 0; for (let k = 0; k < d.length; k += 4) if (d[k] < 80 && d[k + 3] > 200) n += 1; return n;""", image)
        self.assertGreater(dark, 50)
        new = ada.find_element(By.ID, "new-storyboard-button").rect
        self.assertEqual(ada.execute_script(count_new), 1)
        self.assertEqual(ada.execute_script("return scrollY"), 0)
        self.assertLessEqual(new["y"] + new["height"], 1180, "New storyboard in the first screen")
        screenshot(ada, "storyboard-tablet-library")
        ada.refresh()
        wait_for(ada, lambda d: d.find_elements(By.CSS_SELECTOR, card), "the card again")
        self.assertEqual(ada.find_element(By.CSS_SELECTOR, "#library-kinds [data-kind=storyboards]").get_attribute("aria-pressed"), "true")
        self.assertFalse(ada.find_element(By.ID, "decks").is_displayed())
        ada.find_element(By.CSS_SELECTOR, "#library-kinds [data-kind=all]").click()
        wait_for(ada, lambda d: d.find_element(By.ID, "decks").is_displayed(), "everything again")
        ada.find_element(By.ID, "new-storyboard-quick").click()
        wait_for(ada, lambda d: visible(d, "#new-storyboard-name"), "the new storyboard dialog from the first screen")

    def test_storyboard_tablet_7_project_page_dense(self):
        """The project page at tablet size: more than two shots a row, one tap opens a shot in the
        editor, and back from it the shot is selected and in view without its details covering the board."""
        board = create_storyboard("Dense board")
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        ada.get(f"{SERVER.base}/storyboard.html?id={board['id']}")
        wait_for(ada, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the project page")
        def click_add(d):
            button = d.find_element(By.CSS_SELECTOR, "[data-action=add-shot]")  # drawn anew by every edit
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
            button.click()
            return True

        for n in range(2, 7):
            wait_for(ada, click_add, "a click on Add shot")
            wait_for(ada, lambda d, n=n: len(d.find_elements(By.CSS_SELECTOR, ".sb-shot")) == n, f"{n} shots")
        ada.execute_script("document.querySelector('.sb-shot').scrollIntoView({block: 'start'})")
        tops = ada.execute_script("return [...document.querySelectorAll('.sb-shot')].map((c) => Math.round(c.getBoundingClientRect().top));")
        per_row = tops.count(tops[0])
        self.assertGreater(per_row, 2, f"shots a row: {tops}")
        width = ada.execute_script("return document.querySelector('.sb-shot').getBoundingClientRect().width")
        self.assertGreaterEqual(width, 140, "a shot big enough to see")
        screenshot(ada, "storyboard-tablet-project")
        ids = [s["id"] for s in shots_of(content(board["id"]))]
        # One tap on the shot's pen: the editor on that shot.
        opener = ada.find_element(By.CSS_SELECTOR, f".sb-shot-item:has(.sb-shot[data-shot-id='{ids[4]}']) .sb-open-shot")
        rect = opener.rect
        self.assertGreaterEqual(min(rect["width"], rect["height"]), 40, "a finger's target")
        hit = ada.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2).closest('.sb-open-shot') === arguments[0];",
            opener)
        self.assertTrue(hit, "the pen is not covered")
        opener.click()
        wait_for(ada, lambda d: "/sketch.html" in d.current_url and ids[4] in d.current_url, "the editor on shot 5")
        wait_for(ada, lambda d: stage_data(d, "shot") == ids[4], "shot 5 on the canvas")
        ada.find_element(By.ID, "back").click()
        wait_for(ada, lambda d: "/storyboard.html" in d.current_url and d.execute_script("return document.body.dataset.ready") == "true", "back on the project page")
        selector = f".sb-shot[data-shot-id='{ids[4]}']"
        wait_for(ada, lambda d: d.find_element(By.CSS_SELECTOR, selector).get_attribute("aria-pressed") == "true", "the shot selected")
        self.assertFalse(ada.find_element(By.ID, "inspector").is_displayed(), "no details over the board")
        card = ada.find_element(By.CSS_SELECTOR, selector)
        r = card.rect
        self.assertTrue(0 <= r["y"] and r["y"] + r["height"] <= 1180, f"the shot in view: {r}")
        screenshot(ada, "storyboard-tablet-project-back")
        # A tap on the card shows its details (as before).
        wait_for(ada, lambda d: d.find_element(By.CSS_SELECTOR, selector).click() or True, "a tap on the card")
        wait_for(ada, lambda d: visible(d, "#inspector"), "the details on a tap")
