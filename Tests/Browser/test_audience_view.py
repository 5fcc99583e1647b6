#!/usr/bin/python3
"""What the audience sees (#36): a closed poll's card leaves the phone and never covers what is on
screen; nothing of a poll or a question stays once the session ends; the presenter's one results
control (hidden · on phones · big screen) says where the results are, and the phone shows just
that; on a 360-390 px phone the viewer's actions carry words and fit without sideways scrolling.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py audience_view
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
screenshot = harness.screenshot


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def attr(driver, css, name):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name)


def click(driver, css, message=None):
    """Clicks an element of a panel that is drawn again as updates arrive."""
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, css).click() or True, message or f"a click on {css}")


def spotlight_uncovered(driver):
    """The spotlight's chart is on screen and what a person sees at the centre of the chart, of
    each bar, of each choice's figures and of the answer count is the chart, not a card, a pill or
    the bar; and no poll card or pill overlaps any of them."""
    return driver.execute_script(
        """
        const spot = document.getElementById('spotlight');
        if (!spot || spot.hidden || spot.dataset.kind !== 'pollResults') return false;
        const parts = [spot.querySelector('.spot-bars'), ...spot.querySelectorAll('.spot-bar, .spot-value, .spot-foot')];
        if (parts.length < 3 || !parts[0]) return false;
        const covers = [document.getElementById('poll-sheet'), document.getElementById('poll-pill')]
          .filter((e) => e && !e.hidden && e.getClientRects().length).map((e) => e.getBoundingClientRect());
        return parts.every((part) => {
          const r = part.getBoundingClientRect();
          if (r.width <= 0 || r.height <= 0) return false;
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          const overlapped = covers.some((c) => c.left < r.right && r.left < c.right && c.top < r.bottom && r.top < c.bottom);
          return Boolean(hit) && spot.contains(hit) && !overlapped;
        });
        """)


def card_shown(driver):
    """Whether anything of a poll shows on the phone: its card or its pill."""
    return bool(visible(driver, "#poll-sheet") or visible(driver, "#poll-pill"))


def card_chart(driver):
    """The counts of the chart on the phone's poll card, or None when it shows no chart."""
    return driver.execute_script(
        """
        const sheet = document.getElementById('poll-sheet');
        const rows = sheet && !sheet.hidden ? [...sheet.querySelectorAll('.poll-results:not([hidden]) .bar-row')] : [];
        return rows.length && rows[0].getClientRects().length ? rows.map((r) => Number(r.dataset.count)) : null;
        """)


def on_screen(driver):
    """The kind on the phone's spotlight, or None."""
    return driver.execute_script(
        "const s = document.getElementById('spotlight'); return s && !s.hidden ? s.dataset.kind : null;")


def bar_lines(driver):
    """The viewer's bar as a person sees it: the tops of the lines its shown actions sit on, their
    ids in order, the status pill (shown, inside the screen), and any two of the title, the status
    and the actions that overlap."""
    return driver.execute_script("""
        const bar = document.getElementById('watch-bar');
        const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
        const actions = [...bar.querySelectorAll(':scope > .btn')].filter(shown);
        const parts = [document.querySelector('.watch-title'), document.getElementById('status'), ...actions];
        const boxes = parts.map((e) => e.getBoundingClientRect());
        const overlaps = [];
        boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b, j) => {
          if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
            overlaps.push([parts[i].id || parts[i].className, parts[i + 1 + j].id || parts[i + 1 + j].className]);
        }));
        const status = document.getElementById('status').getBoundingClientRect();
        return {
          actions: [...new Set(actions.map((a) => Math.round(a.getBoundingClientRect().top)))],
          ids: actions.map((a) => a.id), overlaps,
          status: { shown: shown(document.getElementById('status')) && status.width > 0,
                    inside: status.left >= 0 && status.right <= innerWidth && status.bottom <= innerHeight },
        };""")


class AudienceViewTests(BrowserTest):
    def ask(self, presenter, question, choices, correct=None):
        """Sends a multiple-choice poll without saving it."""
        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        presenter.find_element(By.ID, "poll-question").send_keys(question)
        fields = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        for index, text in enumerate(choices):
            if index >= len(fields):
                presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="add-choice"]').click()
                fields = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
            fields[index].send_keys(text)
        if correct is not None:
            presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="correct"]')[correct].click()
        harness.dismiss_toasts(presenter)
        presenter.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(presenter, lambda d: not d.find_elements(By.ID, "poll-editor"), "the editor closed")
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the poll open")

    def answer(self, viewer, index):
        wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] .poll-option'), "the poll on the phone")
        viewer.find_element(By.CSS_SELECTOR, f'#poll-sheet .poll-option[data-index="{index}"]').click()
        viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer held")

    def results_to(self, presenter, where):
        """Moves the newest poll's results with the one control, and waits until the console says so."""
        def attempt(d):
            control = d.find_element(By.CSS_SELECTOR, '#active-poll [data-role="results-where"]')
            if control.get_attribute("data-where") == where:
                return True
            control.find_element(By.CSS_SELECTOR, f'[data-results-to="{where}"]').click()
            return False
        wait_for(presenter, attempt, f"the results: {where}")

    def line(self, presenter):
        return text_of(presenter, '#active-poll [data-role="results-where-line"]')

    def test_1_a_closed_poll_leaves_the_phone_and_nothing_stays_after_the_end(self):
        """Closed, a poll's card says thanks and leaves; its chart on screen is not covered (nor by
        the next poll's card, which folds to its pill); once the session ends, no poll and no
        question form is left on the phone."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        phone = self.driver(390, 844)
        self.join_as_viewer(phone, code, name="Ana")
        laptop = self.driver(1280, 720)
        self.join_as_viewer(laptop, code, name="Dan")

        self.ask(presenter, "Tea or coffee?", ["Tea", "Coffee", "Both"])
        self.answer(phone, 1)
        self.answer(laptop, 0)
        click(presenter, '#active-poll [data-action="close-poll"]')
        # A moment of thanks, then the card leaves: nothing of the poll on the phone.
        wait_for(phone, lambda d: "thanks" in (text_of(d, '#poll-sheet [data-role="poll-note"]') or ""), "the thanks")
        screenshot(phone, "audience-poll-closed-thanks-390")
        wait_for(phone, lambda d: not card_shown(d), "the closed poll's card gone")
        wait_for(laptop, lambda d: not card_shown(d), "the closed poll's card gone on the laptop")
        self.assertEqual(phone.execute_script("return document.body.dataset.pollStatus"), "none")

        # Its results on the big screen: the chart has the screen, nothing over it (on a laptop
        # the card floated over the figures of the chart's choices).
        self.results_to(presenter, "screen")
        for viewer in (phone, laptop):
            wait_for(viewer, lambda d: on_screen(d) == "pollResults", "the chart on the viewer")
            wait_for(viewer, spotlight_uncovered, "the chart uncovered")
            self.assertFalse(card_shown(viewer), "no card over the chart")
        screenshot(phone, "audience-closed-poll-results-on-screen-390")
        screenshot(laptop, "audience-closed-poll-results-on-screen-1280")

        # The next poll opens while the chart is on screen: its card folds to the pill, above the
        # chart's lower edge; one tap opens it.
        self.ask(presenter, "Which planet is largest?", ["Mars", "Jupiter"], correct=1)
        pill = wait_for(phone, lambda d: visible(d, "#poll-pill"), "the new poll's pill")
        self.assertFalse(visible(phone, "#poll-sheet"), "the card folded while something is on screen")
        wait_for(phone, spotlight_uncovered, "the chart still uncovered")
        screenshot(phone, "audience-open-poll-pill-over-spotlight-390")
        pill.click()
        self.answer(phone, 1)
        click(presenter, '#active-poll [data-action="reveal"]')
        wait_for(presenter, lambda d: attr(d, "#active-poll", "data-poll-status") == "revealed", "revealed")
        # Off the screen: the revealed answer is something to see, so its card shows.
        click(presenter, '#spotlight [data-action="spotlight-off"]')
        wait_for(phone, lambda d: on_screen(d) is None, "nothing on screen")
        wait_for(phone, lambda d: attr(d, "#poll-sheet", "data-poll-status") == "revealed" and visible(d, "#poll-sheet"),
                 "the revealed poll's card")
        self.assertTrue(visible(phone, "#ask-button"))

        # The end: no card, no pill, no chart, no question form.
        harness.dismiss_toasts(presenter)
        presenter.find_element(By.ID, "end-session").click()
        wait_for(presenter, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the end confirmation").click()
        wait_for(phone, lambda d: d.execute_script("return document.body.dataset.connection") == "ended", "ended on the phone")
        wait_for(phone, lambda d: not card_shown(d), "no poll after the end")
        self.assertIsNone(on_screen(phone))
        self.assertFalse(visible(phone, "#ask-button"), "no Ask after the end")
        self.assertFalse(visible(phone, "#questions-button"), "no questions after the end")
        self.assertFalse(visible(phone, "#ask-dialog"))
        # "Session ended" is longer than "Live": the bar's actions still keep one line together
        # (Full screen broke off onto a line of its own), and the status stays in sight.
        bar = wait_for(phone, lambda d: (lambda b: b if len(b["actions"]) == 1 else None)(bar_lines(d)),
                       "the bar's actions on one line after the end")
        self.assertEqual(bar["ids"], ["notes-button", "language-button", "fullscreen"], bar)
        self.assertTrue(bar["status"]["shown"] and bar["status"]["inside"], bar)
        self.assertEqual(bar["overlaps"], [], "nothing in the bar over anything else")
        screenshot(phone, "audience-after-the-end-390")

    def test_2_one_results_control_says_where_the_results_are(self):
        """Hidden, on phones, on the big screen: the console's words and the phone agree in every
        state, and there is no second control that could contradict them."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        phone = self.driver(390, 844)
        self.join_as_viewer(phone, code, name="Ben")

        self.ask(presenter, "Best day for the review?", ["Monday", "Friday"])
        self.answer(phone, 1)
        box = presenter.find_element(By.ID, "active-poll")
        self.assertFalse(box.find_elements(By.CSS_SELECTOR, '[data-action="reveal-results"]'), "no second results button")
        self.assertFalse(box.find_elements(By.CSS_SELECTOR, '[data-action="spotlight"][data-spotlight-kind="pollResults"]'),
                         "no separate on-screen toggle for the results")
        self.assertEqual(len(box.find_elements(By.CSS_SELECTOR, '[data-role="results-where"]')), 1)

        # Hidden (the default): the words say so and the phone shows no chart.
        self.assertEqual(attr(presenter, '#active-poll [data-role="results-where"]', "data-where"), "hidden")
        self.assertEqual(self.line(presenter), "Results hidden from the audience")
        self.assertIsNone(card_chart(phone))
        self.assertIsNone(on_screen(phone))
        screenshot(presenter, "audience-results-control-hidden")

        # On phones: the chart on the phone's card, voting still open.
        self.results_to(presenter, "phones")
        self.assertEqual(self.line(presenter), "Results on everyone’s phones")
        wait_for(phone, lambda d: card_chart(d) == [0, 1], "the chart on the phone's card")
        self.assertEqual(attr(phone, "#poll-sheet", "data-poll-status"), "open")
        self.assertIsNone(on_screen(phone))
        screenshot(phone, "audience-results-on-phones-390")
        screenshot(presenter, "audience-results-control-phones")

        # The big screen (and so the phones): the spotlight, with nothing over it.
        self.results_to(presenter, "screen")
        self.assertEqual(self.line(presenter), "Results on the big screen and on everyone’s phones")
        wait_for(phone, lambda d: on_screen(d) == "pollResults", "the chart on screen")
        wait_for(phone, spotlight_uncovered, "the chart uncovered")
        screenshot(phone, "audience-results-on-screen-390")
        screenshot(presenter, "audience-results-control-screen")

        # Back to the phones: off the screen, the card's chart again.
        self.results_to(presenter, "phones")
        wait_for(phone, lambda d: on_screen(d) is None and card_chart(d) == [0, 1], "back on the phone's card")
        self.assertEqual(self.line(presenter), "Results on everyone’s phones")

        # From the big screen straight to hidden: gone from the screen and from the card.
        self.results_to(presenter, "screen")
        wait_for(phone, lambda d: on_screen(d) == "pollResults", "on screen again")
        self.results_to(presenter, "hidden")
        self.assertEqual(self.line(presenter), "Results hidden from the audience")
        wait_for(phone, lambda d: on_screen(d) is None and card_chart(d) is None, "hidden everywhere")
        self.assertEqual(attr(phone, "#poll-sheet", "data-poll-status"), "open", "still open for answers")

        # Taken off from the console's preview instead: the words follow (on phones).
        self.results_to(presenter, "screen")
        click(presenter, '#spotlight [data-action="spotlight-off"]')
        wait_for(presenter, lambda d: attr(d, '#active-poll [data-role="results-where"]', "data-where") == "phones",
                 "the control says phones")
        wait_for(phone, lambda d: on_screen(d) is None and card_chart(d) == [0, 1], "the chart on the phone's card")

    def check_bar(self, phone, name):
        """Each of the bar's actions shows its word, inside the screen; no sideways scrolling; the
        bar is under the slide, not over it."""
        found = phone.execute_script(
            """
            const bar = document.getElementById('watch-bar');
            const width = window.innerWidth;
            const actions = [...bar.querySelectorAll('button, a.btn')].filter((b) => !b.hidden && b.getClientRects().length);
            const rows = actions.map((b) => {
              const label = b.querySelector('.btn-label');
              const rect = b.getBoundingClientRect();
              if (!label || !label.textContent.trim()) return { id: b.id, problem: 'no word' };
              const shown = label.getBoundingClientRect();
              const range = document.createRange();
              range.selectNodeContents(label);
              const text = range.getBoundingClientRect();
              const style = getComputedStyle(label);
              return {
                id: b.id, text: label.textContent.trim(), width: shown.width, textWidth: text.width,
                clipped: style.clip !== 'auto' || style.display === 'none' || style.visibility === 'hidden'
                  || shown.width + 1 < text.width || shown.height < 8,
                inside: rect.left >= -0.5 && rect.right <= width + 0.5,
              };
            });
            const stage = document.getElementById('stage').getBoundingClientRect();
            return {
              rows, scroll: document.documentElement.scrollWidth, width,
              stageBottom: stage.bottom, barTop: bar.getBoundingClientRect().top,
            };
            """)
        ids = [row["id"] for row in found["rows"]]
        for needed in ("ask-button", "notes-button", "language-button", "fullscreen"):
            self.assertIn(needed, ids, f"{name}: {needed} in the bar")
        for row in found["rows"]:
            self.assertNotIn("problem", row, f"{name}: {row}")
            self.assertGreater(row["width"], 0, f"{name}: {row}")
            self.assertFalse(row["clipped"], f"{name}: the word of {row['id']} is visible ({row})")
            self.assertTrue(row["inside"], f"{name}: {row['id']} inside the screen")
        self.assertLessEqual(found["scroll"], found["width"], f"{name}: no sideways scrolling")
        self.assertLessEqual(found["stageBottom"], found["barTop"] + 1, f"{name}: the bar is under the slide")
        hit = phone.execute_script(
            "const r = document.getElementById('stage').getBoundingClientRect();"
            "const e = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
            "return Boolean(e) && (e.id === 'stage' || Boolean(e.closest('podium-stage')));")
        self.assertTrue(hit, f"{name}: the slide is not covered")

    def test_3_phone_bar_actions_carry_words(self):
        """At 360x740 and 390x844 Ask, Notes, Download, With ink, Language and Full screen show
        their words, and everything fits the screen's width."""
        code = SERVER.start_session(DEMO_DECK["id"], allow_download=True)["code"]
        for width, height in ((360, 740), (390, 844)):
            phone = self.driver(width, height)
            self.join_as_viewer(phone, code, name="Cleo")
            wait_for(phone, lambda d: visible(d, "#download-ink") and visible(d, "#notes-button"), "the bar's actions")
            harness.wait_translated(phone)
            self.check_bar(phone, f"{width}x{height}")
            screenshot(phone, f"audience-bar-{width}x{height}")
            self.release(phone)

    def settled_sheet_layout(self, phone, name):
        """The sheet's layout once two readings in a row agree: the sheet has finished sliding in
        (read mid-slide on a loaded machine, it ended 1.6 px over the bar)."""
        last = {}

        def steady(d):
            layout = self.sheet_layout(d)
            same = layout == last.get("layout")
            last["layout"] = layout
            return layout if same else None

        return wait_for(phone, steady, f"{name}: the poll's sheet at rest")

    def sheet_layout(self, phone):
        """Where the open poll's sheet, its parts, the bar's actions and the slide are."""
        return phone.execute_script(
            """
            const box = (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
            const sheet = document.getElementById('poll-sheet');
            const bar = document.getElementById('watch-bar');
            const parts = [sheet.querySelector('.poll-question'), ...sheet.querySelectorAll('.poll-option'),
              sheet.querySelector('[data-action="submit-answer"]')];
            // What a person sees at the centre of each of the bar's actions.
            const actions = ['ask-button', 'notes-button', 'language-button', 'fullscreen'].map((id) => {
              const b = document.getElementById(id);
              const r = b.getBoundingClientRect();
              const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return { id, reached: Boolean(top) && (top === b || b.contains(top)), on: top ? (top.id || top.className || top.tagName) : null };
            });
            const img = document.querySelector('podium-stage img.current');
            const slide = img.getBoundingClientRect();
            const atSlide = document.elementFromPoint(slide.left + slide.width / 2, slide.top + slide.height / 2);
            return {
              height: innerHeight, sheet: box(sheet), bar: box(bar), scrollTop: sheet.scrollTop,
              parts: parts.map((p) => ({ text: (p.textContent || '').trim().slice(0, 20), ...box(p) })),
              actions, slide: box(img), slideSeen: Boolean(atSlide) && Boolean(atSlide.closest('podium-stage')),
            };
            """)

    def check_sheet(self, layout, name):
        sheet, bar = layout["sheet"], layout["bar"]
        self.assertLessEqual(sheet["bottom"], bar["top"] + 1, f"{name}: the sheet ends at the bar's top, not over it")
        self.assertLessEqual(bar["bottom"], layout["height"] + 1, f"{name}: the bar inside the screen")
        for action in layout["actions"]:
            self.assertTrue(action["reached"], f"{name}: {action['id']} is in reach, not under {action['on']}")
        self.assertEqual(layout["scrollTop"], 0, f"{name}: the sheet shows from its top")
        for part in layout["parts"]:
            self.assertGreaterEqual(part["top"], sheet["top"] - 1, f"{name}: {part['text']!r} inside the sheet")
            self.assertLessEqual(part["bottom"], sheet["bottom"] + 1,
                                 f"{name}: {part['text']!r} shows without scrolling the sheet ({part}, {sheet})")
        slide = layout["slide"]
        self.assertTrue(layout["slideSeen"], f"{name}: the slide is not covered at its centre")
        self.assertLessEqual(slide["bottom"], sheet["top"] + 1, f"{name}: the slide shows whole above the sheet")
        self.assertGreaterEqual(slide["bottom"] - slide["top"], 120, f"{name}: a strip of slide stays, not a sliver")

    def test_4_an_open_poll_sits_above_the_bar(self):
        """On a small phone, a phone and a tablet held upright, an open poll's sheet docks on the
        bar's top edge: its question, choices and Send button show without scrolling, the slide
        stays whole above it, and Ask, Notes, Language and Full screen stay in reach (Ask opens
        its form with a tap); folded, its pill sits above the bar too."""
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        phones = {}
        for width, height in ((360, 640), (390, 844), (820, 1180)):
            phone = self.driver(width, height)
            self.join_as_viewer(phone, code, name=f"V{width}")
            phones[f"{width}x{height}"] = phone
        self.ask(presenter, "Which planet is largest?", ["Mars", "Jupiter", "Venus"])
        for name, phone in phones.items():
            wait_for(phone, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] [data-action="submit-answer"]'), "the poll")
            wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the slide")
            harness.wait_settled(phone)
            self.check_sheet(self.settled_sheet_layout(phone, name), name)
            screenshot(phone, f"audience-poll-above-bar-{name}")
        # A tap on Ask (a real click: it fails on whatever covers the button) opens its form.
        phone = phones["390x844"]
        phone.find_element(By.ID, "ask-button").click()
        wait_for(phone, lambda d: visible(d, "#ask-dialog"), "the question form")
        phone.execute_script("document.getElementById('ask-dialog').close()")
        wait_for(phone, lambda d: not visible(d, "#ask-dialog"), "the question form closed")
        # Full screen (the bar floats over the slide's edge there): the same, the bar in reach.
        phone.find_element(By.ID, "fullscreen").click()
        wait_for(phone, lambda d: d.execute_script("return Boolean(document.fullscreenElement)"), "full screen")
        wait_for(phone, lambda d: d.execute_script(
            "return getComputedStyle(document.getElementById('watch-bar')).position === 'absolute'"), "the bar floating")
        harness.wait_settled(phone)
        self.check_sheet(self.settled_sheet_layout(phone, "390x844 full screen"), "390x844 full screen")
        screenshot(phone, "audience-poll-above-bar-fullscreen")
        phone.execute_script("document.exitFullscreen()")
        wait_for(phone, lambda d: d.execute_script("return !document.fullscreenElement"), "full screen left")
        # Folded: the pill sits above the bar, which stays in reach.
        phone.find_element(By.CSS_SELECTOR, '[data-action="collapse-poll"]').click()
        wait_for(phone, lambda d: visible(d, "#poll-pill"), "the pill")
        pill = phone.execute_script(
            "const p = document.getElementById('poll-pill').getBoundingClientRect();"
            "return [p.bottom, document.getElementById('watch-bar').getBoundingClientRect().top];")
        self.assertLessEqual(pill[0], pill[1], "the pill above the bar")
        self.assertTrue(all(a["reached"] for a in self.sheet_layout(phone)["actions"]), "the bar in reach with the pill")
