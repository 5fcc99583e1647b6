#!/usr/bin/python3
"""Browser tests of the console's presenter view (presenter-view.js, presenter-timer.js): the
current slide, the next slide, the speaker notes large with a size control, the elapsed time, the
talk's countdown and the clock, all on screen at once and none over another at 1280x720,
1440x900 and 1920x1080; the next slide following a page change; the countdown's warnings (its clock moved
forward by the test, never waited for); the poll and question panels still one key away.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py PresenterView

State the tests read: ``<body data-presenter-view>``, ``[data-action=presenter-view][aria-pressed]``,
``#presenter-view[data-notes-size]``, ``#presenter-next[data-page]`` with ``#presenter-next-img``,
``#speaker-notes[data-page][data-empty]`` and ``#speaker-notes-text``,
``[data-role=countdown][data-running][data-level]``, ``[data-role=elapsed][data-seconds]``,
``[data-role=clock]``. The countdown and the elapsed time read ``clock.now()`` of
``/app/sessions/presenter-timer.js``, whose ``skew`` a test moves.
"""

import re
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
text_of = harness.text_of
stage_attr = harness.stage_attr
screenshot = harness.screenshot
wait_settled = harness.wait_settled


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# What a presenter reads at arm's length, each a box of its own.
PARTS = {
    "current slide": "podium-stage",
    "next slide": "#presenter-next-img",
    "notes": "#speaker-notes-text",
    "elapsed": "[data-role=elapsed]",
    "countdown": "[data-role=countdown]",
    "clock": "[data-role=clock]",
}

LAYOUT_JS = """
const out = {};
for (const [name, css] of Object.entries(arguments[0])) {
  const e = document.querySelector(css);
  if (!e) { out[name] = null; continue; }
  const r = e.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  out[name] = { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height,
                shown: e.checkVisibility ? e.checkVisibility({ checkVisibilityCSS: true }) : true,
                onTop: Boolean(hit && (hit === e || e.contains(hit))),
                hit: hit ? hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '') + (hit.className && hit.className.baseVal === undefined ? '.' + String(hit.className).split(' ').join('.') : '') : null };
}
out.viewport = { width: document.documentElement.clientWidth, height: document.documentElement.clientHeight,
                 scrollWidth: document.documentElement.scrollWidth };
return out;
"""

SKEW_JS = """
const done = arguments[arguments.length - 1];
import('/app/sessions/presenter-timer.js').then((m) => { m.clock.skew = arguments[0]; done(true); }, (e) => done(String(e)));
"""


def font_px(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? parseFloat(getComputedStyle(e).fontSize) : 0;", css)


class PresenterViewTests(BrowserTest):
    def assert_laid_out(self, driver, parts=PARTS, sideways=True):
        """Every part shown, inside the window, of a readable size, on top at its centre, and no
        two overlapping (and, unless told, no sideways scrolling)."""
        layout = driver.execute_script(LAYOUT_JS, parts)
        viewport = layout.pop("viewport")
        if sideways:
            self.assertLessEqual(viewport["scrollWidth"], viewport["width"], "no sideways scrolling")
        for name, box in layout.items():
            self.assertIsNotNone(box, f"{name} is on the page")
            self.assertTrue(box["shown"], f"{name} is shown")
            self.assertGreater(box["width"], 60, f"{name} has a width: {box}")
            self.assertGreater(box["height"], 30, f"{name} has a height: {box}")
            self.assertGreaterEqual(box["left"], -0.5, f"{name} starts inside the window: {box}")
            self.assertGreaterEqual(box["top"], -0.5, f"{name} starts inside the window: {box}")
            self.assertLessEqual(box["right"], viewport["width"] + 0.5, f"{name} ends inside the window: {box}")
            self.assertLessEqual(box["bottom"], viewport["height"] + 0.5, f"{name} ends inside the window: {box}")
            self.assertTrue(box["onTop"], f"{name} is not covered at its centre (found {box['hit']})")
        names = list(layout)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                p, q = layout[a], layout[b]
                apart = p["right"] <= q["left"] + 0.5 or q["right"] <= p["left"] + 0.5 or \
                    p["bottom"] <= q["top"] + 0.5 or q["bottom"] <= p["top"] + 0.5
                self.assertTrue(apart, f"{a} {p} and {b} {q} overlap")
        return layout

    def skew(self, driver, ms):
        self.assertIs(driver.execute_async_script(SKEW_JS, ms), True)

    def test_1_layout_next_slide_and_countdown(self):
        """A PDF deck (no notes): the presenter view is off until switched on (V), then the slide,
        the next slide, the notes area, the clocks all fit 1280x720, 1440x900 and 1920x1080 side by side; the
        next slide follows a page change; a countdown warns at 5 and 1 minutes and turns red when
        over, and a reload finds it as it was; Alt+2 still opens the polls."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        driver = self.driver(1280, 720)
        self.sign_in_with_cookie(driver)
        self.open_console(driver, code)
        # A deck without notes, no big screen: the console as it was, with the switch in its bar.
        toggle = wait_for(driver, lambda d: visible(d, "[data-action=presenter-view]"), "the presenter view switch")
        self.assertEqual(toggle.get_attribute("aria-pressed"), "false")
        self.assertFalse(visible(driver, "#presenter-view"))
        self.press(driver, "v")
        wait_for(driver, lambda d: visible(d, "#presenter-view"), "the presenter view, after V")
        self.assertEqual(driver.execute_script("return document.body.dataset.presenterView"), "on")
        self.assertEqual(toggle.get_attribute("aria-pressed"), "true")
        wait_for(driver, lambda d: visible(d, '#speaker-notes[data-empty="true"]'), "the notes area")
        self.assertIn("no speaker notes", text_of(driver, "#speaker-notes-text"))
        wait_for(driver, lambda d: d.execute_script(
            "const i = document.getElementById('presenter-next-img'); return i.complete && i.naturalWidth > 0"),
            "the next slide's picture")
        pages = SERVER.api("GET", f"/api/v1/decks/{DEMO_DECK['id']}")[1]["pages"]

        for width, height in ((1280, 720), (1440, 900), (1920, 1080)):
            harness.size_driver(driver, width, height)
            wait_for(driver, lambda d: d.execute_script("return window.innerWidth") == width, f"a {width} px window")
            wait_settled(driver)
            layout = self.assert_laid_out(driver)
            self.assertGreater(layout["current slide"]["width"], 500, "the current slide stays large")
            for part in ("[data-role=elapsed-value]", "[data-role=clock-value]", "[data-role=countdown-value]"):
                self.assertGreaterEqual(font_px(driver, part), 24, f"{part} readable at arm's length")
            # The side panel's tabs are still one key away, beside the presenter view.
            self.assert_laid_out(driver, {"presenter view": "#presenter-view", "side panel tabs": ".side-tabs"})
            screenshot(driver, f"presenter-view/pdf-{width}x{height}")
        harness.size_driver(driver, 1280, 720)
        wait_for(driver, lambda d: d.execute_script("return window.innerWidth") == 1280, "a 1280 px window again")

        # The next slide follows the page.
        self.assertEqual(driver.find_element(By.ID, "presenter-next").get_attribute("data-page"), "2")
        self.assertEqual(driver.find_element(By.ID, "presenter-next-img").get_attribute("src"), SERVER.base + pages[1]["mediumUrl"])
        self.press(driver, Keys.ARROW_RIGHT)
        wait_for(driver, lambda d: stage_attr(d, "data-page") == "2", "slide 2 on the console")
        wait_for(driver, lambda d: d.find_element(By.ID, "presenter-next").get_attribute("data-page") == "3", "slide 3 up next")
        self.assertEqual(driver.find_element(By.ID, "presenter-next-img").get_attribute("src"), SERVER.base + pages[2]["mediumUrl"])
        self.press(driver, Keys.END)
        wait_for(driver, lambda d: d.find_element(By.ID, "presenter-next").get_attribute("data-page") == "", "nothing after the last")
        self.assertTrue(visible(driver, ".pv-next-end"), "the last slide says so")
        self.press(driver, Keys.HOME)
        wait_for(driver, lambda d: d.find_element(By.ID, "presenter-next").get_attribute("data-page") == "2", "back at the start")

        # The clocks: elapsed since the session started, on the server's clock (an hour later: 1:00:xx).
        self.assertRegex(text_of(driver, "[data-role=elapsed-value]"), r"^\d+:\d\d$")
        self.assertRegex(text_of(driver, "[data-role=clock-value]"), r"\d{1,2}[:.]\d\d")
        self.skew(driver, 3600 * 1000)
        wait_for(driver, lambda d: re.match(r"^1:00:\d\d$", text_of(d, "[data-role=elapsed-value]")), "an hour elapsed")
        self.skew(driver, 0)

        # The countdown: ten minutes, started; moved on to 5, 1 and past 0 minutes left.
        countdown = "[data-role=countdown]"
        minutes = driver.find_element(By.ID, "countdown-minutes")
        minutes.click()
        minutes.send_keys(Keys.CONTROL, "a")
        minutes.send_keys("10", Keys.ENTER)
        wait_for(driver, lambda d: text_of(d, "[data-role=countdown-value]") == "10:00", "a ten-minute countdown")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, countdown).get_attribute("data-running"), "false")
        driver.find_element(By.CSS_SELECTOR, "[data-action=countdown-start]").click()
        wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, countdown).get_attribute("data-running") == "true", "the countdown running")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, countdown).get_attribute("data-level"), "ok")
        ok_colour = driver.execute_script("return getComputedStyle(document.querySelector(arguments[0])).backgroundColor", countdown)
        for skew, level in ((5.5 * 60, "warn"), (9.5 * 60, "final"), (10.5 * 60, "over")):
            self.skew(driver, int(skew * 1000))
            wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, countdown).get_attribute("data-level") == level,
                     f"the countdown's {level} state")
            screenshot(driver, f"presenter-view/countdown-{level}")
        self.assertTrue(text_of(driver, "[data-role=countdown-value]").startswith("+"), "the overtime counts up")
        over = driver.execute_script("return getComputedStyle(document.querySelector(arguments[0])).backgroundColor", countdown)
        self.assertNotEqual(over, ok_colour)
        r, g, b = (int(v) for v in re.findall(r"\d+", over)[:3])
        self.assertGreater(r, g + 20, f"over time is red: {over}")
        wait_for(driver, lambda d: any("Time is up" in t.text for t in d.find_elements(By.CSS_SELECTOR, ".toast")), "the time-up warning")
        # Paused while over, the reload finds it so.
        driver.find_element(By.CSS_SELECTOR, "[data-action=countdown-start]").click()
        wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, countdown).get_attribute("data-running") == "false", "paused")
        paused = text_of(driver, "[data-role=countdown-value]")
        driver.refresh()
        self.open_console(driver, code)
        wait_for(driver, lambda d: visible(d, "#presenter-view"), "the presenter view, still on after a reload")
        wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, countdown).get_attribute("data-level") == "over", "still over after a reload")
        self.assertEqual(text_of(driver, "[data-role=countdown-value]"), paused)
        self.assertEqual(driver.find_element(By.ID, "countdown-minutes").get_attribute("value"), "10")
        driver.find_element(By.CSS_SELECTOR, "[data-action=countdown-reset]").click()
        wait_for(driver, lambda d: text_of(d, "[data-role=countdown-value]") == "10:00", "the countdown reset")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, countdown).get_attribute("data-level"), "ok")

        # The polls, one key away; the presenter view stays.
        ActionChains(driver).key_down(Keys.ALT).send_keys("2").key_up(Keys.ALT).perform()
        wait_for(driver, lambda d: visible(d, "#pane-polls"), "the polls tab after Alt+2")
        self.assert_laid_out(driver, {"presenter view": "#presenter-view", "polls": "#pane-polls"})
        # Switched off, the console is as it was (and stays so).
        self.press(driver, "v")
        wait_for(driver, lambda d: not visible(d, "#presenter-view"), "the presenter view off")
        self.assertEqual(driver.execute_script("return localStorage.getItem('podium.presenterView')"), "off")

    def test_2_office_notes_large_with_a_size_control(self):
        """A PPTX with speaker notes: the presenter view is on by itself, the notes large and
        following the slide, A+ makes them larger (remembered after a reload), and everything still
        fits 1280x720 without overlapping."""
        office = sys.modules.get("test_office")
        if office is None:
            import test_office as office  # noqa: E402
        deck = SERVER.upload(office.corpus() / "slides.pptx", "talk")
        deck = SERVER.wait_ready(deck["id"], timeout=150)
        self.assertEqual(deck["status"], "ready")
        code = SERVER.start_session(deck["id"])["code"]
        driver = self.driver(1280, 720)
        self.sign_in_with_cookie(driver)
        self.open_console(driver, code)
        notes = wait_for(driver, lambda d: visible(d, '#speaker-notes[data-page="1"][data-empty="false"]'), "slide 1's notes")
        self.assertEqual(driver.execute_script("return document.body.dataset.presenterView"), "on")
        self.assertTrue(driver.execute_script("return Boolean(document.querySelector('#presenter-view #speaker-notes'))"),
                        "the notes are in the presenter view")
        self.assertFalse(driver.execute_script("return Boolean(document.querySelector('#join-panel #speaker-notes'))"),
                         "no longer in the Join tab")
        self.assertEqual([p.text for p in driver.find_elements(By.CSS_SELECTOR, "#speaker-notes-text p")],
                         ["Say hello & smile.", "Mention the Wi-Fi code."])
        self.assertIn("Welcome to Podium", notes.find_element(By.TAG_NAME, "h2").get_attribute("textContent"))
        wait_settled(driver)
        self.assert_laid_out(driver)
        size = font_px(driver, "#speaker-notes-text p")
        self.assertGreaterEqual(size, 24, "the notes are large")
        screenshot(driver, "presenter-view/pptx-1280x720")
        screens = sys.modules.get("test_screens")
        if screens is None:
            import test_screens as screens  # noqa: E402
        self.assertEqual(screens.axe_findings(driver), [], "axe-core finds nothing serious in the presenter view")

        # The stage works as ever beside the column: draw a stroke, zoom in and back.
        driver.find_element(By.CSS_SELECTOR, '[data-action="draw"]').click()
        wait_for(driver, lambda d: visible(d, "#ink-bar"), "the ink tools")
        wait_settled(driver)
        stage = driver.find_element(By.CSS_SELECTOR, "podium-stage")
        ActionChains(driver).move_to_element_with_offset(stage, -60, 20).click_and_hold() \
            .move_by_offset(40, 10).move_by_offset(40, -10).move_by_offset(40, 10).release().perform()
        wait_for(driver, lambda d: stage_attr(d, "data-strokes") == "1", "the stroke drawn in the presenter view")
        self.assert_laid_out(driver, {**PARTS, "ink tools": "#ink-bar"})
        screenshot(driver, "presenter-view/pptx-drawing")
        driver.find_element(By.CSS_SELECTOR, '[data-action="draw"]').click()
        wait_for(driver, lambda d: not visible(d, "#ink-bar"), "draw mode off")
        self.press(driver, "+")
        wait_for(driver, lambda d: stage_attr(d, "data-viewport") != "0,0,1,1", "zoomed in")
        self.press(driver, "0")
        wait_for(driver, lambda d: stage_attr(d, "data-viewport") == "0,0,1,1", "the whole slide again")

        driver.find_element(By.CSS_SELECTOR, "[data-action=notes-bigger]").click()
        wait_for(driver, lambda d: font_px(d, "#speaker-notes-text p") > size, "larger notes after A+")
        bigger = font_px(driver, "#speaker-notes-text p")
        driver.find_element(By.CSS_SELECTOR, "[data-action=notes-bigger]").click()
        wait_for(driver, lambda d: font_px(d, "#speaker-notes-text p") > bigger, "larger again")
        biggest = font_px(driver, "#speaker-notes-text p")
        driver.find_element(By.CSS_SELECTOR, "[data-action=notes-smaller]").click()
        wait_for(driver, lambda d: font_px(d, "#speaker-notes-text p") == bigger, "one step back after A-")
        self.assert_laid_out(driver)
        self.assertLess(bigger, biggest)

        self.press(driver, Keys.ARROW_RIGHT)
        wait_for(driver, lambda d: visible(d, '#speaker-notes[data-page="2"][data-empty="true"]'), "slide 2, without notes")
        self.assertEqual(driver.find_element(By.ID, "presenter-next").get_attribute("data-page"), "3")
        self.press(driver, Keys.ARROW_RIGHT)
        wait_for(driver, lambda d: visible(d, '#speaker-notes[data-page="3"][data-empty="false"]'), "slide 3's notes")
        self.assertIn("Überraschung", text_of(driver, "#speaker-notes-text"))
        self.assertEqual(driver.find_element(By.ID, "presenter-next").get_attribute("data-page"), "")

        driver.refresh()
        self.open_console(driver, code)
        wait_for(driver, lambda d: visible(d, '#speaker-notes[data-page="3"]'), "the notes after a reload")
        self.assertEqual(font_px(driver, "#speaker-notes-text p"), bigger, "the size is remembered")
        harness.size_driver(driver, 1440, 900)
        wait_for(driver, lambda d: d.execute_script("return window.innerWidth") == 1440, "a 1440 px window")
        wait_settled(driver)
        # The last slide: in place of the next one, the frame says so.
        self.assert_laid_out(driver, {**PARTS, "next slide": "#presenter-next .pv-next-frame"})
        self.assertTrue(visible(driver, ".pv-next-end"))
        screenshot(driver, "presenter-view/pptx-1440x900")

        # A tablet: the clocks and the notes under the slide (the next slide left out for room).
        harness.size_driver(driver, 820, 1180)
        wait_for(driver, lambda d: d.execute_script("return window.innerWidth") == 820, "an 820 px window")
        wait_settled(driver)
        screenshot(driver, "presenter-view/pptx-820x1180")
        self.assert_laid_out(driver, {name: css for name, css in PARTS.items() if name != "next slide"})
        # A phone: the same, smaller.
        harness.size_driver(driver, 390, 844)
        wait_for(driver, lambda d: d.execute_script("return document.documentElement.clientWidth") == 390, "a 390 px window")
        wait_settled(driver)
        screenshot(driver, "presenter-view/pptx-390x844")
        self.assert_laid_out(driver, {name: css for name, css in PARTS.items() if name != "next slide"})


# The console's bar as a person sees it: every control shown whole inside the window and on top
# at its centre; its name (aria-label or words, shown or for screen readers only).
BAR_JS = """
const bar = document.querySelector('.console-bar');
const W = document.documentElement.clientWidth;
const controls = [];
for (const e of bar.querySelectorAll('a[href], button, .pill')) {
  if (!e.checkVisibility({ visibilityProperty: true })) continue;
  const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  controls.push({ what: e.id || e.dataset.action || e.className, pill: e.classList.contains('pill'), left: r.left, right: r.right, width: r.width,
                  height: r.height, onTop: Boolean(hit && (hit === e || e.contains(hit))),
                  hit: hit ? hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '') : null,
                  name: (e.getAttribute('aria-label') || e.textContent).trim() });
}
return { width: W, scrollWidth: document.documentElement.scrollWidth, barScroll: bar.scrollWidth,
         barWidth: bar.clientWidth, controls };
"""

# The name of an icon-only button of the bar, shown beside it while it has the keyboard's focus.
TIP_JS = """
const label = document.querySelector(arguments[0]).querySelector('.btn-label');
const r = label.getBoundingClientRect();
const s = getComputedStyle(label);
return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height,
         clipped: s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)',
         text: label.textContent.trim(), W: document.documentElement.clientWidth, H: document.documentElement.clientHeight };
"""

BAR_SIZES = ((390, 844), (820, 1180), (1280, 720), (1440, 900), (1920, 1080))


class ConsoleBarTests(BrowserTest):
    def assert_bar_fits(self, driver, where):
        bar = driver.execute_script(BAR_JS)
        self.assertLessEqual(bar["scrollWidth"], bar["width"], f"{where}: no sideways scrolling: {bar}")
        self.assertLessEqual(bar["barScroll"], bar["barWidth"], f"{where}: the bar holds its controls: {bar}")
        for c in bar["controls"]:
            self.assertGreaterEqual(c["left"], -0.5, f"{where}: {c['what']} starts inside the window: {c}")
            self.assertLessEqual(c["right"], bar["width"] + 0.5, f"{where}: {c['what']} ends inside the window: {c}")
            # A button squeezed by its neighbours (the lock was once 27 px wide) is cut, not fitted.
            self.assertGreaterEqual(c["width"], 24 if c["pill"] else 40, f"{where}: {c['what']} keeps its size: {c}")
            self.assertTrue(c["onTop"], f"{where}: {c['what']} is not covered at its centre: {c}")
            self.assertTrue(c["name"], f"{where}: {c['what']} has a name: {c}")
        names = {c["what"] for c in bar["controls"]}
        # (On a phone the viewers' lock is the switch in the join panel, behind the code: below.)
        for needed in ("end-session", "presenter-view", "viewer-pill", "connection") + (("lock",) if bar["width"] > 640 else ()):
            self.assertIn(needed, names, f"{where}: {needed} in the bar: {bar}")
        return bar

    def resize(self, driver, width, height):
        harness.size_driver(driver, width, height)
        wait_for(driver, lambda d: d.execute_script("return document.documentElement.clientWidth") <= width
                 and d.execute_script("return window.innerWidth") == width, f"a {width} px window")
        wait_settled(driver)

    def test_1_bar_fits_every_width_live_and_ended(self):
        """The console's bar (Presenter view, Live, viewers, Big screen, Viewers follow me, End
        session) fits a phone, a tablet, a laptop and a projector, in English and in German, live
        and once ended (when the lock says "Viewers browse freely"): no sideways scrolling, every
        control whole and on top. An icon-only button shows its name while it has the focus."""
        for lang in ("en", "de"):
            code = SERVER.start_session(DEMO_DECK["id"])["code"]
            driver = self.driver(1440, 900)
            self.sign_in_with_cookie(driver)
            driver.get(f"{SERVER.base}/present/{code}?lang={lang}")
            wait_for(driver, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the console")
            harness.wait_translated(driver)
            for width, height in BAR_SIZES:
                self.resize(driver, width, height)
                screenshot(driver, f"console-bar/{lang}-live-{width}x{height}")
                self.assert_bar_fits(driver, f"{lang} live at {width}x{height}")
                if width in (390, 820):
                    # Tab from the back link onto an icon-only button: its name shows beside it.
                    target = "[data-action=presenter-view]" if width == 390 else "[data-action=lock]"
                    driver.execute_script("document.querySelector('.console-bar a').focus()")
                    for _ in range(12):
                        ActionChains(driver).send_keys(Keys.TAB).perform()
                        if driver.execute_script("return document.activeElement.matches(arguments[0])", target):
                            break
                    self.assertTrue(driver.execute_script("return document.activeElement.matches(arguments[0])", target), target)
                    tip = driver.execute_script(TIP_JS, target)
                    screenshot(driver, f"console-bar/{lang}-focused-{width}x{height}")
                    self.assertFalse(tip["clipped"], f"{target}'s name shows on focus: {tip}")
                    self.assertTrue(tip["text"], tip)
                    self.assertGreater(tip["width"], 30, tip)
                    self.assertGreaterEqual(tip["left"], 0, f"the name inside the window: {tip}")
                    self.assertLessEqual(tip["right"], tip["W"], f"the name inside the window: {tip}")
                    self.assertLessEqual(driver.execute_script(
                        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"), 0,
                        "the name does not widen the page")
                    driver.execute_script("document.activeElement.blur()")
                if width == 390:
                    # The lock on a phone: the switch in the join panel, one tap on the code away.
                    driver.find_element(By.ID, "code-chip").click()
                    switch = wait_for(driver, lambda d: visible(d, "#follow-lock"), "the lock's switch in the join panel")
                    self.assertTrue(switch.is_enabled())
                    wait_settled(driver)
                    screenshot(driver, f"console-bar/{lang}-join-panel-{width}x{height}")
                    # Its Close is not under the tabs (in German they once ran over it).
                    self.assertTrue(driver.execute_script(
                        "const e = document.getElementById('close-join'), r = e.getBoundingClientRect();"
                        "return e.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2))"),
                        "the join panel's Close is on top")
                    driver.find_element(By.ID, "close-join").click()
                    wait_for(driver, lambda d: not visible(d, "#follow-lock"), "the join panel closed")
            status, _ = SERVER.api("POST", f"/api/v1/sessions/{code}/end")
            self.assertIn(status, (200, 204))
            wait_for(driver, lambda d: visible(d, "#ended-overlay"), "the console's ended notice")
            for width, height in BAR_SIZES:
                self.resize(driver, width, height)
                screenshot(driver, f"console-bar/{lang}-ended-{width}x{height}")
                self.assert_bar_fits(driver, f"{lang} ended at {width}x{height}")
                if width == 390:
                    # The thumbnail strip scrolls here: the keyboard still reaches it (one Tab stop,
                    # the arrows move along it), though its slides no longer change the page.
                    strip = driver.execute_script(
                        "const s = document.getElementById('thumbs');"
                        "return { scrolls: s.scrollWidth > s.clientWidth,"
                        "  stops: [...s.querySelectorAll('.thumb')].filter((b) => b.tabIndex === 0 && !b.disabled).length,"
                        "  disabled: s.querySelectorAll('.thumb[aria-disabled=true]').length }")
                    self.assertTrue(strip["scrolls"], strip)
                    self.assertEqual(strip["stops"], 1, f"one Tab stop in the strip once ended: {strip}")
                    self.assertEqual(strip["disabled"], 6, strip)
                    driver.execute_script("document.querySelector('#thumbs .thumb[tabindex=\"0\"]').focus()")
                    ActionChains(driver).send_keys(Keys.END).perform()
                    self.assertEqual(driver.execute_script("return document.activeElement.dataset.page"), "6")
                    self.assertEqual(stage_attr(driver, "data-page"), "1", "the slide stays")
            self.release(driver)
