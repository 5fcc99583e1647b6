#!/usr/bin/python3
"""The browser paints storyboard strokes: ``drawStroke`` of ``Public/app/storyboard/freehand.js``,
loaded in Chromium, must paint a canvas where the stroke is and nowhere far from it.

That the module outlines strokes as the server does (the outlines, tool options and simplified
strokes of ``Tests/Fixtures/stroke-outlines.json``) needs no page: ``Tests/JS/freehand.test.mjs``
under ``node --test`` (``make test-js``).

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py freehand
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK

# Strokes drawn with drawStroke on a 400 × 225 canvas (a 16:9 shot), then read back: the alpha
# and colour of chosen pixels, and the box of every painted pixel.
DRAW_JS = """
const [strokes, done] = [arguments[0], arguments[arguments.length - 1]];
import('/app/storyboard/freehand.js').then((freehand) => {
  const width = 400;
  const height = 225;
  done(strokes.map(({ stroke, last, probes }) => {
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#123456';
    freehand.drawStroke(ctx, stroke, { width, height, last });
    const pixels = ctx.getImageData(0, 0, width, height).data;
    const at = (x, y) => {
      const i = (Math.floor(y) * width + Math.floor(x)) * 4;
      return [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]];
    };
    let box = null;
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        if (pixels[(y * width + x) * 4 + 3] === 0) continue;
        box = box ? [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)] : [x, y, x, y];
      }
    }
    return {
      probes: probes.map(([x, y]) => at(x * width, y * height)),
      box,
      fillStyle: ctx.fillStyle,
      alpha: ctx.globalAlpha,
    };
  }));
}).catch((error) => done({ error: String(error && error.stack || error) }));
"""


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


class FreehandTests(BrowserTest):
    def test_freehand_draw_stroke_paints_the_stroke_and_nothing_far_from_it(self):
        line = [[0.1 + 0.8 * i / 40, 0.5, 0.6] for i in range(41)]
        strokes = [
            # A pen line across the middle, about 9 px wide (0.02 of 400 px at pressure 0.6):
            # painted along it, in its colour, fully opaque; nothing above, below or past its ends.
            {"stroke": {"tool": "pen", "color": "#e53935", "width": 0.02, "points": line}, "last": True,
             "probes": [[0.2, 0.5], [0.5, 0.5], [0.85, 0.5], [0.5, 0.2], [0.5, 0.8], [0.02, 0.5], [0.98, 0.5]]},
            # The marker: the same line, translucent (no thinning: 8 px).
            {"stroke": {"tool": "marker", "color": "#1e88e5", "width": 0.02, "points": line}, "last": True,
             "probes": [[0.5, 0.5], [0.5, 0.2]]},
            # One point on the wide shot: a round dot (as tall as wide), 20 px across.
            {"stroke": {"tool": "pen", "color": "#43a047", "width": 0.05, "points": [[0.5, 0.5, 0.5]]}, "last": True,
             "probes": [[0.5, 0.5], [0.5, 0.2]]},
            # A stroke still being drawn, of a pencil, with real pressure.
            {"stroke": {"tool": "pencil", "color": "#111111", "width": 0.02,
                        "points": [[0.3, 0.3 + 0.4 * i / 20, 0.3 + 0.03 * i] for i in range(21)]}, "last": False,
             "probes": [[0.3, 0.5], [0.6, 0.5]]},
        ]
        driver = self.driver(800, 600)
        driver.set_script_timeout(harness.WAIT)
        driver.get(SERVER.base + "/")
        answer = driver.execute_async_script(DRAW_JS, strokes)
        self.assertNotIn("error", answer, answer.get("error") if isinstance(answer, dict) else None)
        pen, marker, dot, pencil = answer

        # The pen: red where the line is, transparent elsewhere; the context left as it was.
        for probe in pen["probes"][:3]:
            self.assertEqual(probe, [0xE5, 0x39, 0x35, 255], f"pen pixels on the line: {pen['probes']}")
        for probe in pen["probes"][3:]:
            self.assertEqual(probe[3], 0, f"pen pixels off the line: {pen['probes']}")
        left, top, right, bottom = pen["box"]
        self.assertLessEqual(abs(left - 35), 2, pen["box"])  # 40 px in, less the 4.5 px cap
        self.assertLessEqual(abs(right - 364), 2, pen["box"])
        self.assertLessEqual(abs(top - 108), 2, pen["box"])  # 112.5 px down, ± 4.5 px
        self.assertLessEqual(abs(bottom - 116), 2, pen["box"])
        self.assertEqual(pen["fillStyle"], "#123456")
        self.assertEqual(pen["alpha"], 1)

        # The marker: its colour, about 40 % opaque.
        on = marker["probes"][0]
        self.assertTrue(80 <= on[3] <= 125, f"marker alpha {on}")
        self.assertEqual(marker["probes"][1][3], 0)

        # The dot: round on a wide shot, 20 px across, centred.
        left, top, right, bottom = dot["box"]
        self.assertLessEqual(abs((right - left) - (bottom - top)), 1, dot["box"])
        self.assertLessEqual(abs((right - left + 1) - 20), 2, dot["box"])
        self.assertEqual(dot["probes"][0][3], 255)
        self.assertEqual(dot["probes"][1][3], 0)

        # The pencil: painted, a little translucent (greyer), only near its line.
        self.assertTrue(150 <= pencil["probes"][0][3] <= 230, f"pencil {pencil['probes']}")
        self.assertEqual(pencil["probes"][1][3], 0)
        left, top, right, bottom = pencil["box"]
        self.assertLessEqual(right - left, 12, pencil["box"])
