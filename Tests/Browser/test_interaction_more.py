#!/usr/bin/python3
"""Browser tests of quiz mode, public questions with upvotes, viewer notes and the session report
(with the clips shown).

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py quiz public notes report
"""

import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

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


FETCH_JS = """
const done = arguments[arguments.length - 1];
fetch(arguments[0], {credentials: 'same-origin'})
  .then(async (r) => done({status: r.status, type: r.headers.get('Content-Type') || '', text: await r.text()}))
  .catch((e) => done({status: 0, type: '', text: String(e)}));
"""


def fetch(driver, path):
    """GETs a path from inside the page, with that browser's cookies."""
    driver.set_script_timeout(30)
    return driver.execute_async_script(FETCH_JS, path)


def leaderboard_rows(driver, scope):
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' .leader-row')]"
        ".map(r => [Number(r.dataset.rank), r.dataset.name, Number(r.dataset.score)]);", scope)


class MoreInteractionTests(BrowserTest):
    def ask_quiz(self, presenter, question, choices, right):
        """Writes a quiz question in the editor and sends it without saving."""
        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        presenter.find_element(By.ID, "poll-question").send_keys(question)
        fields = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        for field, text in zip(fields, choices):
            field.send_keys(text)
        presenter.find_element(By.CSS_SELECTOR, 'label[for="poll-quiz"]').click()
        self.assertTrue(presenter.find_element(By.ID, "poll-quiz").is_selected(), "the quiz switch on")
        if right is None:
            return
        presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="correct"]')[right].click()
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(presenter, lambda d: not d.find_elements(By.ID, "poll-editor"), "the editor to close")
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the quiz question open")

    def answer(self, viewer, index):
        wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"]'), "the question on the viewer")
        wait_for(viewer, lambda d: visible(d, f'#poll-sheet .poll-option[data-index="{index}"]'), "the choice").click()
        viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer held")

    def test_quiz_scores_and_leaderboard(self):
        """Two quiz questions, two viewers: each sees their score and rank; the presenter's leaderboard is in order."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        ana = self.driver(390, 844)
        self.join_as_viewer(ana, code, name="Ana")
        ben = self.driver(390, 844)
        self.join_as_viewer(ben, code, name="Ben")
        wait_for(presenter, lambda d: text_of(d, "#viewer-count") == "2", "two viewers connected")

        # A quiz question needs a right answer: the editor says so instead of sending it.
        self.ask_quiz(presenter, "2 + 2 = ?", ["4", "5"], None)
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        error = wait_for(presenter, lambda d: visible(d, "#poll-editor .form-error"), "the editor's error")
        self.assertIn("needs a right answer", error.text)
        screenshot(presenter, "presenter-quiz-editor-error")
        presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="correct"]')[0].click()
        screenshot(presenter, "presenter-quiz-editor")
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the first quiz question open")
        self.assertIn("Quiz", text_of(presenter, "#active-poll"))

        # Ana right, Ben wrong; then the answer and results are revealed.
        self.answer(ana, 0)
        self.answer(ben, 1)
        self.assertIn("Quiz", text_of(ana, "#poll-sheet .sheet-kicker"))
        presenter.find_element(By.CSS_SELECTOR, '#active-poll [data-action="reveal"]').click()
        wait_for(presenter, lambda d: d.find_element(By.CSS_SELECTOR, '#active-poll [data-results-to="phones"]').click() or True,
                 "Results: on phones")
        for viewer, rank in ((ana, "1"), (ben, "2")):
            card = wait_for(viewer, lambda d: visible(d, '[data-role="my-score"]'), "the viewer's score")
            wait_for(viewer, lambda d: attr(d, '[data-role="my-score"]', "data-rank") == rank, f"rank {rank}")
            self.assertEqual(attr(viewer, '[data-role="my-score"]', "data-players"), "2")
        self.assertIn("1st of 2", text_of(ana, '[data-role="my-score"]'))
        self.assertIn("You: 0 points — 2nd of 2", text_of(ben, '[data-role="my-score"]'))
        first_score = int(attr(ana, '[data-role="my-score"]', "data-score"))
        self.assertTrue(500 <= first_score <= 1000, first_score)
        screenshot(ana, "viewer-quiz-score")

        # The second question: both right. Ana stays ahead (she also had the first).
        self.ask_quiz(presenter, "Capital of Italy?", ["Milan", "Rome", "Turin"], 1)
        self.answer(ben, 1)
        self.answer(ana, 1)
        presenter.find_element(By.CSS_SELECTOR, '#active-poll [data-action="close-poll"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "closed", "the question closed")
        wait_for(ben, lambda d: attr(d, '[data-role="my-score"]', "data-score") not in (None, "0"), "Ben's points")
        wait_for(ana, lambda d: int(attr(d, '[data-role="my-score"]', "data-score") or 0) > first_score, "Ana's new points")
        ana_score = int(attr(ana, '[data-role="my-score"]', "data-score"))
        ben_score = int(attr(ben, '[data-role="my-score"]', "data-score"))
        self.assertGreater(ana_score, ben_score)
        self.assertEqual(attr(ana, '[data-role="my-score"]', "data-rank"), "1")
        self.assertEqual(attr(ben, '[data-role="my-score"]', "data-rank"), "2")
        # Each viewer's sheet shows the top ten between questions.
        wait_for(ben, lambda d: leaderboard_rows(d, "#poll-sheet") == [[1, "Ana", ana_score], [2, "Ben", ben_score]],
                 "the leaderboard on the viewer")
        screenshot(ben, "viewer-quiz-leaderboard")

        # The presenter's leaderboard, in the panel, and on everyone's screen, large.
        wait_for(presenter, lambda d: leaderboard_rows(d, "#active-poll") == [[1, "Ana", ana_score], [2, "Ben", ben_score]],
                 "the leaderboard on the console")
        presenter.find_element(By.CSS_SELECTOR, '[data-action="spotlight"][data-spotlight-kind="leaderboard"]').click()
        for screen in (presenter, ben):
            wait_for(screen, lambda d: visible(d, '#spotlight[data-kind="leaderboard"]'), "the large leaderboard")
            wait_for(screen, lambda d: d.execute_script(
                "return [...document.querySelectorAll('#spotlight .spot-leader')]"
                ".map(r => [Number(r.dataset.rank), r.dataset.name, Number(r.dataset.score)]);")
                == [[1, "Ana", ana_score], [2, "Ben", ben_score]], "the leaderboard's rows")
        harness.dismiss_toasts(presenter)
        screenshot(presenter, "presenter-quiz-leaderboard")
        presenter.find_element(By.CSS_SELECTOR, '#spotlight [data-action="spotlight-off"]').click()
        for screen in (presenter, ben):
            wait_for(screen, lambda d: not visible(d, "#spotlight"), "the leaderboard taken off")

        # A late joiner gets the leaderboard in the welcome.
        late = self.driver(390, 844)
        self.join_as_viewer(late, code, name="Cleo")
        wait_for(late, lambda d: len(leaderboard_rows(d, "#poll-sheet")) == 2, "the leaderboard for a late joiner")
        self.assertIn("not on the board", text_of(late, '[data-role="my-score"]'))

    def test_public_questions_with_approval_and_upvotes(self):
        """A question reaches other viewers only once approved; an upvote counts once and can be taken back."""
        status, session = SERVER.api("POST", "/api/v1/sessions", {
            "deckId": DEMO_DECK["id"], "questions": {"public": True, "approval": True}})
        self.assertEqual(status, 201, session)
        code = session["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        presenter.find_element(By.ID, "tab-questions").click()
        wait_for(presenter, lambda d: d.find_element(By.ID, "questions-public").is_selected(), "public on, from the session")
        self.assertTrue(presenter.find_element(By.ID, "questions-approval").is_selected(), "approval on")

        asker = self.driver(390, 844)
        self.join_as_viewer(asker, code, name="Dan")
        reader = self.driver(390, 844)
        self.join_as_viewer(reader, code, name="Eve")
        button = wait_for(reader, lambda d: visible(d, "#questions-button"), "the Questions button")
        button.click()
        wait_for(reader, lambda d: visible(d, "#questions-dialog .public-empty"), "an empty list")
        self.assertIn("approves", text_of(reader, "#questions-dialog .public-hint"))
        screenshot(reader, "viewer-questions-empty")
        reader.find_element(By.CSS_SELECTOR, "#questions-dialog .sheet-icon-btn").click()

        # Dan asks anonymously; it waits for approval.
        asker.find_element(By.ID, "ask-button").click()
        wait_for(asker, lambda d: visible(d, "#ask-text"), "the question form").send_keys("Is there a recording?")
        asker.find_element(By.ID, "ask-anonymous").click()
        asker.find_element(By.ID, "ask-send").click()
        wait_for(asker, lambda d: not d.find_elements(By.ID, "ask-dialog"), "the question sent")
        item = wait_for(presenter, lambda d: visible(d, '.question-item[data-approved="false"]'), "the question, not approved")
        self.assertEqual(attr(presenter, ".question-item", "data-votes"), "0")
        self.assertEqual(text_of(reader, '[data-role="public-count"]'), "", "nothing public yet")
        harness.dismiss_toasts(presenter)
        screenshot(presenter, "presenter-questions-approval")

        item.find_element(By.CSS_SELECTOR, '[data-action="approve-question"]').click()
        wait_for(presenter, lambda d: attr(d, ".question-item", "data-approved") == "true", "approved")
        wait_for(reader, lambda d: text_of(d, '[data-role="public-count"]') == "1", "the count on the reader's button")
        reader.find_element(By.ID, "questions-button").click()
        row = wait_for(reader, lambda d: visible(d, "#questions-dialog .public-question"), "the approved question")
        self.assertIn("Is there a recording?", row.text)
        self.assertEqual(row.find_element(By.CSS_SELECTOR, '[data-role="asker"]').text, "Anonymous")
        self.assertEqual(row.get_attribute("data-votes"), "0")

        # An upvote counts once; a second tap takes it back; a third gives it again.
        vote = '#questions-dialog .public-question [data-action="vote"]'
        reader.find_element(By.CSS_SELECTOR, vote).click()
        wait_for(reader, lambda d: attr(d, "#questions-dialog .public-question", "data-votes") == "1"
                 and attr(d, vote, "aria-pressed") == "true", "one vote, highlighted")
        wait_for(presenter, lambda d: attr(d, ".question-item", "data-votes") == "1", "the vote on the console")
        screenshot(reader, "viewer-questions-upvoted")
        reader.find_element(By.CSS_SELECTOR, vote).click()
        wait_for(reader, lambda d: attr(d, "#questions-dialog .public-question", "data-votes") == "0"
                 and attr(d, vote, "aria-pressed") == "false", "the vote taken back")
        reader.find_element(By.CSS_SELECTOR, vote).click()
        wait_for(reader, lambda d: attr(d, "#questions-dialog .public-question", "data-votes") == "1", "voted again")
        wait_for(presenter, lambda d: attr(d, ".question-item", "data-votes") == "1", "still one vote on the console")

        # The asker sees it too, with the vote, not highlighted for them; then it is answered.
        harness.dismiss_toasts(asker)
        asker.find_element(By.ID, "questions-button").click()
        wait_for(asker, lambda d: attr(d, "#questions-dialog .public-question", "data-votes") == "1", "the vote for the asker")
        self.assertEqual(attr(asker, vote, "aria-pressed"), "false")
        presenter.find_element(By.CSS_SELECTOR, '.question-item [data-action="mark-answered"]').click()
        wait_for(asker, lambda d: visible(d, '#questions-dialog [data-role="answered"]'), "the Answered badge")

        # Taking questions private hides the list again.
        presenter.find_element(By.CSS_SELECTOR, 'label[for="questions-public"]').click()
        wait_for(reader, lambda d: not visible(d, "#questions-button"), "the list gone when questions are private")
        self.assertFalse(presenter.find_element(By.ID, "questions-public").is_selected())

    def test_viewer_notes_survive_a_reload_and_download(self):
        """Notes on two slides come back after a reload and are in the Markdown download."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, name="Fay")

        viewer.find_element(By.ID, "notes-button").click()
        field = wait_for(viewer, lambda d: visible(d, "#notes-text"), "the notes panel")
        self.assertEqual(attr(viewer, "#notes-panel", "data-page"), "1")
        field.send_keys("Slide one: remember the opening question")
        wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-state") == "saved", "saved")
        self.assertEqual(attr(viewer, "#notes-button", "data-has-note"), "true")
        screenshot(viewer, "viewer-notes")

        # The presenter moves on: the note being written stays on its slide; the viewer goes on.
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-behind") == "2", "the notice of slide 2")
        viewer.find_element(By.CSS_SELECTOR, '[data-action="notes-follow"]').click()
        wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-page") == "2", "the panel on slide 2")
        self.assertEqual(viewer.find_element(By.ID, "notes-text").get_attribute("value"), "")
        self.assertEqual(attr(viewer, "#notes-button", "data-has-note"), "false")
        viewer.find_element(By.ID, "notes-text").send_keys("Slide two: look up the numbers")
        wait_for(viewer, lambda d: attr(d, "#notes-panel", "data-state") == "saved", "the second note saved")

        viewer.refresh()
        self.wait_watching(viewer)
        wait_for(viewer, lambda d: attr(d, "#notes-button", "data-has-note") == "true", "slide 2's note after the reload")
        screenshot(viewer, "viewer-bar-with-note")
        desk = self.driver(1280, 800)
        self.join_as_viewer(desk, code, name="Hal")
        desk.find_element(By.ID, "notes-button").click()
        wait_for(desk, lambda d: visible(d, "#notes-text"), "the notes panel on a laptop")
        screenshot(desk, "viewer-notes-laptop")
        viewer.find_element(By.ID, "notes-button").click()
        wait_for(viewer, lambda d: visible(d, "#notes-text").get_attribute("value") == "Slide two: look up the numbers",
                 "the note of slide 2")
        self.press(presenter, Keys.ARROW_LEFT)
        wait_for(viewer, lambda d: viewer.find_element(By.ID, "notes-text").get_attribute("value")
                 == "Slide one: remember the opening question", "the note of slide 1")

        href = viewer.find_element(By.CSS_SELECTOR, '[data-action="download-notes"]').get_attribute("href")
        self.assertTrue(href.endswith(f"/api/v1/sessions/{code}/notes.md"), href)
        result = fetch(viewer, f"/api/v1/sessions/{code}/notes.md")
        self.assertEqual(result["status"], 200, result)
        self.assertIn("Slide one: remember the opening question", result["text"])
        self.assertIn("Slide two: look up the numbers", result["text"])
        # Private: the presenter cannot read them.
        self.assertNotEqual(fetch(presenter, f"/api/v1/sessions/{code}/notes.md")["status"], 200)

    def test_report_after_a_session(self):
        """After a poll and a question, the report shows the chart, the question and working CSV links."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, name="Gus")

        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        presenter.find_element(By.ID, "poll-question").send_keys("Which colour do you like best?")
        fields = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        fields[0].send_keys("Red")
        fields[1].send_keys("Blue")
        presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="correct"]')[1].click()
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the poll open")
        wait_for(viewer, lambda d: visible(d, '#poll-sheet .poll-option[data-index="1"]'), "the poll").click()
        viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer held")
        presenter.find_element(By.CSS_SELECTOR, '#active-poll [data-action="reveal"]').click()
        # The reveal opens the sheet to show the answer: collapse it after that, not before (the
        # reveal arriving later covered the ask button with the results again).
        wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-poll-status") == "revealed", "the reveal on the viewer")
        viewer.find_element(By.CSS_SELECTOR, '[data-action="collapse-poll"]').click()
        viewer.find_element(By.ID, "ask-button").click()
        wait_for(viewer, lambda d: visible(d, "#ask-text"), "the question form").send_keys("=SUM(1,2) is this safe in a CSV?")
        viewer.find_element(By.ID, "ask-send").click()
        wait_for(viewer, lambda d: not d.find_elements(By.ID, "ask-dialog"), "the question sent")
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, ".question-item"), "the question on the console")

        # End the session; the ended card leads to the report.
        harness.dismiss_toasts(presenter)
        presenter.find_element(By.ID, "end-session").click()
        wait_for(presenter, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the end confirmation").click()
        link = wait_for(presenter, lambda d: visible(d, "#ended-report"), "View report")
        self.assertTrue(link.get_attribute("href").endswith(f"/report.html?code={code}"))
        screenshot(presenter, "presenter-ended-report-link")
        link.click()
        wait_for(presenter, lambda d: attr(d, "#report", "data-state") == "ready", "the report")
        self.assertIn(DEMO_DECK["title"], text_of(presenter, ".report-title"))
        self.assertNotIn("still live", text_of(presenter, ".report-head .report-meta"), "the session is over")
        self.assertTrue(text_of(presenter, '[data-role="unique-viewers"] strong') == "1")
        self.assertTrue(visible(presenter, '[data-role="attendance-chart"]'), "the attendance chart")
        poll = presenter.find_element(By.CSS_SELECTOR, ".report-poll")
        self.assertIn("Which colour do you like best?", poll.text)
        rows = presenter.execute_script(
            "return [...document.querySelectorAll('.report-poll .bar-row')].map(r => [Number(r.dataset.count), r.dataset.correct]);")
        self.assertEqual(rows, [[0, "false"], [1, "true"]])
        self.assertIn("100%", poll.text)
        question = presenter.find_element(By.CSS_SELECTOR, ".report-question")
        self.assertIn("=SUM(1,2) is this safe in a CSV?", question.text)
        self.assertIn("Gus", question.text)
        self.assertIn("Not answered", question.text)
        screenshot(presenter, "report")
        presenter.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        screenshot(presenter, "report-bottom")

        for kind in ("attendance", "polls", "answers", "questions"):
            href = presenter.find_element(By.CSS_SELECTOR, f'a[data-csv="{kind}"]').get_attribute("href")
            result = fetch(presenter, href)
            self.assertEqual(result["status"], 200, (kind, result))
            self.assertIn("csv", result["type"], (kind, result["type"]))
        polls_csv = fetch(presenter, f"/api/v1/sessions/{code}/report/polls.csv")["text"]
        self.assertIn("Which colour do you like best?", polls_csv)
        questions_csv = fetch(presenter, f"/api/v1/sessions/{code}/report/questions.csv")["text"]
        self.assertIn("'=SUM(1,2) is this safe in a CSV?", questions_csv, "a formula-like cell is defused")

        # Signed out, the report sends you to sign in and back.
        stranger = self.driver(1024, 768)
        stranger.get(f"{SERVER.base}/report.html?code={code}")
        wait_for(stranger, lambda d: "/login?next=" in d.current_url, "the sign-in page")
        self.assertIn("report.html", stranger.current_url)

    def test_report_lists_the_clips_shown(self):
        """A clip put on stage is in the report with its poster and times, in clips.csv, and stays
        there, as "deleted clip", once it is deleted from the library."""
        video_id = upload_clip("Opening clip")
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        presenter.get(f"{SERVER.base}/report.html?code={code}")
        wait_for(presenter, lambda d: attr(d, "#report", "data-state") == "ready", "the report before any clip")
        self.assertFalse(presenter.find_elements(By.CSS_SELECTOR, ".report-clip"), "no clip shown yet")
        self.assertFalse(presenter.find_elements(By.CSS_SELECTOR, 'a[data-csv="clips"]'), "no clips to download yet")
        # The player is another feature's: drive the stage over the live socket, as the console does.
        answers = drive(presenter, code, [
            {"type": "showVideo", "videoId": video_id}, {"type": "playback", "action": "play"},
            {"type": "playback", "action": "pause"}, {"type": "goto", "page": 2}, {"type": "end"},
        ])
        self.assertEqual([a["type"] for a in answers], ["ack"] * 5, answers)

        presenter.refresh()
        wait_for(presenter, lambda d: attr(d, "#report", "data-state") == "ready", "the report")
        clip = wait_for(presenter, lambda d: visible(d, ".report-clip"), "the clip in the report")
        self.assertEqual(clip.get_attribute("data-video"), video_id)
        self.assertEqual(clip.get_attribute("data-deleted"), "false")
        self.assertIn("Opening clip", clip.text)
        self.assertIn("on stage", clip.text)
        self.assertIn("of 2 s played", text_of(presenter, '.report-clip [data-role="clip-played"]'))
        # Shown without captions (WCAG 1.2.2): the report says so, visibly.
        captions = wait_for(presenter, lambda d: visible(d, '.report-clip [data-role="clip-captions"]'), "the clip's captions line")
        self.assertEqual(captions.get_attribute("data-captions"), "none")
        self.assertEqual(captions.text, "No captions")
        wait_for(presenter, lambda d: d.execute_script(
            "const i = document.querySelector('.report-clip-poster img'); return i && i.complete && i.naturalWidth > 0;"),
            "the poster frame")
        presenter.execute_script("document.querySelector('.report-clip').scrollIntoView({block: 'center'})")
        screenshot(presenter, "report-clips")
        href = presenter.find_element(By.CSS_SELECTOR, 'a[data-csv="clips"]').get_attribute("href")
        csv = fetch(presenter, href)
        self.assertEqual(csv["status"], 200, csv)
        self.assertTrue(csv["text"].startswith("clip,title,shown_at,hidden_at"), csv["text"])
        self.assertIn("1,Opening clip,", csv["text"])

        status, _ = SERVER.api("DELETE", f"/api/v1/videos/{video_id}")
        self.assertEqual(status, 204)
        presenter.refresh()
        wait_for(presenter, lambda d: attr(d, ".report-clip", "data-deleted") == "true", "the deleted clip")
        self.assertEqual(text_of(presenter, ".report-clip-title"), "deleted clip")
        self.assertFalse(presenter.find_elements(By.CSS_SELECTOR, ".report-clip-poster img"), "no poster for a deleted clip")
        presenter.execute_script("document.querySelector('.report-clip').scrollIntoView({block: 'center'})")
        screenshot(presenter, "report-clips-deleted")
        harness.size_driver(presenter, 390, 844)
        presenter.execute_script("document.querySelector('.report-clip').scrollIntoView({block: 'center'})")
        screenshot(presenter, "report-clips-phone")


def upload_clip(title, seconds=2):
    """Makes a short clip with ffmpeg, uploads it and waits (on its status) until it is packaged."""
    with tempfile.TemporaryDirectory(prefix="podium-clip-") as directory:
        path = Path(directory) / "clip.mp4"
        subprocess.run([
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=320x180:rate=25:duration={seconds}",
            "-f", "lavfi", "-i", f"sine=frequency=440:duration={seconds}", "-c:v", "libx264", "-preset", "ultrafast",
            "-pix_fmt", "yuv420p", "-c:a", "aac", str(path),
        ], check=True)
        status, video = SERVER.api(
            "POST", "/api/v1/videos?title=" + urllib.parse.quote(title), raw=path.read_bytes(), content_type="video/mp4")
    if status != 201:
        raise AssertionError(f"the upload answered {status}: {video}")
    deadline = time.monotonic() + 90
    while video["status"] in ("queued", "processing"):
        if time.monotonic() > deadline:
            raise AssertionError(f"video {video['id']} still packaging: {video}")
        time.sleep(0.25)
        _, video = SERVER.api("GET", f"/api/v1/videos/{video['id']}")
    if video["status"] != "ready":
        raise AssertionError(f"video {video['id']} failed: {video}")
    return video["id"]


def drive(driver, code, commands):
    """Opens a presenter socket from the page (signed in by its cookie) and sends the commands one
    after the other, each when the previous one is answered; returns the answers."""
    driver.set_script_timeout(30)
    return driver.execute_async_script(DRIVE_JS, code, commands)


DRIVE_JS = """
const [code, commands, done] = arguments;
const socket = new WebSocket(location.origin.replace(/^http/, 'ws') + '/api/v1/sessions/' + code + '/live');
const answers = [];
let next = 0;
function send() {
  if (next === commands.length) { socket.close(); done(answers); return; }
  socket.send(JSON.stringify({...commands[next], id: 'drive-' + next}));
}
socket.onopen = () => socket.send(JSON.stringify({type: 'hello', role: 'presenter'}));
socket.onmessage = (message) => {
  const frame = JSON.parse(message.data);
  if (frame.type === 'welcome') { send(); return; }
  if (frame.id === 'drive-' + next && (frame.type === 'ack' || frame.type === 'error')) {
    answers.push(frame);
    next += 1;
    send();
  } else if (frame.type === 'error' && !frame.id) {
    done([frame]);
  }
};
socket.onerror = () => done([{type: 'socket error'}]);
"""
