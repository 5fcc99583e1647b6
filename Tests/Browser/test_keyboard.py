#!/usr/bin/python3
"""The keyboard and small things of issue 36: the console's thumbnail strip is one Tab stop whose
arrows move the focus (not the slide), the side panel's shortcuts (Alt+1…4) take the focus into
the panel they open (session console and a room's moderator), the shortcut help draws every key,
and the sign-in form takes the admin's user name.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py keyboard
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
screenshot = harness.screenshot
stage_attr = harness.stage_attr
text_of = harness.text_of


def setUpModule():
    if not harness.DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# What has the focus: its id, its thumbnail's page, which strip or pane it is in, and whether a
# person sees it (its centre on screen and not covered by something else).
FOCUSED_JS = """
const e = document.activeElement;
if (!e || e === document.body) return null;
const r = e.getBoundingClientRect();
const x = r.left + r.width / 2, y = r.top + r.height / 2;
const top = document.elementFromPoint(x, y);
const pane = e.closest('[role=tabpanel]');
return {
  id: e.id, tag: e.tagName.toLowerCase(), text: (e.textContent || '').trim().slice(0, 60),
  page: e.classList.contains('thumb') ? e.dataset.page : null,
  inStrip: Boolean(e.closest('#thumbs')), pane: pane ? pane.id : null,
  shown: r.width > 0 && r.height > 0 && x >= 0 && y >= 0 && x <= innerWidth && y <= innerHeight
    && Boolean(top) && (top === e || e.contains(top)),
};
"""

# Every slide the stage goes to from now on (each change once).
RECORD_PAGES_JS = """
const stage = document.querySelector('podium-stage');
window.__pagesShown = [];
let last = stage.dataset.page;
new MutationObserver(() => {
  if (stage.dataset.page !== last) window.__pagesShown.push(last = stage.dataset.page);
}).observe(stage, { attributes: true, attributeFilter: ['data-page'] });
"""


def focused(driver):
    return driver.execute_script(FOCUSED_JS)


class KeyboardTests(BrowserTest):
    """The console's strip and panels by keyboard, the shortcut help, the sign-in name."""

    def tab_to_strip(self, driver, limit=80):
        """Presses Tab from the top of the page until the focus is in the thumbnail strip."""
        driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
        for _ in range(limit):
            self.press(driver, Keys.TAB)
            now = focused(driver)
            if now and now["inStrip"]:
                return now
        self.fail(f"Tab never reached the thumbnail strip in {limit} presses")

    def test_thumbnail_strip_is_one_tab_stop_with_arrows_inside(self):
        """Tab enters the strip once, on the slide on show, and leaves it with one more Tab; the
        arrows, Home and End move the focus along it without changing slide; Enter and Space go
        to the focused slide."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        pages = len(presenter.find_elements(By.CSS_SELECTOR, "#thumbs .thumb"))
        self.assertGreaterEqual(pages, 4, "the demo deck has slides to move along")

        # One Tab stop: in on slide 1 (the one on show), out with the next Tab, back with Shift+Tab.
        entered = self.tab_to_strip(presenter)
        self.assertEqual(entered["page"], "1", f"Tab lands on the slide on show: {entered}")
        self.assertTrue(entered["shown"], f"the focused thumbnail is on screen: {entered}")
        stops = presenter.execute_script(
            "return [...document.querySelectorAll('#thumbs .thumb')].filter((b) => b.tabIndex >= 0).length")
        self.assertEqual(stops, 1, "one thumbnail in the Tab order")
        self.press(presenter, Keys.TAB)
        left = focused(presenter)
        self.assertFalse(left and left["inStrip"], f"one more Tab leaves the strip: {left}")
        ActionChains(presenter).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        back = focused(presenter)
        self.assertTrue(back and back["page"] == "1", f"Shift+Tab comes back to the same thumbnail: {back}")

        # The arrows move the focus, not the slide.
        presenter.execute_script(RECORD_PAGES_JS)
        self.press(presenter, Keys.ARROW_RIGHT)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(presenter, lambda d: (focused(d) or {}).get("page") == "3", "the focus on slide 3's thumbnail")
        self.press(presenter, Keys.ARROW_LEFT)
        wait_for(presenter, lambda d: (focused(d) or {}).get("page") == "2", "the focus back on slide 2's thumbnail")
        self.press(presenter, Keys.END)
        wait_for(presenter, lambda d: (focused(d) or {}).get("page") == str(pages), "End: the focus on the last thumbnail")
        self.assertTrue(focused(presenter)["shown"], "the strip scrolls the focused thumbnail into view")
        self.press(presenter, Keys.HOME)
        wait_for(presenter, lambda d: (focused(d) or {}).get("page") == "1", "Home: the focus on the first thumbnail")
        self.press(presenter, Keys.ARROW_DOWN)
        self.press(presenter, Keys.ARROW_DOWN)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(presenter, lambda d: (focused(d) or {}).get("page") == "4", "the focus on slide 4's thumbnail")
        # Only the focused thumbnail is the strip's Tab stop now.
        stop = presenter.execute_script(
            "return [...document.querySelectorAll('#thumbs .thumb')].filter((b) => b.tabIndex >= 0).map((b) => b.dataset.page)")
        self.assertEqual(stop, ["4"])
        self.wait_synced(presenter)
        self.assertEqual(stage_attr(presenter, "data-page"), "1", "the slide did not change while the focus moved")
        screenshot(presenter, "keyboard-strip-focus")

        # Enter goes to the focused slide, and only there; the focus stays in the strip.
        self.press(presenter, Keys.ENTER)
        wait_for(presenter, lambda d: stage_attr(d, "data-page") == "4", "slide 4 on Enter")
        self.wait_synced(presenter)
        self.assertEqual(presenter.execute_script("return window.__pagesShown"), ["4"], "no slide on the way")
        self.assertEqual(focused(presenter)["page"], "4")
        self.assertEqual(presenter.execute_script(
            "return document.querySelector('#thumbs .thumb[aria-current=true]').dataset.page"), "4")
        # Space too.
        self.press(presenter, Keys.ARROW_LEFT)
        wait_for(presenter, lambda d: (focused(d) or {}).get("page") == "3", "the focus on slide 3's thumbnail")
        self.press(presenter, Keys.SPACE)
        wait_for(presenter, lambda d: stage_attr(d, "data-page") == "3", "slide 3 on Space")
        self.wait_synced(presenter)
        self.assertEqual(presenter.execute_script("return window.__pagesShown"), ["4", "3"])

        # Outside the strip the arrows change slide as before.
        self.press(presenter, Keys.TAB)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(presenter, lambda d: stage_attr(d, "data-page") == "4", "the next slide from outside the strip")
        # Coming back in, Tab lands on the slide on show.
        entered = self.tab_to_strip(presenter)
        self.assertEqual(entered["page"], "4", f"Tab lands on the slide on show: {entered}")

    def test_panel_shortcuts_move_the_focus_into_the_panel(self):
        """Alt+1…4 open the side panel's tabs and put the focus inside the opened panel, where a
        person sees it, on the session console and on a room's moderator console."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        for key, pane in (("2", "pane-polls"), ("3", "pane-questions"), ("4", "pane-viewers"), ("1", "pane-join")):
            ActionChains(presenter).key_down(Keys.ALT).send_keys(key).key_up(Keys.ALT).perform()
            wait_for(presenter, lambda d: visible(d, "#" + pane), f"the panel {pane} on Alt+{key}")
            now = wait_for(presenter, lambda d: (focused(d) or {}).get("pane") == pane and focused(d),
                           f"the focus inside {pane} on Alt+{key}")
            self.assertTrue(now["shown"], f"Alt+{key}: the focused element is on screen: {now}")
            if key == "2":
                screenshot(presenter, "keyboard-alt2-polls-focus")
        # From there, Tab goes on inside the panel.
        ActionChains(presenter).key_down(Keys.ALT).send_keys("2").key_up(Keys.ALT).perform()
        wait_for(presenter, lambda d: (focused(d) or {}).get("pane") == "pane-polls", "the focus in the polls panel")
        self.press(presenter, Keys.TAB)
        self.assertEqual(focused(presenter)["pane"], "pane-polls", "Tab from the panel's heading stays in the panel")

        # A room's moderator console: the same panel, the same keys.
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Keyboard room"})
        self.assertEqual(status, 201, room)
        moderator = self.driver(1440, 900)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{room['code']}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live",
                 "the moderator console to connect")
        for key, pane in (("3", "pane-questions"), ("2", "pane-polls")):
            ActionChains(moderator).key_down(Keys.ALT).send_keys(key).key_up(Keys.ALT).perform()
            now = wait_for(moderator, lambda d: (focused(d) or {}).get("pane") == pane and focused(d),
                           f"the moderator's focus inside {pane} on Alt+{key}")
            self.assertTrue(now["shown"], f"moderator Alt+{key}: the focused element is on screen: {now}")
        screenshot(moderator, "keyboard-moderator-alt2")

    def test_every_key_in_the_shortcut_help_is_drawn(self):
        """`?` lists the keys; every key cap has visible text (the "+" of zoom in too)."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        self.press(presenter, "?")
        dialog = wait_for(presenter, lambda d: visible(d, "dialog.shortcuts-dialog"), "the shortcuts dialog")
        caps = presenter.execute_script("""
            return [...document.querySelectorAll('dialog.shortcuts-dialog kbd')].map((k) => {
              const r = k.getBoundingClientRect();
              return { text: k.textContent.trim(), w: r.width, h: r.height, row: k.closest('.shortcut-row').dataset.keys };
            });""")
        self.assertGreater(len(caps), 10, caps)
        empty = [cap for cap in caps if not cap["text"]]
        self.assertEqual(empty, [], "every key cap has text")
        self.assertTrue(all(cap["w"] > 0 and cap["h"] > 0 for cap in caps), caps)
        plus = [cap for cap in caps if cap["row"] == "+"]
        self.assertEqual([cap["text"] for cap in plus], ["+"], "zoom in is one key cap that says +")
        combos = {cap["row"]: [c["text"] for c in caps if c["row"] == cap["row"]] for cap in caps}
        self.assertEqual(combos.get("Alt+2"), ["Alt", "2"], combos)
        screenshot(presenter, "keyboard-shortcut-help")
        self.assertIn("+", dialog.text)

    def test_signing_in_with_the_admin_user_name(self):
        """The first field says it takes a user name, and `admin` (as the banner prints it) signs in."""
        driver = self.driver(390, 844)
        driver.get(SERVER.base + "/login")
        field = wait_for(driver, lambda d: visible(d, "#email"), "the sign-in form")
        harness.wait_translated(driver)
        label = text_of(driver, 'label[for="email"] .field-label')
        self.assertEqual(label, "Email or user name")
        self.assertNotEqual(field.get_attribute("type"), "email")
        self.assertNotEqual(field.get_attribute("inputmode"), "email", "a phone offers its plain keyboard for a name")
        field.send_keys("admin")
        self.assertTrue(driver.execute_script("return arguments[0].checkValidity()", field))
        driver.find_element(By.ID, "password").send_keys(harness.ADMIN_PASSWORD)
        screenshot(driver, "keyboard-login-user-name")
        driver.find_element(By.ID, "login-submit").click()
        wait_for(driver, lambda d: d.current_url.rstrip("/").endswith("/library"), "the library after signing in")
