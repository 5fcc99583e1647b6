#!/usr/bin/python3
"""Browser test of a storyboard's reference image (issue #38), at tablet size (820 × 1180): a
picture chosen in the layer panel's file input is uploaded and placed on a layer of its own at the
bottom, dimmed with the layer's opacity, locked (the pen goes to the layer above), drawn over with
a pen: the canvas's pixels show the dimmed picture under the stroke, and a second editor's canvas
shows it too. The server's content has the layer's image, opacity and lock.

Runs inside the suite of ``run_browser_tests.py``. Alone:
python3 Tests/Browser/run_browser_tests.py storyboard_reference
"""

import os
import struct
import sys
import zlib

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
screenshot = harness.screenshot

tablet = sys.modules.get("test_storyboard_tablet")
if tablet is None:
    import test_storyboard_tablet as tablet  # noqa: E402


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def solid_png(width, height, rgb):
    """A PNG of one colour (RGB, 8 bits)."""
    row = b"\x00" + bytes(rgb) * width
    raw = row * height

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


# The composed canvas's pixels around a point of the shot (fractions): the darkest and the mean
# [r, g, b] of the (2n+1)² device pixels there.
PIXELS_JS = """
const [fx, fy, n] = arguments;
const canvas = document.getElementById('sketch-canvas');
const stage = document.getElementById('stage');
const [L, T, W, H] = stage.dataset.shotRect.split(',').map(Number);
const dpr = canvas.width / canvas.getBoundingClientRect().width;
const x = Math.round((L + fx * W) * dpr);
const y = Math.round((T + fy * H) * dpr);
const data = canvas.getContext('2d').getImageData(x - n, y - n, 2 * n + 1, 2 * n + 1).data;
let darkest = null;
const sum = [0, 0, 0];
for (let i = 0; i < data.length; i += 4) {
  const px = [data[i], data[i + 1], data[i + 2]];
  for (let k = 0; k < 3; k++) sum[k] += px[k];
  if (!darkest || px[0] + px[1] + px[2] < darkest[0] + darkest[1] + darkest[2]) darkest = px;
}
const count = data.length / 4;
return { darkest, mean: sum.map((s) => Math.round(s / count)) };
"""

REFERENCE_ROW = "#layers li.sk-layer[data-image]"


def near(pixel, expected, tolerance=14):
    return pixel is not None and all(abs(a - b) <= tolerance for a, b in zip(pixel, expected))


class StoryboardReferenceTests(BrowserTest):
    def pixels(self, driver, fx, fy, n=0):
        return driver.execute_script(PIXELS_JS, fx, fy, n)

    def reference_layer(self, storyboard_id):
        layers = tablet.shots_of(tablet.content(storyboard_id))[0]["layers"]
        return next((layer for layer in layers if layer.get("image")), None), layers

    def test_storyboard_reference_image_placed_dimmed_drawn_over_and_shared(self):
        board = tablet.create_storyboard("Reference")
        shot = tablet.shots_of(board["content"])[0]["id"]
        ada = self.driver(820, 1180)
        self.sign_in_with_cookie(ada)
        opener = tablet.StoryboardTabletTests.open_sketch
        opener(self, ada, board["id"], shot)
        bob = self.driver(1280, 800)
        self.sign_in_with_cookie(bob)
        opener(self, bob, board["id"], shot)

        # The panel folds away on a tablet: open it, choose a picture (a 64 × 48 pure blue PNG).
        if ada.execute_script("return document.body.dataset.panel") != "open":
            ada.find_element(By.ID, "panel-toggle").click()
        wait_for(ada, lambda d: d.find_element(By.CSS_SELECTOR, "[data-action=add-reference]").is_displayed(),
                 "the Reference image button in the open panel")
        camera = ada.find_element(By.ID, "reference-camera")
        self.assertEqual(camera.get_attribute("capture"), "environment")
        self.assertEqual(camera.get_attribute("accept"), "image/*")
        picture = str(self.scratch_directory("podium-ref-") / "blue.png")
        with open(picture, "wb") as file:
            file.write(solid_png(64, 48, (0, 0, 255)))
        ada.find_element(By.ID, "reference-file").send_keys(picture)

        # On a layer of its own at the bottom, half dimmed, chosen, in transform mode; saved.
        wait_for(ada, lambda d: d.find_elements(By.CSS_SELECTOR, REFERENCE_ROW), "the reference layer in the list")
        row = ada.find_element(By.CSS_SELECTOR, REFERENCE_ROW)
        reference_id = row.get_attribute("data-layer-id")
        self.assertEqual(row.get_attribute("data-index"), "0")
        self.assertTrue(row.get_attribute("data-image").endswith(".png"))
        self.assertEqual(tablet.stage_data(ada, "layer"), reference_id)
        self.assertEqual(tablet.stage_data(ada, "tool"), "transform")
        self.assertTrue(ada.find_element(By.ID, "reference-size").is_displayed())
        wait_for(ada, lambda d: self.reference_layer(board["id"])[0] is not None, "the layer stored with its image")
        stored, _ = self.reference_layer(board["id"])
        self.assertEqual((stored["image"]["width"], stored["image"]["height"]), (64, 48))
        self.assertEqual(stored["opacity"], 0.5)
        # The picture fills the shot's height (64:48 in 16:9), centred: half dimmed blue on white.
        wait_for(ada, lambda d: near(self.pixels(d, 0.5, 0.5)["mean"], (128, 128, 255)), "the picture at half opacity")
        self.assertTrue(near(self.pixels(ada, 0.05, 0.5)["mean"], (255, 255, 255)), "beside the picture: white paper")

        # Dragged in transform mode: its frame shows while it moves; the move is stored.
        drag = [["pointerdown", 3, "mouse", 0.5, 0.5, 0.5]] + [
            ["pointermove", 3, "mouse", 0.5 + 0.02 * i, 0.5, 0.5] for i in range(1, 6)]
        tablet.StoryboardTabletTests.pointers(self, ada, drag)
        screenshot(ada, "storyboard-reference-moving")
        tablet.StoryboardTabletTests.pointers(self, ada, [["pointerup", 3, "mouse", 0.6, 0.5, 0]])
        wait_for(ada, lambda d: abs(self.reference_layer(board["id"])[0]["transform"]["x"] - 0.1) < 0.01, "the move stored")
        self.assertTrue(near(self.pixels(ada, 0.15, 0.5)["mean"], (255, 255, 255)), "moved right: white where it began")

        # Dimmed further with the opacity slider.
        ada.execute_script("""
          const o = document.getElementById('layer-opacity'); o.value = '0.3';
          o.dispatchEvent(new Event('input', { bubbles: true })); o.dispatchEvent(new Event('change', { bubbles: true }));""")
        wait_for(ada, lambda d: near(self.pixels(d, 0.5, 0.5)["mean"], (179, 179, 255)), "the picture at 30 %")
        wait_for(ada, lambda d: self.reference_layer(board["id"])[0]["opacity"] == 0.3, "the opacity stored")

        # Locked: the pen goes to the layer above, and a stroke drawn across it covers the picture.
        ada.find_element(By.CSS_SELECTOR, REFERENCE_ROW + " [data-action=toggle-lock]").click()
        wait_for(ada, lambda d: d.find_element(By.CSS_SELECTOR, REFERENCE_ROW).get_attribute("data-locked") == "true",
                 "the reference locked")
        wait_for(ada, lambda d: tablet.stage_data(d, "layer") not in (None, reference_id), "the pen on the layer above")
        self.assertFalse(ada.find_element(By.ID, "reference-size").is_displayed(), "the size is the reference layer's")
        ada.find_element(By.ID, "panel-toggle").click()  # the panel folds away again: the paper to draw on
        wait_for(ada, lambda d: d.execute_script("return document.body.dataset.panel") == "folded", "the panel folded")
        ada.find_element(By.CSS_SELECTOR, "[data-tool=pen]").click()
        tablet.StoryboardTabletTests.pointers(self, ada, tablet.line(7, "pen", (0.3, 0.5), (0.7, 0.5), steps=12, pressure=1))
        wait_for(ada, lambda d: tablet.stage_data(d, "strokes") == "1", "the stroke drawn")
        tablet.StoryboardTabletTests.wait_saved(self, ada, "the stroke")
        stored, layers = self.reference_layer(board["id"])
        self.assertTrue(stored["locked"])
        self.assertEqual([len(layer["strokes"]) for layer in layers], [0, 1], "the stroke is on the layer above")
        under = self.pixels(ada, 0.5, 0.5, n=3)
        self.assertLess(sum(under["darkest"]), 150, f"the stroke is drawn over the picture: {under}")
        self.assertLess(under["darkest"][2], 70, f"the picture does not cover the stroke: {under}")
        self.assertTrue(near(self.pixels(ada, 0.5, 0.3)["mean"], (179, 179, 255)), "above the stroke: the dimmed picture")
        screenshot(ada, "storyboard-reference-tablet")

        # Bob sees it: the layer in his list, the dimmed picture under Ada's stroke on his canvas.
        wait_for(bob, lambda d: d.execute_script(
            "return document.querySelectorAll(arguments[0] + '[data-locked=true]').length", REFERENCE_ROW) == 1,
            "the locked reference layer in Bob's list")
        wait_for(bob, lambda d: near(self.pixels(d, 0.5, 0.3)["mean"], (179, 179, 255)), "the dimmed picture on Bob's canvas")
        wait_for(bob, lambda d: sum(self.pixels(d, 0.5, 0.5, n=3)["darkest"]) < 150, "Ada's stroke over it on Bob's canvas")
        screenshot(bob, "storyboard-reference-second-editor")

        # A file that is no picture is refused with a clear message, and no layer is added.
        ada.find_element(By.ID, "panel-toggle").click()
        text = os.path.join(os.path.dirname(picture), "notes.png")
        with open(text, "w") as file:
            file.write("<html>not a picture</html>")
        ada.find_element(By.ID, "reference-file").send_keys(text)
        wait_for(ada, lambda d: any("not a picture" in e.text for e in d.find_elements(By.CSS_SELECTOR, ".toast-error")),
                 "the refusal said")
        self.assertEqual(len(ada.find_elements(By.CSS_SELECTOR, REFERENCE_ROW)), 1)
        self.assertEqual(len(self.reference_layer(board["id"])[1]), 2)
