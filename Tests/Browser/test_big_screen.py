#!/usr/bin/python3
"""The big screen of a session (``/s/{code}/screen``): what the console's "Big screen" button opens
on the projector. Content only, no join gate for the presenter's own browser, not counted as a
viewer; it follows the slides, shows the join info when the presenter presents it (J), and the
spotlight with nothing on top. The console's own join overlay fits its stage at 1280x720 and
1440x900.

State read here: ``<body data-idle data-connection>`` and ``#idle[data-requested]`` on the screen;
``#big-screen[data-opened]`` (placed, window, blocked) and ``#big-screen-hint`` on the console;
``#present-join[aria-pressed]``, ``#join-screen`` and ``#viewer-count`` on the console.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py big_screen
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot
stage_attr = harness.stage_attr
text_of = harness.text_of


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def body_data(driver, name):
    return driver.execute_script("return document.body.dataset[arguments[0]] ?? null", name)


def attr(driver, css, name):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name)


def rect(driver, css):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return null;"
        "const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,"
        " width: r.width, height: r.height};", css)


def overlaps(a, b):
    return a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5 and a["top"] < b["bottom"] - 0.5 and b["top"] < a["bottom"] - 0.5


def inside(inner, outer):
    return (inner["left"] >= outer["left"] - 0.5 and inner["top"] >= outer["top"] - 0.5
            and inner["right"] <= outer["right"] + 0.5 and inner["bottom"] <= outer["bottom"] + 0.5)


def console_sound(driver):
    """Whether the console's video screen would play sound (its own module instance, by URL)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/app/media/video-stage.js').then((m) => done(m.mountVideo({ container: document.getElementById('stage-wrap') }).wantsSound));")


# A second socket of the presenter, from the console's page (its cookie): opens a poll and puts its
# chart on screen, whatever the console's poll panel looks like.
SPOTLIGHT_JS = """
const [code, done] = [arguments[0], arguments[arguments.length - 1]];
const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/api/v1/sessions/' + code + '/live');
const id = () => 'bs-' + Math.random().toString(36).slice(2);
let step = 0;
ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', role: 'presenter' }));
ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (msg.type === 'welcome') {
    ws.send(JSON.stringify({ type: 'openPoll', id: id(), poll: { kind: 'choice', question: 'Which planet is largest?', choices: ['Mars', 'Jupiter', 'Venus'] } }));
  } else if (msg.type === 'ack' && step === 0) {
    step = 1;
    ws.send(JSON.stringify({ type: 'spotlight', id: id(), spotlight: { kind: 'pollResults', pollId: msg.seq } }));
  } else if (msg.type === 'ack' && step === 1) {
    ws.close();
    done('ok');
  } else if (msg.type === 'error') {
    done('error ' + msg.code);
  }
};
"""


class BigScreenTests(BrowserTest):
    def open_screen(self, driver, code):
        driver.get(f"{SERVER.base}/s/{code}/screen")
        wait_for(driver, lambda d: visible(d, "#projector") and body_data(d, "connection") == "live", "the big screen")

    def join_overlay_fits(self, presenter, width, height):
        """The console's join overlay (J) at this size: on the stage, over neither the thumbnail
        strip nor the toolbar, and its QR code and join code whole inside it."""
        harness.size_driver(presenter, width, height)
        wait_for(presenter, lambda d: d.execute_script("return innerWidth") == width, f"the console at {width}x{height}")
        wait_for(presenter, lambda d: visible(d, "#join-screen"), "the console's join overlay")
        harness.wait_settled(presenter)
        overlay = rect(presenter, "#join-screen")
        stage = rect(presenter, "#stage-wrap")
        self.assertTrue(inside(overlay, stage), f"the overlay is the stage's at {width}x{height}: {overlay} vs {stage}")
        for part in ("#join-screen .qr-box", "#join-screen .join-code-huge", "#join-screen .join-host", "#join-screen .join-text"):
            box = rect(presenter, part)
            self.assertGreater(box["width"], 0, part)
            self.assertTrue(inside(box, overlay), f"{part} inside the overlay at {width}x{height}: {box} vs {overlay}")
            for other in ("#thumbs", "#controls", ".console-bar"):
                if visible(presenter, other):
                    self.assertFalse(overlaps(box, rect(presenter, other)), f"{part} runs over {other} at {width}x{height}")
        qr = rect(presenter, "#join-screen .qr-box")
        self.assertGreaterEqual(qr["width"], 150, f"a QR code people can scan at {width}x{height}")
        self.assertTrue(presenter.execute_script(
            "const i = document.getElementById('join-screen-qr'); return i.complete && i.naturalWidth > 0"), "the QR code drawn")
        screenshot(presenter, f"big-screen-console-join-{width}x{height}")

    def test_1_the_big_screen_follows_the_console_and_is_not_a_viewer(self):
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)

        # The console's button opens the screen in a window of its own (headless Chromium has one
        # display: the plain window, and the hint says how to move it by hand).
        console = presenter.current_window_handle
        presenter.find_element(By.ID, "big-screen").click()
        wait_for(presenter, lambda d: len(d.window_handles) == 2, "the big screen's window")
        self.assertEqual(attr(presenter, "#big-screen", "data-opened"), "window")
        hint = wait_for(presenter, lambda d: visible(d, "#big-screen-hint"), "the hint under the button")
        self.assertIn("press F", hint.text)
        self.assertIn("projector", hint.text)
        self.assertFalse(overlaps(rect(presenter, "#big-screen-hint"), rect(presenter, "#big-screen")), "the hint leaves the button visible")
        screenshot(presenter, "big-screen-console-hint")
        popup = next(handle for handle in presenter.window_handles if handle != console)
        presenter.switch_to.window(popup)
        try:
            wait_for(presenter, lambda d: d.current_url.endswith(f"/s/{code}/screen"), "the screen's address")
            wait_for(presenter, lambda d: visible(d, "#projector") and body_data(d, "connection") == "live",
                     "the screen opened from the console, without a gate")
            self.assertFalse(visible(presenter, "#gate"))
            # One sound: while the screen is open in this browser, the console's video is quiet.
            presenter.switch_to.window(console)
            wait_for(presenter, lambda d: console_sound(d) is False, "the console's video quiet while the screen is open")
            presenter.switch_to.window(popup)
        finally:
            presenter.close()
            presenter.switch_to.window(console)
        wait_for(presenter, lambda d: console_sound(d) is True, "the console's sound back once the screen is closed")
        presenter.find_element(By.CSS_SELECTOR, "#big-screen-hint .big-screen-hint-close").click()
        wait_for(presenter, lambda d: not visible(d, "#big-screen-hint"), "the hint closed")

        # The projector machine: the presenter's browser (cookie), no join gate, no name. Idle:
        # before the first slide is shown, the join code and QR code, large.
        screen = self.driver(1920, 1080)
        self.sign_in_with_cookie(screen)
        self.open_screen(screen, code)
        self.assertFalse(visible(screen, "#gate"), "no join gate on the presenter's own screen")
        wait_for(screen, lambda d: visible(d, "#idle"), "the join screen while idle")
        self.assertEqual(text_of(screen, "#idle-code"), code)
        wait_for(screen, lambda d: d.execute_script(
            "const i = document.getElementById('idle-qr'); return i.complete && i.naturalWidth > 0"), "the QR code")
        self.assertGreater(rect(screen, "#idle .qr-box")["width"], 400, "a QR code the back row can scan")
        harness.wait_settled(screen)
        screenshot(screen, "big-screen-idle-1920")

        # Not a viewer: a phone joins and the console counts one, not two.
        phone = self.driver(390, 844)
        self.join_as_viewer(phone, code, name="Ana")
        wait_for(presenter, lambda d: text_of(d, "#viewer-count") == "1", "the console to count the phone")
        self.wait_synced(presenter)
        self.assertEqual(text_of(presenter, "#viewer-count"), "1", "the big screen is not counted as a viewer")

        # A slide change reaches the screen, which leaves the join screen for the slide.
        presenter.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        wait_for(screen, lambda d: stage_attr(d, "data-page") == "2" and not visible(d, "#idle"), "slide 2 on the big screen")
        wait_for(screen, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the slide's image")
        self.assertEqual(body_data(screen, "idle"), "false")
        harness.wait_settled(screen)
        screenshot(screen, "big-screen-slide-1920")

        # Present join info (J): on the big screen and over the console's stage; again: off.
        presenter.find_element(By.TAG_NAME, "body").send_keys("j")
        wait_for(screen, lambda d: visible(d, "#idle") and attr(d, "#idle", "data-requested") == "true",
                 "the join info on the big screen, on request")
        wait_for(presenter, lambda d: visible(d, "#join-screen") and attr(d, "#present-join", "aria-pressed") == "true",
                 "the join info on the console")
        harness.wait_settled(screen)
        screenshot(screen, "big-screen-join-info-1920")
        # The console's overlay fits the stage at every size from 1280x720 up.
        self.join_overlay_fits(presenter, 1440, 900)
        self.join_overlay_fits(presenter, 1280, 720)
        harness.size_driver(presenter, 1440, 900)
        presenter.find_element(By.TAG_NAME, "body").send_keys("j")
        wait_for(screen, lambda d: not visible(d, "#idle") and stage_attr(d, "data-page") == "2", "the slide again")
        wait_for(presenter, lambda d: not visible(d, "#join-screen"), "the console's overlay gone")

        # The spotlight: full screen, nothing on top (no poll card, no toolbar) at the chart's centre.
        self.assertEqual(presenter.execute_async_script(SPOTLIGHT_JS, code), "ok")
        wait_for(screen, lambda d: visible(d, "#spotlight .spot-bars"), "the chart on the big screen")
        harness.wait_settled(screen)
        self.assertFalse(screen.find_elements(By.CSS_SELECTOR, "#poll-sheet, .viewer-toolbar, #toolbar"), "no audience controls")
        for part in ("#spotlight .spot-bars", "#spotlight .spot-title"):
            covered = screen.execute_script(
                "const e = document.querySelector(arguments[0]); const r = e.getBoundingClientRect();"
                "const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                "return top && (e === top || e.contains(top)) ? null : (top ? top.outerHTML.slice(0, 120) : 'nothing');", part)
            self.assertIsNone(covered, f"{part} is covered on the big screen by {covered}")
        spot = rect(screen, "#spotlight")
        self.assertEqual((spot["width"], spot["height"]), (1920, 1080), "the spotlight fills the screen")
        screenshot(screen, "big-screen-spotlight-1920")
        self.assertEqual(text_of(presenter, "#viewer-count"), "1", "still one viewer")

    def test_2_someone_elses_screen_asks_for_the_passcode_only(self):
        code = SERVER.start_session(DEMO_DECK["id"], passcode="4711")["code"]
        screen = self.driver(1280, 720)
        screen.get(f"{SERVER.base}/s/{code}/screen")
        wait_for(screen, lambda d: visible(d, "#gate-form") and visible(d, "#passcode"), "the passcode gate")
        self.assertFalse(screen.find_elements(By.ID, "viewer-name"), "no name asked of a screen")
        screenshot(screen, "big-screen-passcode-gate")
        screen.find_element(By.ID, "passcode").send_keys("4711")
        screen.find_element(By.ID, "join-button").click()
        wait_for(screen, lambda d: visible(d, "#projector") and body_data(d, "connection") == "live", "the screen after the passcode")
        wait_for(screen, lambda d: visible(d, "#idle"), "the join screen while idle")
        harness.wait_settled(screen)
        screenshot(screen, "big-screen-idle-1280")

    def test_3_the_window_goes_on_the_other_display_when_the_browser_can_place_it(self):
        """The Window Management API's answer, faked (headless Chromium has one display): with a
        second screen the window opens there, filling it; with one, a plain window; a refusal of
        the permission or a blocked pop-up falls back (blocked: the hint gives the link)."""
        driver = self.driver(1280, 720)
        driver.get(SERVER.base + "/healthz")
        result = driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const main = { availLeft: 0, availTop: 0, availWidth: 1280, availHeight: 800, isPrimary: true };
            const wall = { availLeft: 1280, availTop: 0, availWidth: 1920, availHeight: 1080, isPrimary: false };
            const fake = (details, opens = true) => {
              const calls = [];
              return { calls, screen: { isExtended: details !== null },
                getScreenDetails: details === 'refused' ? () => Promise.reject(new Error('denied')) : () => Promise.resolve(details),
                open: (url, name, features) => { calls.push(features); return opens ? {} : null; } };
            };
            import('/app/sessions/big-screen-button.js').then(async (m) => {
              const two = fake({ screens: [main, wall], currentScreen: main });
              const placed = await m.openBigScreen('/s/X/screen', 'n', two);
              const one = fake(null);
              const plain = await m.openBigScreen('/s/X/screen', 'n', one);
              const refused = fake('refused');
              const fallback = await m.openBigScreen('/s/X/screen', 'n', refused);
              const blocked = await m.openBigScreen('/s/X/screen', 'n', fake(null, false));
              done({ placed: placed.how, placedFeatures: two.calls, plain: plain.how, plainFeatures: one.calls,
                     fallback: fallback.how, blocked: blocked.how });
            }, (e) => done({ error: String(e) }));
            """)
        self.assertEqual(result.get("placed"), "placed", result)
        self.assertEqual(result["placedFeatures"], ["popup,left=1280,top=0,width=1920,height=1080"])
        self.assertEqual(result["plain"], "window")
        self.assertEqual(result["plainFeatures"], ["popup,width=1280,height=720"])
        self.assertEqual(result["fallback"], "window")
        self.assertEqual(result["blocked"], "blocked")

    def test_4_a_rooms_moderator_puts_the_join_code_on_the_projector(self):
        """A room's big screen is its projector: the moderator's switch puts the join info on it
        (over whatever is on stage) and takes it off; the projector is not counted as a viewer."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Join info room"})
        self.assertEqual(status, 201)
        code = room["code"]
        self.assertTrue(room["screenUrl"].endswith(f"/r/{code}/projector"), room["screenUrl"])
        moderator = self.driver(1440, 900)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: body_data(d, "connection") == "live", "the moderator's console")
        projector = self.driver(1280, 720)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle") and body_data(d, "connection") == "live", "the projector, idle")
        self.assertEqual(attr(projector, "#idle", "data-requested"), "false")
        switch = moderator.find_element(By.CSS_SELECTOR, 'label[for="join-info"]')
        # Into view inside the side panel (scrollIntoView would scroll the whole console page too).
        moderator.execute_script(
            "const panel = document.getElementById('side-panel');"
            "panel.scrollTop += arguments[0].getBoundingClientRect().top - panel.getBoundingClientRect().top - 120;", switch)
        switch.click()
        wait_for(projector, lambda d: attr(d, "#idle", "data-requested") == "true", "the join info on request")
        wait_for(moderator, lambda d: d.find_element(By.ID, "join-info").is_selected(), "the switch on")
        screenshot(moderator, "big-screen-room-join-switch")
        switch.click()
        wait_for(projector, lambda d: attr(d, "#idle", "data-requested") == "false", "the join info off again")
        self.wait_synced(moderator)
        self.assertEqual(text_of(moderator, "#viewer-count"), "0", "the projector is not a viewer")

    def test_5_the_screen_speaks_the_pseudo_language(self):
        """Every word of the screen's gate and join screen comes from the catalogues (qps wraps
        each message in ⟦ ⟧); Arabic runs right to left with the code left to right."""
        code = SERVER.start_session(DEMO_DECK["id"], passcode="4711")["code"]
        screen = self.driver(1280, 720)
        screen.get(f"{SERVER.base}/s/{code}/screen?lang=qps")
        wait_for(screen, lambda d: visible(d, "#gate-form") and text_of(d, "#gate-error"), "the passcode gate")
        for css in ("#gate .lead span", "#gate .field-label", "#join-button", "#gate-error"):
            self.assertTrue(text_of(screen, css).startswith("⟦"), f"{css}: {text_of(screen, css)!r}")
        self.assertIn("⟦", screen.title)
        screen.find_element(By.ID, "passcode").send_keys("4711")
        screen.find_element(By.ID, "join-button").click()
        wait_for(screen, lambda d: visible(d, "#idle"), "the join screen")
        for text in screen.execute_script("return [...document.querySelectorAll('#idle .join-lead')].map(e => e.textContent)"):
            self.assertTrue(text.startswith("⟦"), text)
        screen.get(f"{SERVER.base}/s/{code}/screen?lang=ar")
        wait_for(screen, lambda d: visible(d, "#idle"), "the join screen in Arabic (the passcode remembered)")
        self.assertEqual(screen.execute_script("return document.documentElement.dir"), "rtl")
        self.assertEqual(screen.execute_script("return getComputedStyle(document.getElementById('idle-code')).direction"), "ltr")
        harness.wait_settled(screen)
        screenshot(screen, "big-screen-idle-arabic")
