#!/usr/bin/python3
"""Browser tests of a room's chair and speakers (issue 36): a lend keeps the borrower's place in the
queue, the talk's countdown with its warnings on the presenter's page, the moderator's console and
(when the chair wants) the projector, and time on stage that adds up across a lend.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py room_time

State the tests read, besides test_rooms.py's: ``#talk-clock[data-phase]`` with ``#talk-clock-time``,
``#talk-clock-label`` and ``#talk-clock-note`` on a presenter's page; ``#talk-now[data-phase]``,
``#talk-pill[data-phase]``, ``#onstage-time`` and ``#onstage-left`` on the console;
``#talk-overlay[data-phase]`` on the projector. A phase is ``idle``, ``running``, ``warning`` (two
minutes or less left), ``closing`` (thirty seconds or less) or ``over``. No test waits for a
duration: lengths are set short enough that the state to see comes at once or within a few seconds.
"""

import re
import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot

PASSCODE = "2468"


def setUpModule():
    if not harness.DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def body_data(driver, name):
    return driver.execute_script("return document.body.dataset[arguments[0]] ?? null", name)


def attr(driver, css, name):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name)


def click(driver, css):
    element = wait_for(driver, lambda d: visible(d, css), f"{css} to be visible")
    wait_for(driver, lambda d: element.is_enabled(), f"{css} to be enabled")
    # In the middle of its scrolling panel, as a person would bring it: clear of the toasts in the corner.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
    return element


def settle(driver):
    """Before a screenshot: the page's fonts loaded (no slide is on these stages to settle)."""
    wait_for(driver, lambda d: d.execute_script("return document.fonts.status === 'loaded'"), "the fonts")


def seconds(text):
    """ "1:05" -> 65, "1:02:05" -> 3725 (the clocks' digits are Latin in English)."""
    match = re.search(r"(?:(\d+):)?(\d+):(\d\d)", text or "")
    if not match:
        return None
    return int(match.group(1) or 0) * 3600 + int(match.group(2)) * 60 + int(match.group(3))


class RoomTimeTests(BrowserTest):
    def open_room(self):
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Lightning talks", "passcode": PASSCODE})
        self.assertEqual(status, 201, room)
        return room["code"]

    def open_moderator(self, driver, code):
        self.sign_in_with_cookie(driver)
        driver.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(driver, lambda d: body_data(d, "connection") == "live", "the moderator console to connect")

    def join_presenter(self, driver, code, name):
        driver.get(f"{SERVER.base}/r/{code}")
        wait_for(driver, lambda d: visible(d, "#passcode"), "the presenter's join gate")
        driver.find_element(By.ID, "presenter-name").send_keys(name)
        driver.find_element(By.ID, "passcode").send_keys(PASSCODE)
        driver.find_element(By.ID, "join-button").click()
        wait_for(driver, lambda d: body_data(d, "connection") == "live" and body_data(d, "presenterId"),
                 f"{name} to join the room")
        return body_data(driver, "presenterId")

    def room_with_two(self):
        """A room, its console, Ann and Bob on their pages; Ann granted the stage."""
        code = self.open_room()
        moderator = self.driver(1440, 900)
        self.open_moderator(moderator, code)
        ann = self.driver(1280, 800)
        bob = self.driver(1280, 800)
        ann_id = self.join_presenter(ann, code, "Ann")
        bob_id = self.join_presenter(bob, code, "Bob")
        for presenter_id in (ann_id, bob_id):
            wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'.presenter-item[data-presenter-id="{presenter_id}"]'),
                     "the presenters on the console")
        return code, moderator, ann, bob, ann_id, bob_id

    def grant(self, moderator, presenter, presenter_id):
        click(moderator, f'.presenter-item[data-presenter-id="{presenter_id}"] [data-action="grant"]')
        wait_for(presenter, lambda d: body_data(d, "drives") == "true", "the presenter in control")

    def lend(self, lender, borrower, borrower_id):
        Select(wait_for(lender, lambda d: visible(d, "#pass-to"), "the pass field")).select_by_value(borrower_id)
        click(lender, "#pass")
        wait_for(borrower, lambda d: body_data(d, "drives") == "true", "the borrower in control")

    def set_length(self, moderator, value, presenter_id=""):
        Select(moderator.find_element(By.ID, "talk-for")).select_by_value(presenter_id)
        field = moderator.find_element(By.ID, "talk-length")
        field.clear()
        field.send_keys(value)
        click(moderator, "#talk-length-set")
        wait_for(moderator, lambda d: body_data(d, "pending") == "0", "the length acknowledged")

    def test_room_time_lend_keeps_the_borrowers_request(self):
        """Bob asked for the stage; Ann lends it to him and he gives it back: he is still queued, and told so."""
        code, moderator, ann, bob, ann_id, bob_id = self.room_with_two()
        self.grant(moderator, ann, ann_id)
        click(bob, "#request")
        wait_for(bob, lambda d: attr(d, "#control-card", "data-state") == "waiting", "Bob waiting")
        wait_for(moderator, lambda d: text_of(d, "#queue-count") == "1", "one request on the console")

        # Ann lends Bob the stage for a question: his own request keeps its place.
        self.lend(ann, bob, bob_id)
        wait_for(moderator, lambda d: "Ann" in (text_of(d, "#onstage-name") or "") and "Bob" in text_of(d, "#onstage-name"),
                 "the console naming Bob, lent the stage by Ann")
        self.assertEqual(text_of(moderator, "#queue-count"), "1", "the lend must not use Bob's request")
        queued = wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'.queue-item[data-presenter-id="{bob_id}"]'),
                          "Bob still in the console's queue")[0]
        wait_for(moderator, lambda d: "still waiting" in queued.text, "the console saying Bob still waits for his own turn")
        self.assertEqual(attr(bob, "#control-card", "data-state"), "presenting")
        wait_for(bob, lambda d: "keeps its place" in (text_of(d, "#control-text") or ""), "Bob told his request keeps its place")
        self.assertIn("#1", text_of(bob, "#control-text"))
        settle(bob)
        screenshot(bob, "room-time-borrower")
        settle(moderator)
        screenshot(moderator, "room-time-console-lend")

        # Bob gives it back: he is waiting again, first in line, and the console still counts him.
        click(bob, "#return-control")
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control again")
        wait_for(bob, lambda d: attr(d, "#control-card", "data-state") == "waiting", "Bob waiting again")
        self.assertEqual(attr(bob, "#control-card", "data-position"), "1")
        self.assertEqual(text_of(bob, "#control-title"), "You are next")
        wait_for(bob, lambda d: "still in the queue: #1" in (text_of(d, "#toasts") or ""), "Bob told his request still waits")
        self.assertTrue(visible(bob, "#cancel-request") and not visible(bob, "#request"), "Bob may cancel, not ask again")
        self.assertEqual(text_of(moderator, "#queue-count"), "1")
        wait_for(moderator, lambda d: "still waiting" not in (text_of(d, f'.queue-item[data-presenter-id="{bob_id}"]') or "still waiting"),
                 "Bob's queue entry plain waiting again")
        self.assertIn("waiting", text_of(moderator, f'.queue-item[data-presenter-id="{bob_id}"]'))
        settle(bob)
        screenshot(bob, "room-time-borrower-queued-again")

        # The hand-over to the next request is his: the request is used now.
        click(moderator, "#hand-over")
        wait_for(bob, lambda d: body_data(d, "drives") == "true", "Bob in control in his own right")
        wait_for(moderator, lambda d: text_of(d, "#queue-count") == "0", "the request used")

    def test_room_time_countdown_and_warnings(self):
        """Talk lengths per presenter: the countdown, its warning and over time on the speaker's page,
        the console and the projector."""
        code, moderator, ann, bob, ann_id, bob_id = self.room_with_two()
        # A default for everyone, and Ann's own: two minutes, so the two-minute warning is on at once.
        self.set_length(moderator, "20")
        self.set_length(moderator, "2:00", ann_id)
        wait_for(ann, lambda d: visible(d, "#talk-clock"), "Ann's talk length on her page before her turn")
        self.assertEqual(attr(ann, "#talk-clock", "data-phase"), "idle")
        self.assertEqual(text_of(ann, "#talk-clock-time"), "2:00")
        self.assertIn("2:00", text_of(ann, "#talk-clock-note"))
        wait_for(bob, lambda d: text_of(d, "#talk-clock-time") == "20:00", "Bob's talk: the room's default")
        wait_for(moderator, lambda d: "2:00" in (text_of(d, f'.presenter-item[data-presenter-id="{ann_id}"] .talk-meta') or ""),
                 "Ann's length on the console")

        self.grant(moderator, ann, ann_id)
        wait_for(ann, lambda d: attr(d, "#talk-clock", "data-phase") == "warning", "the two-minute warning on Ann's page")
        self.assertEqual(text_of(ann, "#talk-clock-label"), "Your talk")
        self.assertIn("wrap up", text_of(ann, "#talk-clock-note"))
        self.assertLessEqual(seconds(text_of(ann, "#talk-clock-time")), 120)
        self.assertIn("left", text_of(ann, "#now-time"))
        self.assertEqual(attr(ann, "#now-pill", "data-phase"), "warning")
        wait_for(moderator, lambda d: attr(d, "#talk-now", "data-phase") == "warning", "the warning on the console")
        self.assertIn("Ann", text_of(moderator, "#talk-now-text"))
        self.assertEqual(attr(moderator, "#talk-pill", "data-phase"), "warning")
        self.assertIn("left", text_of(moderator, "#onstage-left"))
        settle(ann)
        screenshot(ann, "room-time-presenter-warning")

        # The chair puts the countdown on the projector.
        projector = self.driver(1280, 720)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: body_data(d, "connection") == "live" or visible(d, "#projector"), "the projector")
        self.assertFalse(visible(projector, "#talk-overlay"), "no countdown on the projector until the chair wants it")
        click(moderator, "#talk-projector")
        wait_for(projector, lambda d: visible(d, "#talk-overlay") and attr(d, "#talk-overlay", "data-phase") == "warning",
                 "the countdown on the projector, warning")
        box = projector.execute_script("""
            const r = document.getElementById('talk-overlay').getBoundingClientRect();
            return {w: r.width, h: r.height, right: r.right, bottom: r.bottom,
                    vw: innerWidth, vh: innerHeight, font: parseFloat(getComputedStyle(document.querySelector('.talk-overlay-time')).fontSize)};""")
        self.assertGreaterEqual(box["font"], 28, "the countdown readable from the stage")
        self.assertLess(box["w"], box["vw"] / 3, "a corner, not the slide")
        self.assertLessEqual(box["right"], box["vw"])
        self.assertLessEqual(box["bottom"], box["vh"])

        # Three seconds for Ann now: the last thirty seconds at once, then over time, everywhere.
        self.set_length(moderator, "0:03", ann_id)
        wait_for(ann, lambda d: attr(d, "#talk-clock", "data-phase") == "over", "over time on Ann's page")
        self.assertIn("Over time", text_of(ann, "#talk-clock-note"))
        self.assertTrue(text_of(ann, "#talk-clock-time").startswith("+"))
        wait_for(ann, lambda d: "Time is up" in (text_of(d, "#toasts") or ""), "Ann told that her time is up")
        wait_for(moderator, lambda d: attr(d, "#talk-now", "data-phase") == "over", "over time on the console")
        self.assertIn("over", text_of(moderator, "#onstage-left"))
        wait_for(projector, lambda d: attr(d, "#talk-overlay", "data-phase") == "over", "over time on the projector")
        self.assertTrue(text_of(projector, "#talk-overlay .talk-overlay-time").startswith("+"))
        for driver, name in ((ann, "room-time-presenter-over"), (moderator, "room-time-console-over"),
                             (projector, "room-time-projector-over")):
            settle(driver)
            screenshot(driver, name)

        # Switched off: the projector shows the slide alone again.
        click(moderator, "#talk-projector")
        wait_for(projector, lambda d: not visible(d, "#talk-overlay"), "the countdown gone from the projector")

    def test_room_time_adds_up_across_a_lend(self):
        """Ann lends the stage and gets it back: her talk's time runs on instead of starting at 0:00."""
        code, moderator, ann, bob, ann_id, bob_id = self.room_with_two()
        self.grant(moderator, ann, ann_id)
        wait_for(moderator, lambda d: (seconds(text_of(d, "#onstage-time")) or 0) >= 3, "Ann on stage for a few seconds",
                 timeout=30)
        before = seconds(text_of(moderator, "#onstage-time"))

        self.lend(ann, bob, bob_id)
        wait_for(moderator, lambda d: "Bob" in (text_of(d, "#onstage-name") or ""), "the console naming Bob")
        # Bob speaks in Ann's time: her talk's clock, on his page and the console, runs on.
        self.assertGreaterEqual(seconds(text_of(moderator, "#onstage-time")), before, "time on stage reset by the lend")
        wait_for(bob, lambda d: visible(d, "#talk-clock"), "the talk's clock on Bob's page")
        self.assertEqual(text_of(bob, "#talk-clock-label"), "Ann's talk")
        self.assertGreaterEqual(seconds(text_of(bob, "#talk-clock-time")), before)
        self.assertGreaterEqual(seconds(text_of(bob, "#now-time")), before)
        settle(bob)
        screenshot(bob, "room-time-borrower-clock")
        # A borrower who had not asked may ask for a turn of their own while borrowing.
        click(bob, "#request")
        wait_for(moderator, lambda d: text_of(d, "#queue-count") == "1", "Bob's own request on the console")
        wait_for(bob, lambda d: "keeps its place" in (text_of(d, "#control-text") or ""), "Bob told his request waits")

        click(bob, "#return-control")
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control again")
        wait_for(moderator, lambda d: "lent" not in (text_of(d, "#onstage-name") or "lent"), "the console naming Ann alone")
        self.assertGreaterEqual(seconds(text_of(moderator, "#onstage-time")), before, "time on stage reset by the return")
        self.assertGreaterEqual(seconds(text_of(ann, "#now-time")), before)
        self.assertGreaterEqual(seconds(text_of(ann, "#talk-clock-time")), before)
        wait_for(bob, lambda d: attr(d, "#control-card", "data-state") == "waiting", "Bob waiting for his turn after the lend")
        self.assertEqual(text_of(moderator, "#queue-count"), "1")
        settle(moderator)
        screenshot(moderator, "room-time-console-after-lend")
