#!/usr/bin/python3
"""Every page at the four sizes people use (phone, tablet, laptop, projector), with a screenshot of
each in ``test-artifacts/screenshots/screens/`` and axe-core's accessibility checks (WCAG 2.2 A
and AA); and the viewer's notes staying on the slide they were started on.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py screens notes_stay
"""

import sys
import time

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
screenshot = harness.screenshot

SIZES = {"phone": (390, 844), "tablet": (820, 1180), "laptop": (1440, 900), "projector": (1920, 1080)}
# What axe-core checks: WCAG 2.0, 2.1 and 2.2 at levels A and AA.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
FAIL_ON = ("serious", "critical")


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def attr(driver, css, name):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name)


def axe_findings(driver):
    """axe-core's serious and critical findings on the page as it is now, one line each."""
    started = time.monotonic()
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(harness.AXE_JS.read_text())
    harness.profiled("(axe-core: injected)", started)
    started = time.monotonic()
    result = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        axe.run(document, { runOnly: { type: 'tag', values: arguments[0] }, resultTypes: ['violations'] })
          .then((r) => done(r.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + (n.failureSummary ? ' — ' + n.failureSummary.split('\\n').slice(1, 2).join('') : '')),
          }))))
          .catch((e) => done([{ id: 'axe-error', impact: 'critical', help: String(e), nodes: [] }]));
        """, AXE_TAGS)
    harness.profiled("(axe-core: run)", started)
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(v["nodes"]) for v in result if v["impact"] in FAIL_ON]


def luminance(rgb):
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


FOCUS_JS = """
const e = document.activeElement;
if (!e || e === document.body) return null;
const rgb = (text) => (text.match(/\\d+(\\.\\d+)?/g) || []).slice(0, 3).map(Number);
let bg = null;  // the first opaque background behind the control
for (let n = e.parentElement; n; n = n.parentElement) {
  const c = getComputedStyle(n).backgroundColor;
  if (c && !c.startsWith('rgba(0, 0, 0, 0)') && c !== 'transparent') { bg = rgb(c); break; }
}
const style = getComputedStyle(e);
return { tag: e.tagName, outline: rgb(style.outlineColor), width: parseFloat(style.outlineWidth), style: style.outlineStyle,
         background: bg || [255, 255, 255] };
"""


COVERED_JS = """
// How many pixels of the slide on show the given elements cover (0: none), counting only what is
// visible (a panel slid off screen or hidden covers nothing).
const img = document.querySelector('podium-stage img.current');
if (!img) return -1;
const slide = img.getBoundingClientRect();
let covered = 0;
for (const selector of arguments[0]) {
  for (const e of document.querySelectorAll(selector)) {
    const style = getComputedStyle(e);
    if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    const r = e.getBoundingClientRect();
    const w = Math.min(r.right, slide.right, innerWidth) - Math.max(r.left, slide.left, 0);
    const h = Math.min(r.bottom, slide.bottom, innerHeight) - Math.max(r.top, slide.top, 0);
    if (w > 1 && h > 1) covered += w * h;
  }
}
return Math.round(covered);
"""


class ScreensTests(BrowserTest):
    """One test per size: each page is opened, screenshot and checked by axe-core."""

    @classmethod
    def setUpClass(cls):
        cls.session = None
        cls.room = None

    def fixtures(self):
        """A live session and a room: made once per class."""
        cls = type(self)
        if cls.session is None:
            cls.session = SERVER.start_session(DEMO_DECK["id"], passcode=None)
            status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Screens room"})
            self.assertEqual(status, 201, room)
            cls.room = room
        return cls.session["code"], cls.room["code"]

    def check(self, driver, name, size, findings):
        screenshot(driver, f"screens/{name}-{size}")
        found = axe_findings(driver)
        findings += [f"{name} at {size}: {line}" for line in found]
        # Nothing may stick out sideways: a page that scrolls horizontally on a phone is broken.
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if overflow > 1:
            findings.append(f"{name} at {size}: the page is {overflow}px wider than the screen")

    def visit_every_page(self, size):
        self.assertTrue(harness.AXE_JS.is_file(), f"axe-core is missing at {harness.AXE_JS}: run scripts/setup --test")
        session_code, room_code = self.fixtures()
        width, height = SIZES[size]
        findings = []

        visitor = self.driver(width, height)
        visitor.get(SERVER.base + "/")
        wait_for(visitor, lambda d: visible(d, "#code"), "the home page")
        self.check(visitor, "home", size, findings)
        visitor.get(SERVER.base + "/login")
        wait_for(visitor, lambda d: visible(d, "#email"), "the sign-in page")
        self.check(visitor, "login", size, findings)
        visitor.get(f"{SERVER.base}/s/{session_code}")
        wait_for(visitor, lambda d: visible(d, "#gate-form"), "the join gate")
        self.check(visitor, "join", size, findings)
        self.join_as_viewer(visitor, session_code, name="Ines")
        harness.wait_settled(visitor)
        self.check(visitor, "viewer", size, findings)
        # The viewer's bar sits beside or under the slide, never over it (it covered it on a tablet).
        covered = visitor.execute_script(COVERED_JS, ["#watch-bar"])
        if covered:
            findings.append(f"viewer at {size}: the bottom bar covers {covered} px² of the slide")

        host = self.driver(width, height)
        self.sign_in_with_cookie(host)
        host.get(SERVER.base + "/library")
        wait_for(host, lambda d: d.find_elements(By.CSS_SELECTOR, ".deck-card"), "the library")
        self.check(host, "library", size, findings)
        host.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}")
        wait_for(host, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the rehearsal")
        self.check(host, "rehearsal", size, findings)
        self.open_console(host, session_code)
        harness.wait_settled(host)
        self.check(host, "console", size, findings)
        # The side panel and the controls sit beside the slide; on a narrow screen the panel opens
        # on demand, over the stage, and is closed to start with.
        covered = host.execute_script(COVERED_JS, ["#join-panel", "#controls", "#thumbs", ".console-bar"])
        if covered:
            findings.append(f"console at {size}: the side panel or the controls cover {covered} px² of the slide")
        host.get(f"{SERVER.base}/s/{session_code}/screen")
        wait_for(host, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the big screen")
        self.check(host, "session-screen", size, findings)
        host.get(f"{SERVER.base}/r/{room_code}/moderate")
        wait_for(host, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the room console")
        self.check(host, "room-moderator", size, findings)
        host.get(f"{SERVER.base}/r/{room_code}/projector")
        wait_for(host, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the projector")
        self.check(host, "room-projector", size, findings)
        visitor.get(f"{SERVER.base}/r/{room_code}")
        wait_for(visitor, lambda d: visible(d, "#gate-form"), "the presenter's gate of the room")
        self.check(visitor, "room-presenter-gate", size, findings)
        host.get(f"{SERVER.base}/report.html?code={session_code}")
        wait_for(host, lambda d: attr(d, "main#report", "data-state") == "ready", "the report")
        self.check(host, "report", size, findings)

        self.assertEqual(findings, [], "\n  ".join(["accessibility or layout findings:"] + findings))

    def test_screens_phone(self):
        self.visit_every_page("phone")

    def test_screens_tablet(self):
        self.visit_every_page("tablet")

    def test_screens_laptop(self):
        self.visit_every_page("laptop")

    def test_screens_projector(self):
        self.visit_every_page("projector")


class ScreenDetailsTests(BrowserTest):
    """Notes, the shortcuts list and the focus ring: small things, one server."""

    def test_a_note_begun_while_the_notes_still_load_keeps_its_slide(self):
        """On a slow server the viewer's notes load late: a note typed before they arrive, across
        a slide change, stays on its slide when they come (seen once on a loaded machine)."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        # The page's first GET of its notes answers 3 s late (the page's own fetch, held).
        # (The pool hands this browser to later tests: the script is taken off at the end.)
        added = viewer.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            const fetchNow = window.fetch;
            let held = false;
            window.fetch = (url, init) => {
                const get = !init || !init.method || init.method === 'GET';
                if (!held && get && String(url).endsWith('/notes')) {
                    held = true;
                    window.__notesHeld = 'waiting';
                    return new Promise((done) => setTimeout(done, 3000))
                        .then(() => { window.__notesHeld = 'answered'; return fetchNow(url, init); });
                }
                return fetchNow(url, init);
            };"""})
        try:
            self.join_as_viewer(viewer, code, name="Noor")
            viewer.find_element(By.ID, "notes-button").click()
            field = wait_for(viewer, lambda d: visible(d, "#notes-text"), "the notes panel")
            self.assertEqual(viewer.execute_script("return window.__notesHeld"), "waiting")
            field.send_keys("Begun before the notes came")
            self.press(presenter, Keys.ARROW_RIGHT)
            wait_for(viewer, lambda d: harness.stage_attr(d, "data-page") == "2", "the viewer on slide 2")
            wait_for(viewer, lambda d: d.execute_script("return window.__notesHeld") == "answered",
                     "the notes answered")
            wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-behind") == "2", "the notice of slide 2")
            self.assertEqual(attr(viewer, "#notes-panel", "data-page"), "1")
            self.assertEqual(field.get_attribute("value"), "Begun before the notes came")
        finally:
            viewer.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})

    def test_notes_stay_on_the_slide_they_were_started_on(self):
        """A note typed while the presenter changes slide stays whole, on the slide it was started on."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, name="Nia")

        viewer.find_element(By.ID, "notes-button").click()
        field = wait_for(viewer, lambda d: visible(d, "#notes-text"), "the notes panel")
        field.send_keys("The opening question was")
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(viewer, lambda d: harness.stage_attr(d, "data-page") == "2", "the viewer on slide 2")
        field.send_keys(" about measuring twice")
        # The panel stays on slide 1, with the whole sentence, and says where the presenter is.
        wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-behind") == "2", "the notice of slide 2")
        self.assertEqual(attr(viewer, "#notes-panel", "data-page"), "1")
        self.assertEqual(field.get_attribute("value"), "The opening question was about measuring twice")
        wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-state") == "saved", "the note saved")
        screenshot(viewer, "viewer-notes-behind")

        # Going to the slide on show: an empty note for slide 2.
        viewer.find_element(By.CSS_SELECTOR, '[data-action="notes-follow"]').click()
        wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-page") == "2", "the panel on slide 2")
        self.assertEqual(field.get_attribute("value"), "")
        self.assertIsNone(attr(viewer, "#notes-panel", "data-behind"))

        # The export: the whole note under slide 1's heading, with the slide's title.
        result = viewer.execute_async_script(
            "const done = arguments[1]; fetch(arguments[0]).then(async (r) => done({status: r.status, text: await r.text()}));",
            f"/api/v1/sessions/{code}/notes.md")
        self.assertEqual(result["status"], 200, result)
        heading = next((line for line in result["text"].splitlines() if line.startswith("## Slide 1")), None)
        self.assertIsNotNone(heading, result["text"])
        self.assertNotEqual(heading.strip(), "## Slide 1: Slide 1", "the heading names the slide by its title")
        self.assertIn("The opening question was about measuring twice", result["text"])
        self.assertNotIn("## Slide 2", result["text"])

    def test_question_mark_lists_the_keys(self):
        """`?` lists every key of the console, read from its controls; Escape closes the list."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        self.press(presenter, "?")
        dialog = wait_for(presenter, lambda d: visible(d, "dialog.shortcuts-dialog"), "the shortcuts dialog")
        keys = {row.get_attribute("data-keys") for row in dialog.find_elements(By.CSS_SELECTOR, ".shortcut-row")}
        for expected in ("ArrowRight", "ArrowLeft", "B", "W", "L", "F", "D", "?"):
            self.assertIn(expected, keys)
        self.assertIn("Next", dialog.text)
        for expected in ("J", "Alt+1", "Alt+3"):  # the join screen and the side panel's tabs
            self.assertIn(expected, keys)
        screenshot(presenter, "console-shortcuts")
        self.press(presenter, Keys.ESCAPE)
        wait_for(presenter, lambda d: not visible(d, "dialog.shortcuts-dialog"), "the dialog closed")
        # The keys listed do what they say: J shows the join screen, Alt+3 the questions.
        self.press(presenter, "j")
        wait_for(presenter, lambda d: visible(d, "#join-screen"), "the join screen on J")
        self.press(presenter, Keys.ESCAPE)
        wait_for(presenter, lambda d: not visible(d, "#join-screen"), "the join screen closed")
        ActionChains(presenter).key_down(Keys.ALT).send_keys("3").key_up(Keys.ALT).perform()
        wait_for(presenter, lambda d: attr(d, "#tab-questions", "aria-selected") == "true", "the questions tab on Alt+3")
        # Typing a question mark in a text field types it: no dialog.
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, name="Quin")
        viewer.find_element(By.ID, "notes-button").click()
        field = wait_for(viewer, lambda d: visible(d, "#notes-text"), "the notes panel")
        field.send_keys("why?")
        self.assertEqual(field.get_attribute("value"), "why?")
        self.assertFalse(visible(viewer, "dialog.shortcuts-dialog"))

    def test_focus_ring_stands_out_on_light_and_dark_pages(self):
        """The keyboard focus ring has at least 3:1 against the page behind it, light or dark."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        for name, url in (("home", "/"), ("console", f"/present/{code}")):
            presenter.get(SERVER.base + url)
            wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, "button, a"), f"the {name} page")
            # The page shows (and takes the focus) once its messages are in (app/core/i18n.js).
            wait_for(presenter, lambda d: d.execute_script("return !document.documentElement.classList.contains('i18n-pending')"),
                     f"the {name} page's messages")
            self.press(presenter, Keys.TAB)
            ring = wait_for(presenter, lambda d: d.execute_script(FOCUS_JS), f"a focused control on the {name} page")
            self.assertEqual(ring["style"], "solid", ring)
            self.assertGreaterEqual(ring["width"], 2, ring)
            self.assertGreaterEqual(contrast(ring["outline"], ring["background"]), 3, f"{name}: {ring}")
        screenshot(presenter, "console-focus-ring")

    def test_screen_readers_hear_slides_and_polls_and_motion_can_be_reduced(self):
        """The slide number and a new poll are in live regions; with reduced motion asked for,
        nothing slides or fades."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        viewer.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        self.join_as_viewer(viewer, code, name="Rae")
        live_text = """
            const e = document.querySelector(arguments[0]);
            if (!e) return null;
            const region = e.closest('[aria-live]');
            return region && region.getAttribute('aria-live') !== 'off' ? e.textContent.trim() : null;"""
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(viewer, lambda d: (d.execute_script(live_text, "#watch-page") or "").startswith("Slide 2"),
                 "the new slide number in a live region")
        # A poll arrives: its sheet is a live region that says the question.
        presenter.find_element(By.ID, "tab-polls").click()
        wait_for(presenter, lambda d: visible(d, '[data-action="ask-adhoc"]'), "Ask a question").click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor").send_keys("Ready for a break?")
        choices = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        choices[0].send_keys("Yes")
        choices[1].send_keys("No")
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(viewer, lambda d: "Ready for a break?" in (d.execute_script(live_text, "#poll-sheet .poll-question") or ""),
                 "the poll's question in a live region")
        # Reduced motion: transitions and animations take no time.
        longest = viewer.execute_script("""
            let longest = 0;
            for (const e of document.querySelectorAll('*')) {
              const s = getComputedStyle(e);
              for (const d of (s.transitionDuration + ',' + s.animationDuration).split(',')) longest = Math.max(longest, parseFloat(d) || 0);
            }
            return longest;""")
        self.assertLess(longest, 0.01, "a transition or animation still runs with reduced motion asked for")
