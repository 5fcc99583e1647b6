#!/usr/bin/python3
"""Browser tests of storyboards (issue #19): the project page and the shot editor, with two people
at once; layers, onion skin, lasso, undo of one's own change; the save indicator through a server
restart; the library's storyboards.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py storyboards
"""

import os
import signal
import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions import interaction  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.actions.pointer_input import PointerInput  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot

RED = (229, 57, 53)
BLUE = (30, 136, 229)
BLACK = (17, 17, 17)


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# How many pixels of the composed shot (#sketch-canvas) within a box of the shot (fractions) match:
# mode 'near' a colour (r, g, b), or 'reddish' / 'greenish' (an onion skin's tint).
PIXELS_JS = """
const [x0, y0, x1, y1, mode, rgb] = arguments;
const stage = document.getElementById('stage');
const canvas = document.getElementById('sketch-canvas');
if (!stage.dataset.shotRect || !canvas.width) return -1;
const [L, T, W, H] = stage.dataset.shotRect.split(',').map(Number);
const dpr = canvas.width / canvas.getBoundingClientRect().width;
const px = (f, o, s) => Math.round((o + f * s) * dpr);
const ax = px(x0, L, W), ay = px(y0, T, H), bx = px(x1, L, W), by = px(y1, T, H);
const data = canvas.getContext('2d').getImageData(ax, ay, Math.max(1, bx - ax), Math.max(1, by - ay)).data;
let count = 0;
for (let i = 0; i < data.length; i += 4) {
  const r = data[i], g = data[i + 1], b = data[i + 2];
  if (mode === 'near' && Math.abs(r - rgb[0]) < 40 && Math.abs(g - rgb[1]) < 40 && Math.abs(b - rgb[2]) < 40) count += 1;
  else if (mode === 'reddish' && r > g + 30 && r > b + 30) count += 1;
  else if (mode === 'greenish' && g > r + 20 && g > b + 15) count += 1;
}
return count;
"""


def pixels(driver, box, mode, rgb=(0, 0, 0)):
    return driver.execute_script(PIXELS_JS, *box, mode, list(rgb))


def stage_data(driver, name):
    return driver.execute_script("const s = document.getElementById('stage'); return s ? s.dataset[arguments[0]] || null : null;", name)


def save_state(driver):
    return driver.execute_script("const s = document.getElementById('save-state'); return s ? s.dataset.state : null;")


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


class StoryboardTests(BrowserTest):
    # ---- flows ----

    def open_project(self, driver, storyboard_id):
        driver.get(f"{SERVER.base}/storyboard.html?id={storyboard_id}")
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the project page to connect")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".sb-shot"), "the shot cards")

    def open_sketch(self, driver, storyboard_id, shot_id):
        driver.get(f"{SERVER.base}/sketch.html?id={storyboard_id}&shot={shot_id}")
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the editor to connect")
        wait_for(driver, lambda d: stage_data(d, "shotRect") and stage_data(d, "shot") == shot_id, "the shot on the canvas")

    def offsets(self, driver, points):
        """Shot fractions → offsets from the canvas's centre (what ActionChains moves by)."""
        rect = driver.execute_script(
            "const r = document.getElementById('sketch-canvas').getBoundingClientRect(); return [r.width, r.height];")
        left, top, width, height = (float(v) for v in stage_data(driver, "shotRect").split(","))
        return [(round(left + x * width - rect[0] / 2), round(top + y * height - rect[1] / 2)) for x, y in points]

    def draw(self, driver, points, hold_check=None):
        """A mouse drag through shot points (fractions); hold_check runs before the button is let go."""
        canvas = driver.find_element(By.ID, "sketch-canvas")
        spots = self.offsets(driver, points)
        actions = ActionChains(driver, duration=40)
        actions.move_to_element_with_offset(canvas, *spots[0]).click_and_hold()
        for (x0, y0), (x1, y1) in zip(spots, spots[1:]):
            actions.move_by_offset(x1 - x0, y1 - y0)
        actions.perform()
        try:
            if hold_check:
                hold_check()
        finally:
            ActionChains(driver, duration=40).release().perform()

    def pen_draw(self, driver, points):
        """A stylus stroke (a pen pointer with pressure) through shot points."""
        canvas = driver.find_element(By.ID, "sketch-canvas")
        spots = self.offsets(driver, points)
        builder = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_PEN, "pen"), duration=40)
        builder.pointer_action.move_to(canvas, *spots[0]).pointer_down(pressure=0.4)
        for i, (x, y) in enumerate(spots[1:]):
            builder.pointer_action.move_to(canvas, x, y, pressure=0.4 + 0.1 * (i % 5))
        builder.pointer_action.pointer_up()
        builder.perform()

    def click(self, driver, css):
        """Clicks what the selector finds, again if the page drew it anew in between (every edit
        redraws the scenes and the layers)."""
        def attempt(d):
            element = d.find_element(By.CSS_SELECTOR, css)
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)  # not under the sticky bar
            element.click()
            return True

        wait_for(driver, attempt, f"a click on {css}")

    def key(self, driver, keys):
        ActionChains(driver).send_keys(keys).perform()

    def pick_tool(self, driver, tool):
        self.click(driver, f"#tools [data-tool='{tool}']")
        wait_for(driver, lambda d: stage_data(d, "tool") == tool, f"the {tool} tool")

    def pick_color(self, driver, color):
        self.click(driver, f"#tools .sk-swatch[data-kind=palette][data-color='{color}']")

    def wait_saved(self, driver, what):
        wait_for(driver, lambda d: save_state(d) == "saved", f"{what}: the page says Saved")
        self.assertEqual(text_of(driver, "#save-state"), "Saved")

    # ---- tests ----

    def test_storyboards_1_project_page_live(self):
        """Add a scene and a shot, drag a shot into another scene: a second browser sees it at once; REST agrees."""
        board = create_storyboard("Heist")
        first_shot = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_project(alice, board["id"])
        bob = self.driver(1024, 768)
        self.sign_in_with_cookie(bob)
        self.open_project(bob, board["id"])
        self.wait_saved(alice, "on opening")

        # A scene, with its first shot, from the button and the dialog.
        self.click(alice, "#add-scene")
        field = wait_for(alice, lambda d: visible(d, "dialog[open] input"), "the scene title field")
        field.clear()
        field.send_keys("The vault")
        field.send_keys(Keys.ENTER)
        for driver in (alice, bob):
            wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#scenes > li.sb-scene")) == 2, "two scenes")
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "li.sb-scene[data-title='The vault'] .sb-shot"),
                     "the new scene's first shot")
        # A second shot in scene 1.
        self.click(alice, "#scenes > li.sb-scene:first-child [data-action=add-shot]")
        for driver in (alice, bob):
            wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#scenes > li.sb-scene:first-child .sb-shot")) == 2,
                     "two shots in scene 1")
        # The server numbered the new shots.
        wait_for(bob, lambda d: all(c.get_attribute("data-number") for c in d.find_elements(By.CSS_SELECTOR, ".sb-shot")),
                 "every shot numbered")
        self.wait_saved(alice, "after adding")
        screenshot(alice, "storyboard-project-1280")
        screenshot(bob, "storyboard-project-1024")

        # Drag the first shot of scene 1 to the start of scene 2 (pointer events, as a mouse).
        card = alice.find_element(By.CSS_SELECTOR, f".sb-shot[data-shot-id='{first_shot}']")
        target = alice.find_element(By.CSS_SELECTOR, "li.sb-scene[data-title='The vault'] .sb-shot")
        actions = ActionChains(alice, duration=60)
        actions.move_to_element(card).click_and_hold().move_by_offset(10, 10)
        actions.move_to_element_with_offset(target, -40, 0).move_to_element_with_offset(target, -50, 0).release().perform()
        for driver in (alice, bob):
            wait_for(driver, lambda d: d.execute_script(
                "const s = document.querySelector(\"li.sb-scene[data-title='The vault'] .sb-shot\"); return s && s.dataset.shotId;") == first_shot,
                "the dragged shot first in the second scene")
        self.wait_saved(alice, "after the drag")
        stored = content(board["id"])
        self.assertEqual([len(s["shots"]) for s in stored["scenes"]], [1, 2])
        self.assertEqual(stored["scenes"][1]["shots"][0]["id"], first_shot)

        # The keyboard moves it back: Alt+Up to the end of the previous scene.
        card = alice.find_element(By.CSS_SELECTOR, f".sb-shot[data-shot-id='{first_shot}']")
        card.send_keys(Keys.ALT, Keys.ARROW_UP)
        wait_for(bob, lambda d: d.execute_script(
            "return [...document.querySelectorAll('#scenes > li.sb-scene:first-child .sb-shot')].map(c => c.dataset.shotId).pop()") == first_shot,
            "the shot back in scene 1, last")

        # The selected shot's fields: duration and dialogue, seen by the other browser.
        self.click(alice, f".sb-shot[data-shot-id='{first_shot}']")
        duration = wait_for(alice, lambda d: visible(d, "#shot-duration"), "the shot's fields")
        duration.send_keys(Keys.CONTROL, "a")
        duration.send_keys("3.5", Keys.TAB)
        alice.find_element(By.ID, "shot-dialogue").send_keys("Not yet.", Keys.TAB)
        wait_for(bob, lambda d: d.execute_script(
            f"const c = document.querySelector(\".sb-shot[data-shot-id='{first_shot}'] .sb-shot-duration\"); return c && c.textContent;") == "3.5 s",
            "the new duration on the other page")
        self.wait_saved(alice, "after the fields")
        shot = next(s for s in shots_of(content(board["id"])) if s["id"] == first_shot)
        self.assertEqual((shot["duration"], shot["dialogue"]), (3.5, "Not yet."))

    def test_storyboards_2_two_editors_draw(self):
        """Two editors on one shot: each sees the other's stroke while it is drawn, and once committed; cursors with names."""
        board = create_storyboard("Two hands")
        shot = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_sketch(alice, board["id"], shot)
        bob = self.driver(1024, 768)
        self.sign_in_with_cookie(bob)
        self.open_sketch(bob, board["id"], shot)
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#editors .sb-editor-dot")) == 2, "two people editing")

        self.pick_color(alice, "#e53935")
        box = (0.1, 0.1, 0.9, 0.5)

        def bob_sees_it_drawn():
            wait_for(bob, lambda d: stage_data(d, "live") == "1", "Alice's stroke in progress on Bob's canvas")
            wait_for(bob, lambda d: pixels(d, box, "near", RED) > 30, "red pixels of the stroke in progress")
            self.assertEqual(stage_data(bob, "strokes"), "0")
            screenshot(bob, "storyboard-sketch-live-stroke")

        self.draw(alice, [(0.2, 0.2), (0.3, 0.3), (0.45, 0.35), (0.6, 0.3), (0.8, 0.25)], hold_check=bob_sees_it_drawn)
        wait_for(bob, lambda d: stage_data(d, "strokes") == "1", "Alice's stroke committed on Bob's canvas")
        wait_for(bob, lambda d: stage_data(d, "live") == "0", "no stroke in progress left")
        self.assertGreater(pixels(bob, box, "near", RED), 30)
        # Alice's cursor, with her name, on Bob's canvas.
        wait_for(bob, lambda d: d.find_elements(By.CSS_SELECTOR, "#cursors .sk-cursor"), "Alice's cursor")

        # Bob draws in blue with a pen: Alice sees it.
        self.pick_color(bob, "#1e88e5")
        self.pen_draw(bob, [(0.2, 0.7), (0.4, 0.75), (0.6, 0.7), (0.8, 0.75)])
        wait_for(alice, lambda d: stage_data(d, "strokes") == "2", "Bob's stroke on Alice's canvas")
        wait_for(alice, lambda d: pixels(d, (0.1, 0.55, 0.9, 0.9), "near", BLUE) > 30, "blue pixels of Bob's stroke")
        for driver in (alice, bob):
            self.wait_saved(driver, "both strokes")
        strokes = strokes_of(shots_of(content(board["id"]))[0])
        self.assertEqual(sorted(s["color"] for s in strokes), ["#1e88e5", "#e53935"])
        pen = next(s for s in strokes if s["color"] == "#1e88e5")
        self.assertTrue(any(abs(p[2] - 0.5) > 0.01 for p in pen["points"]), "the pen's pressure is kept")
        screenshot(alice, "storyboard-sketch-1280")
        screenshot(bob, "storyboard-sketch-1024")

    def test_storyboards_3_layers_hide_and_reorder(self):
        """Two layers overlap: the top one's colour shows; reordered, the other's; hidden, gone."""
        board = create_storyboard("Layers")
        shot = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_sketch(alice, board["id"], shot)
        line = [(0.2, 0.5), (0.35, 0.5), (0.5, 0.5), (0.65, 0.5), (0.8, 0.5)]
        self.key(alice, "]]]]")  # thicker
        self.pick_color(alice, "#e53935")
        self.draw(alice, line)
        wait_for(alice, lambda d: stage_data(d, "strokes") == "1", "the red stroke")
        self.click(alice, "[data-action=add-layer]")
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#layers > li")) == 2, "a second layer")
        top = alice.find_element(By.CSS_SELECTOR, "#layers > li:first-child").get_attribute("data-layer-id")
        self.assertEqual(stage_data(alice, "layer"), top, "the new layer is the one drawn on")
        self.pick_color(alice, "#1e88e5")
        self.draw(alice, line)
        wait_for(alice, lambda d: stage_data(d, "strokes") == "2", "the blue stroke")
        middle = (0.45, 0.45, 0.55, 0.55)
        # (The two strokes' outlines may differ by a pixel at their edges: the top colour dominates.)
        wait_for(alice, lambda d: pixels(d, middle, "near", BLUE) > 4 * max(5, pixels(d, middle, "near", RED)),
                 "blue over red where they overlap")

        self.wait_saved(alice, "both strokes")
        # Drag the blue layer below the red one, by its handle.
        handle = alice.find_element(By.CSS_SELECTOR, "#layers > li:first-child .sk-layer-handle")
        below = alice.find_element(By.CSS_SELECTOR, "#layers > li:last-child")
        ActionChains(alice, duration=60).click_and_hold(handle).move_by_offset(0, 10).move_to_element_with_offset(
            below, 0, below.size["height"] // 2 - 2).release().perform()
        wait_for(alice, lambda d: d.find_element(By.CSS_SELECTOR, "#layers > li:last-child").get_attribute("data-layer-id") == top,
                 "the blue layer at the bottom")
        wait_for(alice, lambda d: pixels(d, middle, "near", RED) > 4 * max(5, pixels(d, middle, "near", BLUE)),
                 "red over blue once reordered")
        self.wait_saved(alice, "after the reorder")
        layers = shots_of(content(board["id"]))[0]["layers"]
        self.assertEqual(layers[0]["id"], top, "the server has the blue layer at the bottom")

        # Hide the red (now top) layer: blue shows again; its row says hidden.
        self.click(alice, "#layers > li:first-child [data-action=toggle-visible]")
        wait_for(alice, lambda d: pixels(d, middle, "near", BLUE) > 20 and pixels(d, middle, "near", RED) == 0,
                 "only blue once the red layer is hidden")
        self.assertEqual(alice.find_element(By.CSS_SELECTOR, "#layers > li:first-child").get_attribute("data-visible"), "false")
        self.wait_saved(alice, "after hiding")
        self.assertFalse(shots_of(content(board["id"]))[0]["layers"][1]["visible"])
        screenshot(alice, "storyboard-layers")

    def test_storyboards_4_onion_skin(self):
        """The previous and next shots show under the drawing, tinted red and green, as many as chosen."""
        board = create_storyboard("Onion")
        first = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_project(alice, board["id"])
        for count in (2, 3):
            self.click(alice, "[data-action=add-shot]")
            wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".sb-shot")) == count, f"{count} shots")
        self.wait_saved(alice, "three shots")
        ids = [s["id"] for s in shots_of(content(board["id"]))]
        self.assertEqual(ids[0], first)
        self.open_sketch(alice, board["id"], ids[0])
        self.key(alice, "]]]]")
        self.draw(alice, [(0.2, 0.3), (0.5, 0.3), (0.8, 0.3)])  # shot 1: a black line at the top
        wait_for(alice, lambda d: stage_data(d, "strokes") == "1", "shot 1's stroke")
        self.key(alice, Keys.ARROW_RIGHT)
        self.key(alice, Keys.ARROW_RIGHT)
        wait_for(alice, lambda d: stage_data(d, "shot") == ids[2], "shot 3")
        self.draw(alice, [(0.2, 0.7), (0.5, 0.7), (0.8, 0.7)])  # shot 3: a black line at the bottom
        wait_for(alice, lambda d: stage_data(d, "strokes") == "1", "shot 3's stroke")
        self.key(alice, Keys.PAGE_UP)
        wait_for(alice, lambda d: stage_data(d, "shot") == ids[1], "shot 2, between them")
        top, bottom = (0.15, 0.2, 0.85, 0.4), (0.15, 0.6, 0.85, 0.8)
        self.assertEqual(pixels(alice, top, "reddish"), 0)
        Select(alice.find_element(By.ID, "onion-before")).select_by_value("1")
        wait_for(alice, lambda d: pixels(d, top, "reddish") > 30, "shot 1 tinted red above")
        self.assertEqual(pixels(alice, bottom, "greenish"), 0)
        Select(alice.find_element(By.ID, "onion-after")).select_by_value("1")
        wait_for(alice, lambda d: pixels(d, bottom, "greenish") > 30, "shot 3 tinted green below")
        self.assertEqual(stage_data(alice, "onion"), "2")
        screenshot(alice, "storyboard-onion")
        Select(alice.find_element(By.ID, "onion-before")).select_by_value("0")
        wait_for(alice, lambda d: pixels(d, top, "reddish") == 0, "no onion skin before")

    def test_storyboards_5_lasso_moves_strokes(self):
        """The lasso selects a stroke and a drag moves it; the server has the moved points."""
        board = create_storyboard("Lasso")
        shot = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_sketch(alice, board["id"], shot)
        self.draw(alice, [(0.3, 0.3), (0.35, 0.32), (0.4, 0.3)])
        self.wait_saved(alice, "the stroke")
        before = strokes_of(shots_of(content(board["id"]))[0])[0]
        self.key(alice, "l")
        wait_for(alice, lambda d: stage_data(d, "tool") == "lasso", "the lasso")
        self.draw(alice, [(0.25, 0.25), (0.45, 0.25), (0.45, 0.4), (0.25, 0.4), (0.25, 0.26)])
        wait_for(alice, lambda d: stage_data(d, "selected") == "1", "one stroke selected")
        screenshot(alice, "storyboard-lasso")
        self.draw(alice, [(0.35, 0.31), (0.4, 0.4), (0.55, 0.51)])
        self.wait_saved(alice, "the move")
        wait_for(alice, lambda d: stage_data(d, "selected") == "1", "the moved stroke still selected")
        after = strokes_of(shots_of(content(board["id"]))[0])
        self.assertEqual(len(after), 1)
        dx = after[0]["points"][0][0] - before["points"][0][0]
        dy = after[0]["points"][0][1] - before["points"][0][1]
        self.assertAlmostEqual(dx, 0.2, delta=0.03)
        self.assertAlmostEqual(dy, 0.2, delta=0.03)
        # Delete the selection from the keyboard.
        self.key(alice, Keys.DELETE)
        wait_for(alice, lambda d: stage_data(d, "strokes") == "0", "the stroke deleted")

    def test_storyboards_6_undo_only_own(self):
        """Ctrl+Z undoes this person's newest edit, never another person's: Bob (an account of his
        own, invited on the project page) draws after Alice, Alice undoes, her stroke goes and his stays;
        redo brings hers back."""
        board = create_storyboard("Undo")
        shot = shots_of(board["content"])[0]["id"]
        email = f"bob-{board['id'][-6:].lower()}@example.org"
        status, body = SERVER.api("POST", "/api/v1/users", {"email": email, "name": "Bob", "password": "bob-password-1"})
        self.assertIn(status, (200, 201), body)
        status, body = SERVER.request("POST", "/api/v1/auth/login", {"email": email, "password": "bob-password-1"})
        self.assertEqual(status, 200, body)
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        # Alice invites Bob on the project page: a mistyped address is said as such, then his is listed.
        self.open_project(alice, board["id"])
        field = wait_for(alice, lambda d: visible(d, "#invite-email"), "the invitation field")
        field.send_keys("bob@typo.example.org" + Keys.ENTER)
        wait_for(alice, lambda d: "No Podium account has the address bob@typo.example.org" in (text_of(d, ".toasts") or ""),
                 "the unknown address said")
        field.clear()
        field.send_keys(email + Keys.ENTER)
        wait_for(alice, lambda d: visible(d, "#editors-list li[data-user-id]"), "Bob listed as an editor")
        self.assertIn(email, text_of(alice, "#editors-list"))
        self.open_sketch(alice, board["id"], shot)
        bob = self.driver(1024, 768)
        bob.get(SERVER.base + "/healthz")
        bob.add_cookie({"name": "podium_auth", "value": body["token"], "path": "/"})
        self.open_sketch(bob, board["id"], shot)
        wait_for(alice, lambda d: "Bob" in d.execute_script(
            "return [...document.querySelectorAll('#editors .sb-editor-dot')].map(e => e.title).join(',')"), "Bob editing too")

        self.pick_color(alice, "#e53935")
        self.draw(alice, [(0.2, 0.3), (0.5, 0.3), (0.8, 0.3)])
        wait_for(bob, lambda d: stage_data(d, "strokes") == "1", "Alice's stroke at Bob's")
        self.pick_color(bob, "#1e88e5")
        self.draw(bob, [(0.2, 0.7), (0.5, 0.7), (0.8, 0.7)])
        wait_for(alice, lambda d: stage_data(d, "strokes") == "2", "Bob's stroke at Alice's")
        self.wait_saved(alice, "both strokes")
        self.wait_saved(bob, "both strokes")
        # Alice undoes: the newest edit is Bob's, but hers is the one undone.
        self.click(alice, "[data-action=undo]")
        for driver in (alice, bob):
            wait_for(driver, lambda d: stage_data(d, "strokes") == "1", "one stroke left")
            wait_for(driver, lambda d: pixels(d, (0.1, 0.2, 0.9, 0.4), "near", RED) == 0, "Alice's red stroke gone")
            self.assertGreater(pixels(driver, (0.1, 0.6, 0.9, 0.8), "near", BLUE), 20, "Bob's blue stroke stays")
        self.wait_saved(alice, "the undo")
        left = strokes_of(shots_of(content(board["id"]))[0])
        self.assertEqual([s["color"] for s in left], ["#1e88e5"])
        # Alice has nothing more of hers to undo: the editor says so, Bob's stroke stays.
        self.click(alice, "[data-action=undo]")
        wait_for(alice, lambda d: "undo" in (text_of(d, "#message") or ""), "nothing of hers to undo")
        self.assertEqual(stage_data(bob, "strokes"), "1")
        # Redo brings hers back.
        ActionChains(alice).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform()
        wait_for(bob, lambda d: stage_data(d, "strokes") == "2", "the stroke redone")
        wait_for(bob, lambda d: pixels(d, (0.1, 0.2, 0.9, 0.4), "near", RED) > 20, "Alice's stroke back at Bob's")

    def test_storyboards_7_server_restart(self):
        """Saved only once the server confirmed; the server is killed and started again: nothing
        confirmed is lost, and the edits it never answered, or that were made while it was down, are
        sent again and stored once."""
        board = create_storyboard("Restart")
        shot = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_sketch(alice, board["id"], shot)
        self.wait_saved(alice, "on opening")
        # The server paused (SIGSTOP): the stroke shows at once, and the page says Saving… until
        # the server, running again, has stored it and said so.
        os.killpg(SERVER.proc.pid, signal.SIGSTOP)
        try:
            self.draw(alice, [(0.2, 0.3), (0.5, 0.35), (0.8, 0.3)])
            self.assertEqual(stage_data(alice, "strokes"), "1")
            wait_for(alice, lambda d: save_state(d) == "saving", "Saving… while the server has not answered")
            self.assertEqual(text_of(alice, "#save-state"), "Saving…")
            screenshot(alice, "storyboard-saving")
        finally:
            os.killpg(SERVER.proc.pid, signal.SIGCONT)
        self.wait_saved(alice, "the first stroke")
        self.assertEqual(len(strokes_of(shots_of(content(board["id"]))[0])), 1, "Saved means stored")

        # Paused again, a second stroke goes out and is never answered: the server is killed (-9).
        os.killpg(SERVER.proc.pid, signal.SIGSTOP)
        self.draw(alice, [(0.2, 0.5), (0.5, 0.55), (0.8, 0.5)])
        wait_for(alice, lambda d: save_state(d) == "saving", "Saving… the second stroke")
        os.killpg(SERVER.proc.pid, signal.SIGKILL)
        SERVER.proc.wait(timeout=10)
        wait_for(alice, lambda d: save_state(d) == "offline", "the page to notice the server went away")
        self.assertEqual(text_of(alice, "#save-state"), "Offline — will resend")
        # A third stroke while it is down.
        self.draw(alice, [(0.2, 0.7), (0.5, 0.65), (0.8, 0.7)])
        self.assertEqual(stage_data(alice, "strokes"), "3", "the strokes show at once, offline")
        self.assertEqual(save_state(alice), "offline")
        screenshot(alice, "storyboard-offline")
        SERVER.launch()
        wait_for(alice, lambda d: save_state(d) == "saved", "the strokes sent again and confirmed", timeout=25)
        strokes = strokes_of(shots_of(content(board["id"]))[0])
        self.assertEqual(len(strokes), 3, "the confirmed stroke kept, the unanswered and the offline ones stored once each")
        self.assertEqual(stage_data(alice, "strokes"), "3")

    def test_storyboards_8_library(self):
        """The library lists storyboards; New storyboard opens its project; rename and delete from the card."""
        board = create_storyboard("Library listed")
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        alice.get(SERVER.base + "/library")
        card = f"#storyboards li.storyboard-card[data-storyboard-id='{board['id']}']"
        wait_for(alice, lambda d: d.find_elements(By.CSS_SELECTOR, card), "the storyboard in the library")
        self.click(alice, card + " [data-action=rename-storyboard]")
        field = wait_for(alice, lambda d: visible(d, "dialog[open] input"), "the rename field")
        field.clear()
        field.send_keys("Renamed board", Keys.ENTER)
        wait_for(alice, lambda d: d.find_element(By.CSS_SELECTOR, card).get_attribute("data-title") == "Renamed board", "the new title")
        screenshot(alice, "storyboard-library")
        # Move it into a folder (made here through REST): the folder's view lists it, REST agrees.
        status, folder = SERVER.api("POST", "/api/v1/folders", {"name": "Boards"})
        self.assertIn(status, (200, 201), folder)
        alice.refresh()
        wait_for(alice, lambda d: d.find_elements(By.CSS_SELECTOR, card + " [data-action=move-storyboard]"), "Move on the card")
        self.click(alice, card + " [data-action=move-storyboard]")
        Select(wait_for(alice, lambda d: visible(d, "dialog[open] select"), "the folder chooser")).select_by_value(folder["id"])
        self.click(alice, "dialog[open] .btn-primary")
        wait_for(alice, lambda d: SERVER.api("GET", f"/api/v1/storyboards/{board['id']}")[1].get("folderId") == folder["id"],
                 "the storyboard in the folder")
        self.click(alice, f".folder-button[data-folder-id='{folder['id']}']")
        wait_for(alice, lambda d: d.find_elements(By.CSS_SELECTOR, card), "the storyboard in the folder's view")
        self.click(alice, card + " [data-action=delete-storyboard]")
        wait_for(alice, lambda d: visible(d, "dialog[open] [data-role=confirm]"), "the delete confirmation").click()
        wait_for(alice, lambda d: not d.find_elements(By.CSS_SELECTOR, card), "the card gone")
        self.assertEqual(SERVER.api("GET", f"/api/v1/storyboards/{board['id']}")[0], 404)

        # Everything is shown: New storyboard is the one beside the kinds.
        alice.find_element(By.ID, "new-storyboard-quick").click()
        title = wait_for(alice, lambda d: visible(d, "#new-storyboard-name"), "the new storyboard dialog")
        title.send_keys(Keys.CONTROL, "a")
        title.send_keys("Short film")
        Select(alice.find_element(By.ID, "new-storyboard-aspect")).select_by_value("2.39:1")
        self.click(alice, "#new-storyboard [data-role=confirm]")
        wait_for(alice, lambda d: "/storyboard.html?id=" in d.current_url, "the new project page")
        wait_for(alice, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the project connected")
        self.assertEqual(alice.find_element(By.ID, "project-title").get_attribute("value"), "Short film")
        self.assertEqual(alice.find_element(By.ID, "project-aspect").get_attribute("value"), "2.39:1")

    def test_storyboards_9_small_screens(self):
        """The editor and the project page on a tablet and a phone (one hand: swipe to the next shot)."""
        board = create_storyboard("Small screens", "4:3")
        alice = self.driver(1024, 768)
        self.sign_in_with_cookie(alice)
        self.open_project(alice, board["id"])
        self.click(alice, "[data-action=add-shot]")
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".sb-shot")) == 2, "two shots")
        self.wait_saved(alice, "two shots")
        ids = [s["id"] for s in shots_of(content(board["id"]))]
        self.open_sketch(alice, board["id"], ids[0])
        self.draw(alice, [(0.2, 0.3), (0.5, 0.5), (0.8, 0.3)])
        wait_for(alice, lambda d: stage_data(d, "strokes") == "1", "a stroke on the tablet")
        screenshot(alice, "storyboard-sketch-tablet")
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        self.open_sketch(phone, board["id"], ids[0])
        self.assertEqual(stage_data(phone, "tool"), "view", "a phone opens for viewing")
        wait_for(phone, lambda d: stage_data(d, "strokes") == "1", "the stroke on the phone")
        screenshot(phone, "storyboard-sketch-phone")
        # A quick swipe to the left: the next shot.
        canvas = phone.find_element(By.ID, "sketch-canvas")
        ActionChains(phone, duration=30).move_to_element_with_offset(canvas, 80, 0).click_and_hold().move_by_offset(-90, 0).move_by_offset(-90, 0).release().perform()
        wait_for(phone, lambda d: stage_data(d, "shot") == ids[1], "the next shot after a swipe")
        phone.find_element(By.ID, "panel-toggle").click()
        wait_for(phone, lambda d: visible(d, "#layers"), "the layers panel on the phone")
        screenshot(phone, "storyboard-sketch-phone-panel")
        self.open_project(phone, board["id"])
        screenshot(phone, "storyboard-project-phone")

    def test_storyboards_10_editor_tools(self):
        """Partial and whole eraser, the ruler's straight line, transforming a layer, a locked layer,
        groups, the view keys and the shortcuts' help."""
        board = create_storyboard("Tools")
        shot = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_sketch(alice, board["id"], shot)
        self.draw(alice, [(0.2, 0.5), (0.35, 0.5), (0.5, 0.5), (0.65, 0.5), (0.8, 0.5)])
        wait_for(alice, lambda d: stage_data(d, "strokes") == "1", "a long stroke")

        # The partial eraser (Shift+E) across its middle: two pieces, neither crossing the cut.
        self.key(alice, "E")
        wait_for(alice, lambda d: stage_data(d, "tool") == "split", "the partial eraser")
        self.draw(alice, [(0.5, 0.35), (0.5, 0.65)])
        wait_for(alice, lambda d: stage_data(d, "strokes") == "2", "the stroke cut in two")
        self.wait_saved(alice, "the cut")
        pieces = strokes_of(shots_of(content(board["id"]))[0])
        self.assertEqual(len(pieces), 2)
        spans = sorted((min(p[0] for p in s["points"]), max(p[0] for p in s["points"])) for s in pieces)
        self.assertLess(spans[0][1], 0.49)
        self.assertGreater(spans[1][0], 0.51)

        # The whole-stroke eraser (E) through the left piece.
        self.key(alice, "e")
        self.draw(alice, [(0.3, 0.4), (0.3, 0.6)])
        wait_for(alice, lambda d: stage_data(d, "strokes") == "1", "the left piece erased")

        # The ruler (U): a wavy line started on it comes out straight along it.
        self.key(alice, "u")
        wait_for(alice, lambda d: stage_data(d, "ruler") == "0.500,0.500,0.000", "the ruler across the middle")
        self.key(alice, "b")
        self.draw(alice, [(0.3, 0.505), (0.4, 0.54), (0.5, 0.47), (0.6, 0.53), (0.7, 0.5)])
        wait_for(alice, lambda d: stage_data(d, "strokes") == "2", "the ruled stroke")
        self.wait_saved(alice, "the ruled stroke")
        ruled = strokes_of(shots_of(content(board["id"]))[0])[-1]
        self.assertTrue(all(abs(p[1] - 0.5) < 0.003 for p in ruled["points"]), ruled["points"])
        self.assertGreater(max(p[0] for p in ruled["points"]) - min(p[0] for p in ruled["points"]), 0.3)
        screenshot(alice, "storyboard-ruler")
        self.pick_tool(alice, "ruler")
        self.key(alice, "u")  # U again: the ruler goes
        wait_for(alice, lambda d: not stage_data(d, "ruler"), "the ruler put away")

        # Transform layer (T): a drag moves the layer's drawing; stored as the layer's transform.
        self.key(alice, "t")
        wait_for(alice, lambda d: stage_data(d, "tool") == "transform", "transform layer")
        self.draw(alice, [(0.5, 0.5), (0.55, 0.55), (0.6, 0.6)])
        self.wait_saved(alice, "the layer moved")
        wait_for(alice, lambda d: abs(shots_of(content(board["id"]))[0]["layers"][0]["transform"]["x"] - 0.1) < 0.01,
                 "the layer's transform stored")
        transform = shots_of(content(board["id"]))[0]["layers"][0]["transform"]
        self.assertAlmostEqual(transform["y"], 0.1, delta=0.01)
        self.assertEqual(transform["scale"], 1)
        self.click(alice, "[data-action=reset-layer-transform]")
        wait_for(alice, lambda d: shots_of(content(board["id"]))[0]["layers"][0]["transform"]["x"] == 0, "the transform reset")

        # A locked layer takes no strokes, and says so.
        self.click(alice, "#layers > li:first-child [data-action=toggle-lock]")
        wait_for(alice, lambda d: d.find_element(By.CSS_SELECTOR, "#layers > li:first-child").get_attribute("data-locked") == "true", "locked")
        self.key(alice, "b")
        self.draw(alice, [(0.2, 0.2), (0.4, 0.25)])
        wait_for(alice, lambda d: "locked" in (text_of(d, "#message") or ""), "the editor says the layer is locked")
        self.assertEqual(stage_data(alice, "strokes"), "2")
        self.click(alice, "#layers > li:first-child [data-action=toggle-lock]")

        # Group this layer with the one under it, then ungroup.
        self.click(alice, "[data-action=add-layer]")
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#layers > li")) == 2, "two layers")
        self.click(alice, "[data-action=group-layers]")
        wait_for(alice, lambda d: all(li.get_attribute("data-group") for li in d.find_elements(By.CSS_SELECTOR, "#layers > li")),
                 "both layers in one group")
        self.click(alice, "[data-action=ungroup-layers]")
        wait_for(alice, lambda d: not any(li.get_attribute("data-group") for li in d.find_elements(By.CSS_SELECTOR, "#layers > li")),
                 "ungrouped")

        # The view: zoom in (+), turn (R), back to the whole shot (0).
        self.key(alice, "+")
        wait_for(alice, lambda d: stage_data(d, "view").split(",")[2] == "1.25", "zoomed in")
        self.key(alice, "r")
        wait_for(alice, lambda d: stage_data(d, "view").split(",")[3] == "0.262", "turned by 15°")
        screenshot(alice, "storyboard-view-turned")
        self.key(alice, "0")
        wait_for(alice, lambda d: stage_data(d, "view") == "0,0,1.00,0.000", "the view reset")

        # The shot's versions: the edits of one person in a burst are one version, the newest is
        # the current one (restoring an earlier one is the restoreShot edit, the model's and the
        # server's tests'; one account cannot make two versions within a test's time).
        self.click(alice, "[data-action=shot-history]")
        wait_for(alice, lambda d: d.find_elements(By.CSS_SELECTOR, "#shot-history li[data-seq]"), "the shot's versions")
        self.assertIn("Admin", text_of(alice, "#shot-history"))
        self.assertFalse(alice.find_element(By.CSS_SELECTOR, "#shot-history li[data-seq] [data-action=restore]").is_enabled())
        self.key(alice, Keys.ESCAPE)
        wait_for(alice, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the versions closed")

        # The shortcuts' help (?).
        self.key(alice, "?")
        wait_for(alice, lambda d: visible(d, "#help-dialog"), "the shortcuts' help")
        self.assertIn("Lasso", text_of(alice, "#help-dialog"))
        self.key(alice, Keys.ESCAPE)
        wait_for(alice, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the help closed")

    def test_storyboards_11_scenes_and_shots(self):
        """Rename, reorder and delete scenes; duplicate and delete shots (the copy is numbered 1A)."""
        board = create_storyboard("Scenes")
        first = shots_of(board["content"])[0]["id"]
        alice = self.driver(1280, 800)
        self.sign_in_with_cookie(alice)
        self.open_project(alice, board["id"])
        # Duplicate the first shot from its panel.
        self.click(alice, f".sb-shot[data-shot-id='{first}']")
        wait_for(alice, lambda d: visible(d, "[data-action=duplicate-shot]"), "the shot's panel").click()
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".sb-shot")) == 2, "the copy")
        wait_for(alice, lambda d: d.find_elements(By.CSS_SELECTOR, ".sb-shot")[1].get_attribute("data-number") == "1A", "the copy numbered 1A")
        # Rename scene 1.
        self.click(alice, "#scenes > li:first-child [data-action=rename-scene]")
        field = wait_for(alice, lambda d: visible(d, "dialog[open] input"), "the scene's name")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys("Arrival", Keys.ENTER)
        wait_for(alice, lambda d: d.find_element(By.CSS_SELECTOR, "#scenes > li:first-child").get_attribute("data-title") == "Arrival", "renamed")
        # A second scene, moved above the first, then deleted.
        self.click(alice, "#add-scene")
        field = wait_for(alice, lambda d: visible(d, "dialog[open] input"), "the new scene's name")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys("Departure", Keys.ENTER)
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#scenes > li")) == 2, "two scenes")
        self.click(alice, "#scenes > li:last-child [data-action=scene-up]")
        wait_for(alice, lambda d: d.find_element(By.CSS_SELECTOR, "#scenes > li:first-child").get_attribute("data-title") == "Departure",
                 "Departure first")
        self.wait_saved(alice, "the scenes")
        self.assertEqual([s["title"] for s in content(board["id"])["scenes"]], ["Departure", "Arrival"])
        self.click(alice, "#scenes > li:first-child [data-action=delete-scene]")
        wait_for(alice, lambda d: visible(d, "dialog[open] [data-role=confirm]"), "the confirmation").click()
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#scenes > li")) == 1, "one scene left")
        # Delete the copy from the keyboard (Delete on its card, then confirm).
        wait_for(alice, lambda d: d.find_elements(By.CSS_SELECTOR, ".sb-shot")[1].send_keys(Keys.DELETE) or True, "Delete on the copy")
        wait_for(alice, lambda d: visible(d, "dialog[open] [data-role=confirm]"), "the shot's confirmation").click()
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".sb-shot")) == 1, "one shot left")
        # Renumber: 1, 2, 3… through the project (here the one shot left, "1").
        self.click(alice, f".sb-shot[data-shot-id='{first}']")
        wait_for(alice, lambda d: visible(d, "[data-action=duplicate-shot]"), "the shot's panel").click()
        wait_for(alice, lambda d: [c.get_attribute("data-number") for c in d.find_elements(By.CSS_SELECTOR, ".sb-shot")] == ["1", "1A"], "1 and 1A")
        self.click(alice, "#renumber")
        wait_for(alice, lambda d: [c.get_attribute("data-number") for c in d.find_elements(By.CSS_SELECTOR, ".sb-shot")] == ["1", "2"], "renumbered 1, 2")
        wait_for(alice, lambda d: d.find_elements(By.CSS_SELECTOR, ".sb-shot")[1].send_keys(Keys.DELETE) or True, "Delete on shot 2")
        wait_for(alice, lambda d: visible(d, "dialog[open] [data-role=confirm]"), "the shot's confirmation").click()
        wait_for(alice, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".sb-shot")) == 1, "one shot again")
        self.wait_saved(alice, "the deletions")
        stored = content(board["id"])
        self.assertEqual([s["title"] for s in stored["scenes"]], ["Arrival"])
        self.assertEqual([s["id"] for s in shots_of(stored)], [first])
