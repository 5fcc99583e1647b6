#!/usr/bin/python3
"""Browser tests of results on the big screen (the spotlight), polls named by their place in the
session, review-only notices of waiting questions, and preparing polls in rehearsal.

A presenter puts a poll's chart, an open poll's word cloud or shared answers, a question or the
quiz leaderboard on screen: every viewer (a phone, a projector-sized window) shows it full-screen,
live as answers arrive, and it goes when the presenter takes it off.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py spotlight
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

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


def spot_bars(driver):
    """The chart on screen: [[count, percent, correct]] per choice."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#spotlight .spot-bar')]"
        ".map(r => [Number(r.dataset.count), Number(r.dataset.percent), r.dataset.correct === 'true']);")


def on_screen(driver, kind):
    """Whether the spotlight shows `kind` (None: nothing on screen)."""
    if kind is None:
        return not visible(driver, "#spotlight") and attr(driver, "#spotlight", "data-kind") in (None, "none")
    return visible(driver, "#spotlight") and attr(driver, "#spotlight", "data-kind") == kind


def toggle(driver, scope, kind):
    """The presenter's "Show on screen" / "Take off screen" button of `kind` inside `scope`."""
    return driver.find_element(By.CSS_SELECTOR, f'{scope} [data-action="spotlight"][data-spotlight-kind="{kind}"]')


def click(driver, css):
    """Clicks an element of a list or card that is drawn again as updates arrive."""
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).click() or True, f"a click on {css}")


def set_on_screen(driver, scope, kind, on=True):
    """Clicks the toggle until the console says it is on (or off). The panel is drawn again as
    answers arrive, so a button found a moment ago may be gone; a second click while the first
    is in flight asks for the same thing again, which changes nothing. A choice poll's chart goes
    with its one results control: to the big screen, and off it back to the phones."""
    if kind == "pollResults":
        where = "screen" if on else "phones"

        def move(d):
            control = d.find_element(By.CSS_SELECTOR, f'{scope} [data-role="results-where"]')
            if control.get_attribute("data-where") == where:
                return True
            control.find_element(By.CSS_SELECTOR, f'[data-results-to="{where}"]').click()
            return False
        wait_for(driver, move, f"the results: {where}")
        return

    def attempt(d):
        button = toggle(d, scope, kind)
        if (button.get_attribute("aria-pressed") == "true") == on:
            return True
        button.click()
        return False
    wait_for(driver, attempt, f"{kind} {'on' if on else 'off'} screen")


class SpotlightTests(BrowserTest):
    def ask(self, presenter, question, choices=None, correct=None):
        """Sends a poll without saving it: multiple choice with `choices`, or open text."""
        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        presenter.find_element(By.ID, "poll-question").send_keys(question)
        if choices is None:
            presenter.find_element(By.CSS_SELECTOR, 'label[for="kind-open"]').click()
        else:
            fields = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
            for index, text in enumerate(choices):
                if index >= len(fields):
                    presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="add-choice"]').click()
                    fields = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
                fields[index].send_keys(text)
            if correct is not None:
                presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="correct"]')[correct].click()
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(presenter, lambda d: not d.find_elements(By.ID, "poll-editor"), "the editor closed")
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the poll open")

    def unfold(self, viewer):
        """While something is on screen an open poll's card is folded to its pill: one tap opens it."""
        wait_for(viewer, lambda d: visible(d, "#poll-sheet") or visible(d, "#poll-pill"), "the poll or its pill")
        pill = visible(viewer, "#poll-pill")
        if pill:
            pill.click()

    def answer_choice(self, viewer, index):
        self.unfold(viewer)
        wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] .poll-option'), "the poll on the viewer")
        viewer.find_element(By.CSS_SELECTOR, f'#poll-sheet .poll-option[data-index="{index}"]').click()
        viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer held")

    def answer_text(self, viewer, text):
        self.unfold(viewer)
        field = wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] textarea'), "the open poll")
        field.send_keys(text)
        viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer held")

    def test_1_poll_results_on_every_screen_live_and_off_again(self):
        """The chart of a poll whose results are hidden from the audience goes on every screen,
        follows the answers live, marks the right answer in words once revealed, and goes away."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        phone = self.driver(390, 844)
        self.join_as_viewer(phone, code, name="Ana")
        projector = self.driver(1920, 1080)
        self.join_as_viewer(projector, code, name="Projector")

        # Two polls: the labels are their places in the session, never their ids.
        self.ask(presenter, "Warm-up: tea or coffee?", ["Tea", "Coffee"])
        click(presenter, '#active-poll [data-action="close-poll"]')
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "closed", "the warm-up closed")
        self.ask(presenter, "Which planet is largest?", ["Mars", "Jupiter", "Venus"], correct=1)
        wait_for(presenter, lambda d: text_of(d, '#active-poll [data-role="poll-label"]') == "Poll 2", "Poll 2 on the console")
        wait_for(phone, lambda d: "Poll 2" in (text_of(d, '#poll-sheet [data-role="poll-label"]') or ""), "Poll 2 on the phone")
        earlier = wait_for(presenter, lambda d: visible(d, ".history-item"), "the earlier poll")
        self.assertIn("Poll 1 · Warm-up: tea or coffee?", earlier.text)
        self.answer_choice(phone, 1)
        self.assertFalse(visible(phone, "#poll-sheet .bar-row"), "results hidden from the audience")

        # On screen: every viewer shows the chart; the right answer is not given away yet.
        set_on_screen(presenter, "#active-poll", "pollResults")
        for viewer in (phone, projector, presenter):
            wait_for(viewer, lambda d: on_screen(d, "pollResults"), "the chart on screen")
            wait_for(viewer, lambda d: spot_bars(d) == [[0, 0, False], [1, 100, False], [0, 0, False]], "the live counts")
        self.assertIn("Poll 2 · Results", text_of(projector, "#spotlight .spot-kicker"))
        self.assertIn("Which planet is largest?", text_of(projector, "#spotlight .spot-title"))
        self.assertIn("100% · 1 vote", text_of(projector, '#spotlight .spot-bar[data-index="1"]'))
        self.assertNotIn("Right answer", text_of(projector, "#spotlight"))
        self.assertEqual(attr(presenter, '#active-poll [data-role="results-where"]', "data-where"), "screen")
        self.assertIn("On screen: Poll 2 · Results", text_of(presenter, '[data-role="on-screen"]'))

        # Live: a late joiner sees it at once and answers; every screen counts it.
        late = self.driver(390, 844)
        self.join_as_viewer(late, code, name="Ben")
        wait_for(late, lambda d: on_screen(d, "pollResults"), "the chart for a late joiner")
        self.answer_choice(late, 0)
        for viewer in (phone, projector, late, presenter):
            wait_for(viewer, lambda d: spot_bars(d) == [[1, 50, False], [1, 50, False], [0, 0, False]], "the new answer")
        self.assertIn("2 answers", text_of(projector, '[data-role="spot-answered"]'))

        # Revealed: the right answer in words and a mark, not only in colour.
        click(presenter, '#active-poll [data-action="reveal"]')
        for viewer in (phone, projector):
            wait_for(viewer, lambda d: [bar[2] for bar in spot_bars(d)] == [False, True, False], "the right answer marked")
        self.assertIn("✓ Right answer", text_of(projector, '#spotlight .spot-bar[data-index="1"]'))
        harness.dismiss_toasts(presenter)
        screenshot(projector, "spotlight-results-projector-1920")
        screenshot(phone, "spotlight-results-phone-390")
        screenshot(presenter, "spotlight-results-console")

        # Taken off (from the console's preview): gone everywhere.
        presenter.find_element(By.CSS_SELECTOR, '#spotlight [data-action="spotlight-off"]').click()
        for viewer in (phone, projector, late, presenter):
            wait_for(viewer, lambda d: on_screen(d, None), "nothing on screen")
        # Off the big screen, the results stay on the phones, and the control says so.
        wait_for(presenter, lambda d: attr(d, '#active-poll [data-role="results-where"]', "data-where") == "phones",
                 "the results on phones")
        self.assertFalse(visible(presenter, '[data-role="on-screen"]'))

        # The earlier poll can go on screen too, from its own row.
        set_on_screen(presenter, ".history-item", "pollResults")
        wait_for(projector, lambda d: on_screen(d, "pollResults") and "Poll 1" in (text_of(d, "#spotlight .spot-kicker") or ""),
                 "Poll 1's chart on screen")
        set_on_screen(presenter, ".history-item", "pollResults", on=False)
        wait_for(projector, lambda d: on_screen(d, None), "Poll 1 taken off")

    def test_2_word_cloud_shared_answers_and_questions(self):
        """An open poll's word cloud and shared answers on screen; with review on, a waiting
        question is announced without its text and goes on screen only once approved."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        dora = self.driver(390, 844)
        self.join_as_viewer(dora, code, name="Dora")
        projector = self.driver(1920, 1080)
        self.join_as_viewer(projector, code, name="Projector")

        self.ask(presenter, "One word for this course?")
        self.answer_text(dora, "Inspiring and clear")
        set_on_screen(presenter, "#active-poll", "wordCloud")
        words = wait_for(projector, lambda d: on_screen(d, "wordCloud") and d.execute_script(
            "return [...document.querySelectorAll('#spotlight .spot-word')].map(w => w.textContent + ':' + w.dataset.count)"),
            "the word cloud on screen")
        self.assertIn("inspiring:1", words)
        self.assertNotIn("and:1", words, "stop-words left out")
        # Live: another answer grows the cloud on every screen.
        self.answer_text(projector, "clear")
        wait_for(dora, lambda d: "clear:2" in d.execute_script(
            "return [...document.querySelectorAll('#spotlight .spot-word')].map(w => w.textContent + ':' + w.dataset.count)"),
            "the new answer in the cloud")
        screenshot(projector, "spotlight-wordcloud-projector-1920")

        # A shared answer, then the shared answers on screen.
        wait_for(presenter, lambda d: d.find_element(
            By.XPATH, '//li[contains(@class,"answer-item")][contains(., "Inspiring and clear")]//button[@data-action="share-answer"]'
        ).click() or True, "Dora's answer shared")
        set_on_screen(presenter, "#active-poll", "sharedAnswers")
        card = wait_for(projector, lambda d: on_screen(d, "sharedAnswers") and visible(d, "#spotlight .spot-answer"),
                        "the shared answer on screen")
        self.assertEqual(card.text, "Inspiring and clear")
        screenshot(dora, "spotlight-shared-phone-390")

        # Questions need review: the console says one waits, never what it says.
        presenter.find_element(By.ID, "tab-questions").click()
        presenter.find_element(By.CSS_SELECTOR, 'label[for="questions-public"]').click()
        wait_for(presenter, lambda d: d.find_element(By.ID, "questions-approval").is_enabled(), "the approval switch")
        presenter.find_element(By.CSS_SELECTOR, 'label[for="questions-approval"]').click()
        wait_for(presenter, lambda d: d.find_element(By.ID, "questions-approval").is_selected(), "approval on")
        wait_for(dora, lambda d: visible(d, "#questions-button"), "questions public on the viewer")
        presenter.find_element(By.ID, "tab-polls").click()
        harness.dismiss_toasts(presenter)
        # With the shared answers on screen, the open poll's card is already folded to its pill.
        self.assertFalse(visible(dora, "#poll-sheet"), "the poll folded while something is on screen")
        self.assertTrue(visible(dora, "#poll-pill"))
        dora.find_element(By.ID, "ask-button").click()
        wait_for(dora, lambda d: visible(d, "#ask-text"), "the question form").send_keys("Is the exam open book?")
        dora.find_element(By.ID, "ask-send").click()
        notice = wait_for(presenter, lambda d: visible(d, '[data-role="questions-waiting"]'), "the waiting notice")
        self.assertIn("1 question waiting for review", notice.text)
        self.assertNotIn("exam", text_of(presenter, "#toasts"), "the question's text is not shown outside the list")
        screenshot(presenter, "console-question-waiting")

        presenter.find_element(By.ID, "tab-questions").click()
        item = wait_for(presenter, lambda d: visible(d, ".question-item"), "the question in the review list")
        self.assertIn("Is the exam open book?", item.text)
        self.assertFalse(item.find_elements(By.CSS_SELECTOR, '[data-action="spotlight"]'), "no way on screen before approval")
        click(presenter, '.question-item [data-action="approve-question"]')
        set_on_screen(presenter, '.question-item[data-approved="true"]', "question")
        quote = wait_for(projector, lambda d: on_screen(d, "question") and visible(d, "#spotlight .spot-question-text"),
                         "the question on screen")
        self.assertEqual(quote.text, "Is the exam open book?")
        self.assertIn("Dora", text_of(projector, "#spotlight .spot-asker"))
        self.assertEqual(text_of(projector, "#spotlight .spot-head"), "Question from the audience")
        screenshot(projector, "spotlight-question-projector-1920")
        harness.dismiss_toasts(presenter)
        screenshot(presenter, "console-question-on-screen")
        screenshot(dora, "spotlight-question-phone-390")
        # Withdrawing the approval takes it off every screen.
        click(presenter, '.question-item [data-action="approve-question"]')
        for viewer in (projector, dora, presenter):
            wait_for(viewer, lambda d: on_screen(d, None), "the unapproved question off screen")

    def test_3_leaderboard_on_screen(self):
        """The quiz leaderboard goes on every screen, names and points as text."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        ana = self.driver(390, 844)
        self.join_as_viewer(ana, code, name="Ana")
        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        presenter.find_element(By.ID, "poll-question").send_keys("2 + 2?")
        fields = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        fields[0].send_keys("4")
        fields[1].send_keys("5")
        presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="correct"]')[0].click()
        presenter.find_element(By.ID, "poll-quiz").click()
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the quiz question open")
        self.answer_choice(ana, 0)
        click(presenter, '#active-poll [data-action="close-poll"]')
        wait_for(presenter, lambda d: d.find_elements(
            By.CSS_SELECTOR, '#active-poll [data-action="spotlight"][data-spotlight-kind="leaderboard"]'), "the leaderboard's toggle")
        set_on_screen(presenter, "#active-poll", "leaderboard")
        wait_for(ana, lambda d: on_screen(d, "leaderboard") and visible(d, '#spotlight .spot-leader[data-rank="1"]'),
                 "the leaderboard on the phone")
        # Read in one go from the page as it is now (the board is drawn again as scores arrive).
        name, text = ana.execute_script(
            "const r = document.querySelector('#spotlight .spot-leader[data-rank=\"1\"]'); return [r.dataset.name, r.innerText];")
        self.assertEqual(name, "Ana")
        self.assertIn("1st", text)
        self.assertIn("pts", text)
        screenshot(ana, "spotlight-leaderboard-phone-390")
        presenter.find_element(By.CSS_SELECTOR, '[data-role="on-screen"] [data-action="spotlight-off-panel"]').click()
        wait_for(ana, lambda d: on_screen(d, None), "the leaderboard off screen")

    def test_4_rehearsal_prepares_polls_and_draws_locally(self):
        """Rehearsal has the deck's question bank (kept for the sessions to come) and drawing,
        and starts no session anyone could join."""
        status, before = SERVER.api("GET", "/api/v1/sessions")
        driver = self.driver(1280, 800)
        self.sign_in_with_cookie(driver)
        driver.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the rehearsal stage")
        self.assertFalse(driver.find_elements(By.CSS_SELECTOR, '[data-action="send-poll"], [data-action="ask-adhoc"]'),
                         "nothing to send in a rehearsal")
        driver.find_element(By.CSS_SELECTOR, '#bank-panel [data-action="new-question"]').click()
        wait_for(driver, lambda d: visible(d, "#poll-question"), "the poll editor")
        driver.find_element(By.ID, "poll-question").send_keys("Prepared in rehearsal?")
        fields = driver.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        fields[0].send_keys("Yes")
        fields[1].send_keys("No")
        driver.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="save-question"]').click()
        item = wait_for(driver, lambda d: d.find_elements(
            By.XPATH, '//li[contains(@class,"bank-item")][contains(., "Prepared in rehearsal?")]'), "the question in the bank")
        self.assertTrue(item)
        bank_status, bank = SERVER.api("GET", f"/api/v1/decks/{DEMO_DECK['id']}/questions")
        self.assertIn("Prepared in rehearsal?", [q["poll"]["question"] for q in bank])
        # Edited there too.
        driver.find_element(By.XPATH, '//li[contains(@class,"bank-item")][contains(., "Prepared in rehearsal?")]'
                                      '//button[@data-action="edit-question"]').click()
        field = wait_for(driver, lambda d: visible(d, "#poll-question"), "the editor with the question")
        field.send_keys(" Yes.")
        driver.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="save-question"]').click()
        wait_for(driver, lambda d: d.find_elements(
            By.XPATH, '//li[contains(@class,"bank-item")][contains(., "Prepared in rehearsal? Yes.")]'), "the edited question")

        # Drawing: a stroke on the slide, kept on this screen only.
        driver.find_element(By.CSS_SELECTOR, '[data-action="draw"]').click()
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.drawMode") == "true", "draw mode")
        stage = driver.find_element(By.CSS_SELECTOR, "podium-stage")
        from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
        ActionChains(driver).move_to_element_with_offset(stage, -100, -40).click_and_hold() \
            .move_by_offset(80, 30).move_by_offset(80, 20).release().perform()
        wait_for(driver, lambda d: stage_attr(d, "data-strokes") == "1", "the stroke on the rehearsal stage")
        screenshot(driver, "rehearse-bank-and-ink")
        status_after, after = SERVER.api("GET", "/api/v1/sessions")
        self.assertEqual(len(after if isinstance(after, list) else after.get("sessions", [])),
                         len(before if isinstance(before, list) else before.get("sessions", [])),
                         "no live session was started")

        # A later session sends it from the bank in one click, then the presenter deletes it.
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        presenter.find_element(By.ID, "tab-polls").click()
        prepared = '//li[contains(@class,"bank-item")][contains(., "Prepared in rehearsal? Yes.")]'
        wait_for(presenter, lambda d: d.find_elements(By.XPATH, prepared), "the prepared question in the console's bank")
        presenter.find_element(By.XPATH, prepared + '//button[@data-action="send-poll"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open"
                 and "Prepared in rehearsal? Yes." in (text_of(d, "#active-poll") or ""), "the prepared poll sent")
        presenter.find_element(By.XPATH, prepared + '//button[@data-action="delete-question"]').click()
        click(presenter, 'dialog [data-role="confirm"]')
        wait_for(presenter, lambda d: not d.find_elements(By.XPATH, prepared), "the question deleted")

    def test_5_room_projector_shows_the_spotlight(self):
        """A room's projector shows what the moderator puts on screen, full-screen, and drops it."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Spotlight room"})
        self.assertEqual(status, 201)
        code = room["code"]
        projector = self.driver(1920, 1080)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}")  # no slide yet in the room: wait for the connection only
        wait_for(viewer, lambda d: visible(d, "#gate-form"), "the join gate")
        viewer.find_element(By.ID, "viewer-name").send_keys("Ana")
        viewer.find_element(By.ID, "join-button").click()
        wait_for(viewer, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the viewer live")

        # The moderator's commands, from a signed-in browser, through the browser's own live client.
        moderator = self.driver(800, 600)
        self.sign_in_with_cookie(moderator)
        moderator.get(SERVER.base + "/")
        moderator.set_script_timeout(harness.WAIT)
        connected = moderator.execute_async_script("""
            const [code, done] = [arguments[0], arguments[arguments.length - 1]];
            import('/app/live/live.js').then(({ LiveClient }) => {
              const live = new LiveClient(code, { role: 'moderator' });
              window.moderatorLive = live;
              live.addEventListener('welcome', () => done(true), { once: true });
              live.addEventListener('fatal', (e) => done(e.detail.code), { once: true });
              live.connect();
            });""", code)
        self.assertIs(connected, True)

        def command(message):
            return moderator.execute_async_script("""
                const [message, done] = [arguments[0], arguments[arguments.length - 1]];
                window.moderatorLive.send(message).then((ack) => done(ack), (error) => done({ error: error.code }));""",
                message)

        opened = command({"type": "openPoll", "poll": {"kind": "choice", "question": "Ready for the break?",
                                                        "choices": ["Yes", "Not yet"]}})
        self.assertNotIn("error", opened)
        self.answer_choice(viewer, 0)
        poll_id = opened["seq"]
        self.assertNotIn("error", command({"type": "spotlight", "spotlight": {"kind": "pollResults", "pollId": poll_id}}))
        wait_for(projector, lambda d: on_screen(d, "pollResults") and spot_bars(d) == [[1, 100, False], [0, 0, False]],
                 "the chart on the projector")
        self.assertIn("Poll 1 · Results", text_of(projector, "#spotlight .spot-kicker"))
        screenshot(projector, "spotlight-room-projector-1920")
        self.assertNotIn("error", command({"type": "spotlight", "spotlight": None}))
        wait_for(projector, lambda d: on_screen(d, None), "the projector back to its join screen")
        self.assertTrue(visible(projector, "#idle"))
