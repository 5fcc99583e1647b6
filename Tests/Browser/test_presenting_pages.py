#!/usr/bin/python3
"""Browser tests of the presenting pages' loose ends: rehearsal on the shared stage driver, the
passcode wait counted down on a room's join screens (presenter and projector), a room's report
called so, and a presenter's poll controls while someone else has the stage.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness), on a server of its own with small passcode limits (set through the environment below).
Alone:  python3 Tests/Browser/run_browser_tests.py PresentingPagesTests

State the tests read: ``#gate-error[data-retry-after]`` (the seconds left of a passcode wait,
live/passcode-wait.js) on every join screen; ``#report-kind`` (the report's top bar); ``<body data-drives>``
and ``#polls-hint`` on a room presenter's page.
"""

import os
import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
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

PASSCODE = "8642"
# Small bounds, so the waits are seconds: the 1st wrong passcode of a browser makes it wait 3 s.
SETTINGS = {
    "PODIUM_PASSCODE_ATTEMPTS": "1",
    "PODIUM_PASSCODE_DELAY": "3",
    "PODIUM_PASSCODE_MAX_DELAY": "3",
}


def setUpModule():
    # A server of this module's own, started with the settings above.
    if SERVER.proc and SERVER.proc.poll() is None:
        harness.tearDownModule()
    DEMO_DECK.clear()
    os.environ.update(SETTINGS)
    harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()
    for name in SETTINGS:
        os.environ.pop(name, None)


def body_data(driver, name):
    return driver.execute_script("return document.body.dataset[arguments[0]] ?? null", name)


def retry_after(driver):
    return driver.execute_script("return Number(document.getElementById('gate-error').dataset.retryAfter || 0)")


class PresentingPagesTests(BrowserTest):
    def open_room(self, title="Finish room"):
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": title, "passcode": PASSCODE})
        self.assertEqual(status, 201, room)
        return room["code"]

    def open_moderator(self, driver, code):
        self.sign_in_with_cookie(driver)
        driver.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(driver, lambda d: body_data(d, "connection") == "live", "the moderator console to connect")

    def presenter_gate(self, driver, code, name, passcode):
        driver.get(f"{SERVER.base}/r/{code}")
        wait_for(driver, lambda d: visible(d, "#passcode"), "the presenter's gate with its passcode field")
        name_field = driver.find_element(By.ID, "presenter-name")
        name_field.clear()
        name_field.send_keys(name)
        field = driver.find_element(By.ID, "passcode")
        field.clear()
        field.send_keys(passcode)
        driver.find_element(By.ID, "join-button").click()

    def assert_counts_down(self, driver, button_label, shot):
        """A wrong passcode: "Wrong passcode. Try again in 3 s", the button off ("Wait 3 s") and
        counting down, then on again with its label."""
        wait_for(driver, lambda d: retry_after(d) > 0, "the wait on the join screen")
        first = retry_after(driver)
        self.assertIn(first, (2, 3))
        self.assertRegex(text_of(driver, "#gate-error"), r"^Wrong passcode\. Try again in [23] s\.$")
        button = driver.find_element(By.ID, "join-button")
        self.assertFalse(button.is_enabled(), "the button waits too")
        self.assertRegex(button.text, r"^Wait [23] s$")
        screenshot(driver, shot)
        wait_for(driver, lambda d: 0 < retry_after(d) < first, "the countdown to go down")
        wait_for(driver, lambda d: d.find_element(By.ID, "join-button").is_enabled(), "the button on again after the wait",
                 timeout=10)
        self.assertEqual(text_of(driver, "#gate-error"), "Wrong passcode.")
        self.assertEqual(driver.find_element(By.ID, "join-button").text, button_label)

    def test_1_rehearsal_drives_with_the_stage_driver(self):
        """Rehearsal runs on the stage driver of every presenting page: keys from anywhere but text
        fields, ink per page on this screen only, zoom; the question bank beside it."""
        driver = self.driver(1280, 800)
        self.sign_in_with_cookie(driver)
        driver.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the rehearsal stage")
        loaded = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)")
        self.assertIn("/app/stage/driver.js", loaded, "rehearsal uses the shared stage driver")
        # The slide keys work with the focus on the question bank's button.
        bank_button = driver.find_element(By.CSS_SELECTOR, '#bank-panel [data-action="new-question"]')
        driver.execute_script("arguments[0].focus()", bank_button)
        self.press(driver, Keys.ARROW_RIGHT)
        wait_for(driver, lambda d: stage_attr(d, "data-page") == "2", "page 2 with the focus in the side panel")
        # Ink: drawn on page 2, not on page 3, back on page 2.
        self.press(driver, "d")
        wait_for(driver, lambda d: body_data(d, "drawMode") == "true", "draw mode")
        stage = driver.find_element(By.CSS_SELECTOR, "podium-stage")
        ActionChains(driver).move_to_element_with_offset(stage, -100, -40).click_and_hold() \
            .move_by_offset(80, 30).move_by_offset(80, 20).release().perform()
        wait_for(driver, lambda d: stage_attr(d, "data-strokes") == "1", "the stroke on page 2")
        self.press(driver, Keys.ARROW_RIGHT)
        wait_for(driver, lambda d: stage_attr(d, "data-page") == "3" and stage_attr(d, "data-strokes") == "0",
                 "page 3 without ink")
        self.press(driver, Keys.ARROW_LEFT)
        wait_for(driver, lambda d: stage_attr(d, "data-page") == "2" and stage_attr(d, "data-strokes") == "1",
                 "page 2 with its stroke again")
        # Zooming keeps the ink.
        self.press(driver, "+")
        wait_for(driver, lambda d: stage_attr(d, "data-viewport") != "0,0,1,1", "zoomed in")
        self.assertEqual(stage_attr(driver, "data-strokes"), "1")
        self.press(driver, "0")
        wait_for(driver, lambda d: stage_attr(d, "data-viewport") == "0,0,1,1", "zoom reset")
        harness.wait_settled(driver)
        screenshot(driver, "presenting-rehearse-ink")
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        phone.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}")
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the rehearsal stage on a phone")
        phone.find_element(By.CSS_SELECTOR, ".thumb[data-page='2']").click()
        wait_for(phone, lambda d: stage_attr(d, "data-page") == "2", "page 2 from its thumbnail")
        harness.wait_settled(phone)
        screenshot(phone, "presenting-rehearse-phone")

    def test_2_room_gates_count_the_passcode_wait_down(self):
        """A room's presenter and projector with a wrong passcode: the wait counted down, the button
        off meanwhile; then the right passcode gets in."""
        code = self.open_room("Passcode room")
        presenter = self.driver(390, 844)
        self.presenter_gate(presenter, code, "Ann", "1111")
        self.assert_counts_down(presenter, "Join as presenter", "presenting-room-presenter-wait")
        self.presenter_gate(presenter, code, "Ann", PASSCODE)
        wait_for(presenter, lambda d: body_data(d, "connection") == "live" and body_data(d, "presenterId"),
                 "Ann in the room with the right passcode")

        projector = self.driver(1920, 1080)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        field = wait_for(projector, lambda d: visible(d, "#passcode"), "the projector's passcode field")
        field.send_keys("2222")
        projector.find_element(By.ID, "join-button").click()
        self.assert_counts_down(projector, "Show the room", "presenting-room-projector-wait")
        field.clear()
        field.send_keys(PASSCODE)
        projector.find_element(By.ID, "join-button").click()
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector showing the room")

    def test_3_presenter_without_the_stage_has_no_poll_controls(self):
        """A presenter's open poll, then the moderator takes the stage back: Close and Reveal go
        away with a hint why, and come back with the stage; Close then works."""
        code = self.open_room("Poll room")
        moderator = self.driver(1280, 800)
        self.open_moderator(moderator, code)
        ann = self.driver(1280, 800)
        self.presenter_gate(ann, code, "Ann", PASSCODE)
        wait_for(ann, lambda d: body_data(d, "connection") == "live" and body_data(d, "presenterId"), "Ann in the room")
        ann_id = body_data(ann, "presenterId")
        # Found and clicked in one go: the list is drawn again as presenters come and go.
        grant = f'.presenter-item[data-presenter-id="{ann_id}"] [data-action="grant"]'
        wait_for(moderator, lambda d: visible(d, grant) and (d.find_element(By.CSS_SELECTOR, grant).click() or True),
                 "Ann on the console, granted the stage")
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control")
        ann.find_element(By.ID, "tab-polls").click()
        wait_for(ann, lambda d: visible(d, '[data-action="ask-adhoc"]'), "Ann may poll").click()
        wait_for(ann, lambda d: visible(d, "#poll-question"), "the poll editor").send_keys("Tea or coffee?")
        choices = ann.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        choices[0].send_keys("Tea")
        choices[1].send_keys("Coffee")
        ann.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(ann, lambda d: visible(d, '#active-poll [data-action="close-poll"]'), "Close on Ann's open poll")
        self.assertFalse(visible(ann, "#polls-hint"))
        # In control, Ann may put the results on everyone's screen, as the moderator may.
        spot_kind = "return (document.getElementById('spotlight') || {dataset: {}}).dataset.kind || null;"
        def press_when_shown(css):
            # The panel redraws as answers arrive: a button found may be replaced before it is
            # clicked, so the click is part of what is waited for.
            def attempt(d):
                button = visible(d, css)
                if not button:
                    return False
                try:
                    button.click()
                    return True
                except StaleElementReferenceException:
                    return False
            return attempt
        wait_for(ann, press_when_shown('#active-poll [data-results-to="screen"]'), "Results: big screen")
        wait_for(moderator, lambda d: d.execute_script(spot_kind) == "pollResults", "Ann's results on the moderator's screen")
        wait_for(ann, press_when_shown('#active-poll [data-results-to="phones"]'), "Results: on phones (off the big screen)")
        wait_for(moderator, lambda d: not visible(d, "#spotlight"), "the results taken off again")

        # The moderator takes the stage back: Ann's poll controls go, the hint says why.
        wait_for(moderator, lambda d: visible(d, "#withdraw"), "Take control back").click()
        wait_for(ann, lambda d: body_data(d, "drives") == "false", "Ann no longer in control")
        wait_for(ann, lambda d: not visible(d, '#active-poll [data-action="close-poll"]'), "Close gone without the stage")
        for action in ("reveal", "reveal-results"):
            self.assertFalse(visible(ann, f'#active-poll [data-action="{action}"]'), f"{action} hidden without the stage")
        self.assertFalse(visible(ann, '[data-action="spotlight"]'), "no Show on screen without the stage")
        self.assertFalse(visible(ann, "[data-results-to]"), "the results stay where they are without the stage")
        wait_for(ann, lambda d: visible(d, "#polls-hint"), "the hint why")
        self.assertIn("whoever has the stage", text_of(ann, "#polls-hint"))
        self.assertEqual(ann.find_element(By.ID, "active-poll").get_attribute("data-poll-status"), "open")
        screenshot(ann, "presenting-room-poll-without-stage")

        # The stage comes back, and with it Close, which works.
        moderator.find_element(By.CSS_SELECTOR, f'.presenter-item[data-presenter-id="{ann_id}"] [data-action="grant"]').click()
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control again")
        harness.dismiss_toasts(ann)
        wait_for(ann, lambda d: visible(d, '#active-poll [data-action="close-poll"]'), "Close back").click()
        wait_for(ann, lambda d: ann.find_element(By.ID, "active-poll").get_attribute("data-poll-status") == "closed",
                 "the poll closed")
        self.assertFalse(ann.find_elements(By.CSS_SELECTOR, ".toast-error"), "no error")

    def test_4_a_rooms_report_says_room(self):
        """The report of a room is called a room report; a session's a session report."""
        code = self.open_room("Report room")
        moderator = self.driver(1280, 800)
        self.open_moderator(moderator, code)
        moderator.get(f"{SERVER.base}/report.html?code={code}")
        wait_for(moderator, lambda d: d.find_element(By.ID, "report").get_attribute("data-state") == "ready", "the report")
        self.assertEqual(text_of(moderator, "#report-kind"), "Room report")
        self.assertIn("Room report", moderator.title)
        screenshot(moderator, "presenting-room-report")
        session = SERVER.start_session(DEMO_DECK["id"])
        moderator.get(f"{SERVER.base}/report.html?code={session['code']}")
        wait_for(moderator, lambda d: d.find_element(By.ID, "report").get_attribute("data-state") == "ready",
                 "the session's report")
        self.assertEqual(text_of(moderator, "#report-kind"), "Session report")

    def test_5_dialogs_are_the_shared_dialog(self):
        """Go live, Open a room and the viewer's question form are ui.js's dialog: labelled by its
        title (<dialog id>-title), Escape closes it and it leaves the page."""
        def check(driver, dialog_id, title):
            wait_for(driver, lambda d: visible(d, f"#{dialog_id}"), f"the {title} dialog")
            dialog = driver.find_element(By.ID, dialog_id)
            self.assertEqual(dialog.get_attribute("aria-labelledby"), f"{dialog_id}-title")
            self.assertEqual(text_of(driver, f"#{dialog_id}-title"), title)
            self.assertTrue(driver.find_elements(By.CSS_SELECTOR, f"#{dialog_id} > form.dialog-form .dialog-actions"))
            screenshot(driver, f"presenting-dialog-{dialog_id}")
            ActionChains(driver).send_keys(Keys.ESCAPE).perform()
            wait_for(driver, lambda d: not d.find_elements(By.ID, dialog_id), f"the {title} dialog gone")

        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        presenter.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}")
        wait_for(presenter, lambda d: d.find_element(By.ID, "go-live").is_enabled(), "Go live ready")
        presenter.find_element(By.ID, "go-live").click()
        check(presenter, "golive-dialog", "Go live")
        presenter.get(f"{SERVER.base}/library")
        wait_for(presenter, lambda d: visible(d, "#open-room"), "Open a room")
        presenter.find_element(By.ID, "open-room").click()
        check(presenter, "room-dialog", "Open a room")

        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code)
        wait_for(viewer, lambda d: visible(d, "#ask-button"), "the Ask button")
        viewer.find_element(By.ID, "ask-button").click()
        check(viewer, "ask-dialog", "Ask the presenter")

    def test_6_a_room_refuses_a_file_that_is_not_a_pdf_before_sending_it(self):
        """The room's upload goes through the one uploader: a text file named .pdf is refused on
        the presenter's page with the reason, and no deck reaches the room."""
        code = self.open_room("Upload room")
        ann = self.driver(1280, 800)
        self.presenter_gate(ann, code, "Ann", PASSCODE)
        wait_for(ann, lambda d: body_data(d, "connection") == "live" and body_data(d, "presenterId"), "Ann in the room")
        fake = self.scratch_directory("podium-presenting-") / "agenda.pdf"
        fake.write_text("An agenda, typed as text, not a PDF.\n" * 10)
        ann.find_element(By.ID, "file-input").send_keys(str(fake))
        wait_for(ann, lambda d: d.find_element(By.ID, "upload-status").get_attribute("data-state") == "failed",
                 "the upload refused")
        self.assertIn("not a PDF", ann.find_element(By.ID, "upload-status").text)
        self.assertFalse(ann.find_elements(By.CSS_SELECTOR, "#my-decks .deck-item[data-deck-id]"), "no deck from it")
        # Refused before sending: the page never posted it (the server would refuse it too).
        posted = ann.execute_script(
            "return performance.getEntriesByType('resource').filter((e) => e.name.includes('/decks')).map((e) => e.name);")
        self.assertEqual(posted, [], "the file was sent")
