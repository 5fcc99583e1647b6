#!/usr/bin/python3
"""Browser tests of the channel's quizzes: a visitor (not a member) sees every quiz but may open
only the newest, takes it one question at a time, gets the score and the best score, and keeps
the best after a worse try.
Alone:  python3 Tests/Browser/run_browser_tests.py ChannelQuizzes
"""

import sys
import time

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

QUESTIONS = [
    ("Capital of Czechia?", [("Brno", False), ("Praha", True), ("Ostrava", False)]),
    ("A river of Prague?", [("Vltava", True), ("Dunaj", False)]),
    ("Oldest university of Central Europe?", [("Charles University", True), ("Masaryk University", False)]),
]


def setUpModule():
    if not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def make_quiz(name):
    status, quiz = SERVER.api("POST", "/api/v1/channel/quizzes", {
        "name": name, "description": "Ten questions about " + name, "published": True,
        "questions": [{"text": text, "answers": [{"text": a, "correct": c} for a, c in answers]} for text, answers in QUESTIONS],
    })
    assert status == 201, (status, quiz)
    return quiz["quiz"]["id"]


def answer(driver, text, number):
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, ".quiz-count").text.startswith(f"Question {number} "),
             f"question {number}")
    buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, ".quiz-answer") if b.text == text]
    assert buttons, text
    buttons[0].click()


class ChannelQuizzesTests(BrowserTest):
    def test_1_a_quiz_is_taken_scored_and_the_best_kept(self):
        old = make_quiz("Czech towns")
        time.sleep(0.01)  # published a moment later: the newest
        new = make_quiz("Prague")
        phone = self.driver(390, 844)
        phone.get(SERVER.base + "/channel#quizzes")
        wait_for(phone, lambda d: visible(d, ".quiz-current"), "the current quiz")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".quiz-current .quiz-name").text, "Prague")
        archived = phone.find_element(By.CSS_SELECTOR, f".quiz-archive .quiz-card[data-id='{old}']")
        self.assertIn("Members", archived.text)
        screenshot(phone, "channel-quizzes-list-phone")

        # Not a member: the older quiz shows the membership message instead of questions.
        archived.click()
        wait_for(phone, lambda d: "member" in d.find_element(By.CSS_SELECTOR, ".quiz-limit").text.lower(), "the membership message")
        self.assertEqual(phone.find_elements(By.CSS_SELECTOR, ".quiz-answer"), [])
        screenshot(phone, "channel-quizzes-archive-nonmember")

        # The newest: one question at a time, the score at the end.
        phone.get(SERVER.base + "/channel#quizzes/" + new)
        answer(phone, "Praha", 1)
        answer(phone, "Dunaj", 2)
        screenshot(phone, "channel-quizzes-question-phone")
        answer(phone, "Charles University", 3)
        wait_for(phone, lambda d: visible(d, ".quiz-result-score"), "the score")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".quiz-result-score").text, "2 / 3")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".quiz-result-best").text, "Your best: 2 / 3")
        wrong = phone.find_elements(By.CSS_SELECTOR, ".quiz-review-item.wrong .quiz-review-right")
        self.assertEqual([w.text for w in wrong], ["Right: Vltava"])
        screenshot(phone, "channel-quizzes-score-phone")

        # All right, then a worse try: the best stays 3.
        phone.find_element(By.CSS_SELECTOR, ".quiz-again").click()
        answer(phone, "Praha", 1)
        answer(phone, "Vltava", 2)
        answer(phone, "Charles University", 3)
        wait_for(phone, lambda d: d.find_element(By.CSS_SELECTOR, ".quiz-result-score").text == "3 / 3", "full marks")
        phone.find_element(By.CSS_SELECTOR, ".quiz-again").click()
        answer(phone, "Brno", 1)
        answer(phone, "Dunaj", 2)
        answer(phone, "Masaryk University", 3)
        wait_for(phone, lambda d: d.find_element(By.CSS_SELECTOR, ".quiz-result-score").text == "0 / 3", "no marks")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".quiz-result-best").text, "Your best: 3 / 3")

        phone.find_element(By.CSS_SELECTOR, ".quiz-back").click()
        wait_for(phone, lambda d: d.find_element(By.CSS_SELECTOR, ".quiz-current .quiz-score").text == "Best 3/3", "the best score listed")

    def test_2_admin_writes_a_quiz_and_reorders_its_questions(self):
        laptop = self.driver(1280, 900)
        self.sign_in_with_cookie(laptop)
        laptop.get(SERVER.base + "/channel/admin#quizzes")
        wait_for(laptop, lambda d: visible(d, ".admin-add-quiz"), "the quizzes table")
        laptop.find_element(By.CSS_SELECTOR, ".admin-add-quiz").click()
        wait_for(laptop, lambda d: visible(d, ".admin-quiz-form input[name=name]"), "the editor")
        laptop.find_element(By.CSS_SELECTOR, ".admin-quiz-form input[name=name]").send_keys("Rivers")
        laptop.find_element(By.CSS_SELECTOR, ".admin-add-question").click()

        def fill(index, question, answers):
            row = laptop.find_elements(By.CSS_SELECTOR, ".quiz-question-row")[index]
            row.find_element(By.CSS_SELECTOR, ".quiz-question-text").send_keys(question)
            texts = row.find_elements(By.CSS_SELECTOR, ".quiz-answer-text")
            boxes = row.find_elements(By.CSS_SELECTOR, ".quiz-answer-correct")
            for (text, right), field, box in zip(answers, texts, boxes):
                field.send_keys(text)
                if right:
                    box.click()

        fill(0, "Longest Czech river?", [("Vltava", True), ("Morava", False)])
        fill(1, "Which river flows through Brno?", [("Svratka", True), ("Ohře", False)])
        # Move the second question up with the keyboard, publish, save.
        laptop.find_elements(By.CSS_SELECTOR, ".quiz-question-row .reorder-handle")[1].send_keys(Keys.ARROW_UP)
        self.assertEqual(laptop.find_element(By.CSS_SELECTOR, ".quiz-question-row .quiz-question-text").get_attribute("value"),
                         "Which river flows through Brno?")
        publish = laptop.find_element(By.CSS_SELECTOR, ".admin-quiz-form .admin-check input")
        laptop.execute_script("arguments[0].scrollIntoView({block: 'center'})", publish)
        publish.click()
        screenshot(laptop, "channel-admin-quiz-editor")
        save = laptop.find_element(By.CSS_SELECTOR, ".admin-quiz-form button[type=submit]")
        laptop.execute_script("arguments[0].scrollIntoView({block: 'center'})", save)
        save.click()
        wait_for(laptop, lambda d: any(e.text == "Rivers" for e in d.find_elements(By.CSS_SELECTOR, ".admin-quizzes .admin-row-title strong")), "the new quiz listed")
        status, quizzes = SERVER.api("GET", "/api/v1/channel/quizzes?status=all")
        quiz = [q for q in quizzes if q["name"] == "Rivers"][0]
        status, full = SERVER.api("GET", f"/api/v1/channel/quizzes/{quiz['id']}?status=all")
        self.assertEqual([q["text"] for q in full["questions"]], ["Which river flows through Brno?", "Longest Czech river?"])
        self.assertEqual([[a["correct"] for a in q["answers"]] for q in full["questions"]], [[True, False], [True, False]])
        self.assertIsNotNone(full["quiz"]["publishedAt"])
        screenshot(laptop, "channel-admin-quizzes")
