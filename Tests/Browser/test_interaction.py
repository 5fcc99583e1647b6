#!/usr/bin/python3
"""Browser tests of audience interaction: polls, reveal, questions, viewer list, navigation lock.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness: the server, the browsers, the waits). Alone:  python3 Tests/Browser/run_browser_tests.py interaction
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
text_of = harness.text_of
stage_attr = harness.stage_attr
screenshot = harness.screenshot


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def attr(driver, css, name):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name)


def bar_counts(driver, scope):
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' .bar-row')].map(r => Number(r.dataset.count));", scope)


def marked(driver, scope, flag):
    """Indices of the chart rows (or options) of `scope` with data-<flag>="true"."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].filter(r => r.dataset[arguments[1]] === 'true')"
        ".map(r => Number(r.dataset.index));", scope, flag)


class AudienceInteractionTests(BrowserTest):
    def test_poll_reveal_questions_and_lock(self):
        """A presenter and three viewers: poll, live chart, reveal, anonymous question, unlock."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]

        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)

        names = ["Ana", "Ben", "Cy"]
        viewers = []
        for name in names:
            viewer = self.driver(390, 844)
            self.join_as_viewer(viewer, code, name=name)
            viewers.append(viewer)
        wait_for(presenter, lambda d: text_of(d, "#viewer-count") == "3", "three viewers connected")

        # The viewer list shows them by name, connected.
        presenter.find_element(By.ID, "tab-viewers").click()
        wait_for(presenter, lambda d: d.execute_script(
            "return [...document.querySelectorAll('.viewer-item[data-connected=\"true\"] .viewer-name')]"
            ".map(e => e.textContent).sort().join(',')") == "Ana,Ben,Cy", "the viewer list")

        # A multiple-choice question, written in the editor, saved to the deck and sent.
        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="new-question"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        presenter.find_element(By.ID, "poll-question").send_keys("Which city is the capital of France?")
        choices = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        choices[0].send_keys("Paris")
        choices[1].send_keys("Lyon" + Keys.ENTER)  # Enter in the last choice adds another
        wait_for(presenter, lambda d: len(d.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')) == 3,
                 "a third choice")
        presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')[2].send_keys("Marseille")
        presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="correct"]')[0].click()
        screenshot(presenter, "presenter-poll-editor")
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="save-send"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the poll open on the console")
        wait_for(presenter, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".bank-item")) == 1, "the question in the bank")
        status, bank = SERVER.api("GET", f"/api/v1/decks/{DEMO_DECK['id']}/questions")
        self.assertEqual(status, 200)
        self.assertEqual([q["poll"]["correct"] for q in bank], [[0]], "saved with its right answer")

        # Each viewer sees the poll and answers: two right, one wrong.
        picks = [0, 0, 1]
        for viewer, pick in zip(viewers, picks):
            wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"]'), "the poll on the viewer")
            viewer.find_element(By.CSS_SELECTOR, f'#poll-sheet .poll-option[data-index="{pick}"]').click()
            viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        for viewer, pick in zip(viewers, picks):
            wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer acknowledged")
            self.assertIn("Answer sent", text_of(viewer, '[data-role="poll-note"]'))
            self.assertEqual(marked(viewer, "#poll-sheet .poll-option", "mine"), [pick])
        screenshot(viewers[2], "viewer-poll-answered")

        # The presenter's chart and response rate follow.
        wait_for(presenter, lambda d: attr(d, '[data-role="response-rate"]', "data-answered") == "3"
                 and attr(d, '[data-role="response-rate"]', "data-connected") == "3", "3 / 3 answered")
        wait_for(presenter, lambda d: bar_counts(d, "#active-poll") == [2, 1, 0], "the chart: 2, 1, 0")
        self.assertIn("3 / 3", text_of(presenter, '[data-role="response-rate"]'))
        self.assertIn("67%", text_of(presenter, '#active-poll .bar-row[data-index="0"]'))
        screenshot(presenter, "presenter-polls-panel")

        # A viewer may change their answer while the poll is open.
        viewers[2].find_element(By.CSS_SELECTOR, '#poll-sheet .poll-option[data-index="2"]').click()
        viewers[2].find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(presenter, lambda d: bar_counts(d, "#active-poll") == [2, 0, 1], "the changed answer counted once")
        wait_for(viewers[2], lambda d: marked(d, "#poll-sheet .poll-option", "mine") == [2], "the new answer held")
        picks[2] = 2

        # Reveal the answer, then the results on everyone's phones (the one results control):
        # every viewer sees the right choice and their own.
        presenter.find_element(By.CSS_SELECTOR, '#active-poll [data-action="reveal"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "revealed", "revealed on the console")
        wait_for(presenter, lambda d: d.find_element(By.CSS_SELECTOR, '#active-poll [data-results-to="phones"]').click() or True,
                 "Results: on phones")
        wait_for(presenter, lambda d: attr(d, '#active-poll [data-role="results-where"]', "data-where") == "phones",
                 "the results on phones")
        for viewer, pick in zip(viewers, picks):
            wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-poll-status") == "revealed", "the reveal on the viewer")
            wait_for(viewer, lambda d: bar_counts(d, "#poll-sheet") == [2, 0, 1], "the results on the viewer")
            self.assertEqual(marked(viewer, "#poll-sheet .bar-row", "correct"), [0], "the right choice marked")
            self.assertEqual(marked(viewer, "#poll-sheet .bar-row", "mine"), [pick], "the viewer's own choice marked")
        self.assertIn("right", text_of(viewers[0], '[data-role="poll-note"]'))
        screenshot(viewers[0], "viewer-poll-revealed-right")
        screenshot(viewers[2], "viewer-poll-revealed-wrong")
        screenshot(presenter, "presenter-poll-revealed")

        # An anonymous question: the presenter sees it without a name, with an unread badge.
        asker = viewers[2]
        asker.find_element(By.CSS_SELECTOR, '[data-action="collapse-poll"]').click()
        wait_for(asker, lambda d: not visible(d, "#poll-sheet"), "the poll put away")
        asker.find_element(By.ID, "ask-button").click()
        wait_for(asker, lambda d: visible(d, "#ask-text"), "the question form")
        asker.find_element(By.ID, "ask-text").send_keys("Will the slides be online afterwards?")
        self.assertTrue(asker.find_element(By.ID, "ask-about-slide").is_selected(), "about this slide by default")
        asker.find_element(By.ID, "ask-anonymous").click()
        screenshot(asker, "viewer-ask")
        asker.find_element(By.ID, "ask-send").click()
        wait_for(asker, lambda d: not d.find_elements(By.ID, "ask-dialog"), "the question form to close")
        wait_for(asker, lambda d: "anonymously" in (text_of(d, ".toast") or ""), "the confirmation")

        badge = wait_for(presenter, lambda d: visible(d, '.tab-badge[data-role="unread"]'), "the unread badge")
        self.assertEqual(badge.text, "1")
        presenter.find_element(By.ID, "tab-questions").click()
        item = wait_for(presenter, lambda d: visible(d, '.question-item[data-anonymous="true"]'), "the question on the console")
        self.assertIn("Will the slides be online afterwards?", item.text)
        self.assertEqual(item.find_element(By.CSS_SELECTOR, '[data-role="asker"]').text, "Anonymous")
        self.assertNotIn("Cy", text_of(presenter, "#pane-questions"), "no name for an anonymous question")
        self.assertIn("p. 1", item.text)
        wait_for(presenter, lambda d: not visible(d, '.tab-badge[data-role="unread"]'), "the badge cleared once read")
        item.find_element(By.CSS_SELECTOR, '[data-action="mark-answered"]').click()
        wait_for(presenter, lambda d: attr(d, ".question-item", "data-answered") == "true", "marked answered")
        harness.dismiss_toasts(presenter)
        screenshot(presenter, "presenter-questions-panel")

        # Unlock: a viewer pages ahead alone, then goes back to the presenter's page.
        lock = presenter.find_element(By.CSS_SELECTOR, '[data-action="lock"]')
        self.assertEqual(lock.get_attribute("aria-pressed"), "true")
        lock.click()
        wait_for(presenter, lambda d: attr(d, '[data-action="lock"]', "aria-pressed") == "false", "the toggle unlocked")
        reader = viewers[0]
        wait_for(reader, lambda d: d.execute_script("return document.body.dataset.locked") == "false", "the unlock")
        reader.find_element(By.CSS_SELECTOR, '[data-action="collapse-poll"]').click()
        self.press(reader, Keys.ARROW_RIGHT)
        wait_for(reader, lambda d: stage_attr(d, "data-page") == "2", "the viewer browsing alone")
        self.assertEqual(stage_attr(presenter, "data-page"), "1", "the presenter stays where they are")
        self.assertEqual(stage_attr(viewers[1], "data-page"), "1", "other viewers stay with the presenter")
        follow = wait_for(reader, lambda d: visible(d, "#follow"), "the way back to the presenter")
        screenshot(reader, "viewer-browsing-unlocked")
        follow.click()
        wait_for(reader, lambda d: stage_attr(d, "data-page") == "1", "back on the presenter's page")
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(reader, lambda d: stage_attr(d, "data-page") == "2", "following the presenter again")

    def test_open_poll_shared_answer_and_late_joiner(self):
        """An open question asked without saving: answers, word cloud, a shared answer; a late
        joiner sees the open poll; a named question's slide badge takes the presenter there."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        first = self.driver(390, 844)
        self.join_as_viewer(first, code, name="Dora")

        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        presenter.find_element(By.ID, "poll-question").send_keys("One word for this talk?")
        presenter.find_element(By.CSS_SELECTOR, 'label[for="kind-open"]').click()
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the open poll on the console")
        self.assertFalse(presenter.find_elements(By.CSS_SELECTOR, ".bank-item"), "asked without saving")

        # A late joiner lands on the open poll.
        late = self.driver(390, 844)
        self.join_as_viewer(late, code, name="Eli")
        for viewer, text in ((first, "Inspiring talk, clear slides"), (late, "clear and inspiring")):
            field = wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] textarea'), "the open poll")
            field.send_keys(text)
            viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
            wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer held")

        wait_for(presenter, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#active-poll .answer-item")) == 2, "both answers")
        cloud = wait_for(presenter, lambda d: d.execute_script(
            "return [...document.querySelectorAll('.cloud-word')].map(w => w.textContent + ':' + w.dataset.count)"),
            "the word cloud")
        self.assertIn("inspiring:2", cloud)
        self.assertIn("clear:2", cloud)
        self.assertFalse(any(word.startswith("and:") for word in cloud), "stop-words left out")
        screenshot(presenter, "presenter-open-poll")
        shared = presenter.find_element(By.XPATH, '//li[contains(@class,"answer-item")][contains(., "Inspiring talk")]')
        shared.find_element(By.CSS_SELECTOR, '[data-action="share-answer"]').click()
        for viewer in (first, late):
            quote = wait_for(viewer, lambda d: visible(d, ".shared-answer"), "the shared answer on the viewer")
            self.assertEqual(quote.text, "Inspiring talk, clear slides")
        screenshot(late, "viewer-shared-answer")

        # A named question about slide 2; the presenter jumps there from the badge.
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(first, lambda d: stage_attr(d, "data-page") == "2", "the viewer on slide 2")
        first.find_element(By.CSS_SELECTOR, '[data-action="collapse-poll"]').click()
        wait_for(first, lambda d: visible(d, "#poll-pill"), "the poll as a pill")
        screenshot(first, "viewer-poll-pill")
        first.find_element(By.ID, "ask-button").click()
        wait_for(first, lambda d: visible(d, "#ask-text"), "the question form").send_keys("Can you show the QR again?")
        first.find_element(By.ID, "ask-send").click()
        wait_for(first, lambda d: not d.find_elements(By.ID, "ask-dialog"), "the question sent")
        self.press(presenter, Keys.ARROW_LEFT)
        presenter.find_element(By.ID, "tab-questions").click()
        item = wait_for(presenter, lambda d: visible(d, '.question-item[data-anonymous="false"]'), "the named question")
        self.assertEqual(item.find_element(By.CSS_SELECTOR, '[data-role="asker"]').text, "Dora")
        item.find_element(By.CSS_SELECTOR, '[data-action="goto-question-page"]').click()
        wait_for(presenter, lambda d: stage_attr(d, "data-page") == "2", "the presenter on the question's slide")
        wait_for(late, lambda d: stage_attr(d, "data-page") == "2", "viewers following there")
        presenter.find_element(By.ID, "tab-viewers").click()
        wait_for(presenter, lambda d: "1 question" in (text_of(d, '.viewer-item[data-connected="true"]') or "")
                 or "1 question" in (text_of(d, "#pane-viewers") or ""), "the question counted for its asker")
        screenshot(presenter, "presenter-viewers-panel")
