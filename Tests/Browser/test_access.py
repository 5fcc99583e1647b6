#!/usr/bin/python3
"""Browser tests of getting in and finding the way: the passcode wait counted down on the join
screen (and a neighbour joining meanwhile), the console's passcode and listing controls, links
that lead nowhere, the library's past sessions, the upload queue, and the main pages at four
screen sizes.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness), on a server of its own with small limits (set through the environment below).
Alone:  python3 Tests/Browser/run_browser_tests.py AccessTests
"""

import os
import shutil
import sys
import tempfile
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
screenshot = harness.screenshot
wait_translated = harness.wait_translated

# Small bounds, so the waits are seconds: the 1st wrong passcode of a browser makes it wait 3 s;
# uploads over 1 MB are refused.
SETTINGS = {
    "PODIUM_PASSCODE_ATTEMPTS": "1",
    "PODIUM_PASSCODE_DELAY": "3",
    "PODIUM_PASSCODE_MAX_DELAY": "3",
    "PODIUM_MAX_UPLOAD_MB": "1",
}

SIZES = [(390, 844), (820, 1180), (1440, 900), (1920, 1080)]


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


def fetch_status(driver, path):
    """The status of GET `path` from the page, with its cookies."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {credentials: 'same-origin'}).then(r => done(r.status), () => done(0));", path)


def shown_text(driver, css):
    """The text of an element as shown (innerText, as WebElement.text reads it), read in one go."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText.trim().replace(/\\s+/g, ' ') : null;", css)


def overflow(driver):
    """How far the page is wider than the window (0 when nothing sticks out sideways)."""
    return driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")


class AccessTests(BrowserTest):
    def test_1_wrong_passcode_wait_is_counted_down_and_others_get_in(self):
        """A wrong passcode: "Try again in 3 s" counting down, Join off meanwhile; a neighbour
        (same address, another browser) joins at once; then the right passcode gets in."""
        code = SERVER.start_session(DEMO_DECK["id"], passcode="2468")["code"]
        student = self.driver(390, 844)
        student.get(f"{SERVER.base}/s/{code}")
        wait_for(student, lambda d: visible(d, "#passcode"), "the passcode field")
        student.find_element(By.ID, "passcode").send_keys("1111")
        student.find_element(By.ID, "join-button").click()
        wait_for(student, lambda d: d.execute_script("return document.getElementById('gate-error').dataset.retryAfter"),
                 "the wait on the join screen")
        first = int(student.execute_script("return document.getElementById('gate-error').dataset.retryAfter"))
        self.assertIn(first, (2, 3))
        self.assertRegex(text_of(student, "#gate-error"), r"^Wrong passcode\. Try again in [23] s\.$")
        self.assertFalse(student.find_element(By.ID, "join-button").is_enabled(), "Join waits too")
        self.assertRegex(text_of(student, "#join-button"), r"^Wait [23] s$")
        screenshot(student, "access-join-wait-phone")

        # Meanwhile a neighbour behind the same address joins with the right passcode.
        neighbour = self.driver(1920, 1080)
        self.join_as_viewer(neighbour, code, passcode="2468")

        # The countdown goes down, then lets the student try again.
        wait_for(student, lambda d: (d.execute_script(
            "return Number(document.getElementById('gate-error').dataset.retryAfter || 0)") < first),
            "the countdown to go down")
        wait_for(student, lambda d: d.find_element(By.ID, "join-button").is_enabled(), "Join on again after the wait",
                 timeout=10)
        self.assertEqual(text_of(student, "#gate-error"), "Wrong passcode.")
        field = student.find_element(By.ID, "passcode")
        field.clear()
        field.send_keys("2468")
        student.find_element(By.ID, "join-button").click()
        self.wait_watching(student)

    def test_2_console_shows_and_changes_the_passcode_and_listing(self):
        """The console shows the passcode, changes and removes it; hides the session from Live now."""
        code = SERVER.start_session(DEMO_DECK["id"], passcode="4321")["code"]
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        wait_for(presenter, lambda d: text_of(d, '[data-role="passcode-value"]') == "4321", "the passcode in the console")
        screenshot(presenter, "access-console-passcode")

        home = self.driver(390, 844)
        home.get(SERVER.base + "/")
        wait_for(home, lambda d: visible(d, f'.session-link[data-code="{code}"]'), "the session under Live now")
        # (Read from the page as it is now: the list is drawn anew as other sessions change.)
        self.assertTrue(home.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"] [data-role="lock"]'),
                        "a lock on a passcode session")

        # Change it.
        presenter.find_element(By.CSS_SELECTOR, '[data-action="change-passcode"]').click()
        field = wait_for(presenter, lambda d: visible(d, "dialog[open] input"), "the passcode dialog")
        self.assertEqual(field.get_attribute("value"), "4321")
        field.clear()
        field.send_keys("9876" + Keys.ENTER)
        wait_for(presenter, lambda d: text_of(d, '[data-role="passcode-value"]') == "9876", "the new passcode shown")
        self.assertEqual(SERVER.api("GET", f"/api/v1/sessions/{code}")[1]["passcode"], "9876")
        old = self.driver(1024, 768)
        old.get(f"{SERVER.base}/s/{code}")
        wait_for(old, lambda d: visible(d, "#passcode"), "the passcode field")
        old.find_element(By.ID, "passcode").send_keys("4321")
        old.find_element(By.ID, "join-button").click()
        wait_for(old, lambda d: (text_of(d, "#gate-error") or "").startswith("Wrong passcode"), "the old passcode refused")
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, passcode="9876")

        # Hidden from Live now, then shown again.
        presenter.find_element(By.CSS_SELECTOR, 'label[for="listed-switch"]').click()
        wait_for(home, lambda d: not d.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"]'),
                 "the session gone from Live now")
        self.assertTrue(SERVER.api("GET", f"/api/v1/sessions/{code}")[1]["unlisted"])
        presenter.find_element(By.CSS_SELECTOR, 'label[for="listed-switch"]').click()
        wait_for(home, lambda d: d.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"] [data-role="lock"]'),
                 "the session back, with its lock")

        # The replay shared with everyone who has the link, then kept for the presenter again.
        harness.dismiss_toasts(presenter)
        presenter.find_element(By.CSS_SELECTOR, 'label[for="replay-switch"]').click()
        wait_for(presenter, lambda d: d.execute_script(
            "return document.querySelector('.access-card').dataset.replay") == "link", "the replay shared")
        self.assertEqual(SERVER.api("GET", f"/api/v1/sessions/{code}")[1]["replay"], "link")
        harness.dismiss_toasts(presenter)
        presenter.find_element(By.CSS_SELECTOR, 'label[for="replay-switch"]').click()
        wait_for(presenter, lambda d: d.execute_script(
            "return document.querySelector('.access-card').dataset.replay") == "host", "the replay the presenter's again")
        self.assertEqual(SERVER.api("GET", f"/api/v1/sessions/{code}")[1]["replay"], "host")

        # Remove it: no lock, and anyone with the code joins.
        harness.dismiss_toasts(presenter)
        presenter.find_element(By.CSS_SELECTOR, '[data-action="remove-passcode"]').click()
        wait_for(presenter, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the remove confirmation").click()
        wait_for(presenter, lambda d: d.execute_script(
            "return document.querySelector('.access-card').dataset.hasPasscode") == "false", "the passcode removed")
        wait_for(home, lambda d: d.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"]') and not
                 d.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"] [data-role="lock"]'), "no lock")
        screenshot(presenter, "access-console-no-passcode")
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        self.open_console(phone, code)
        phone.find_element(By.ID, "code-chip").click()
        wait_for(phone, lambda d: visible(d, ".access-card"), "the access card on a phone")
        screenshot(phone, "access-console-phone")

    def test_3_go_live_unlisted_and_history(self):
        """Go live unlisted: not under Live now; the library's past sessions list it with its report and exports."""
        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        presenter.get(SERVER.base + "/library")
        card = wait_for(presenter, lambda d: visible(d, f'[data-deck-id="{DEMO_DECK["id"]}"][data-status="ready"]'),
                        "the demo deck's card")
        card.find_element(By.CSS_SELECTOR, '[data-action="golive"]').click()
        wait_for(presenter, lambda d: visible(d, "#golive-dialog"), "the go-live dialog")
        presenter.find_element(By.CSS_SELECTOR, 'label[for="golive-listed"]').click()
        self.assertFalse(presenter.find_element(By.ID, "golive-listed").is_selected())
        screenshot(presenter, "access-golive-unlisted")
        presenter.find_element(By.ID, "golive-start").click()
        wait_for(presenter, lambda d: "/present/" in d.current_url, "the presenter console")
        code = presenter.current_url.rstrip("/").rsplit("/", 1)[1]
        self.open_console(presenter, code)
        self.assertFalse(presenter.find_element(By.ID, "listed-switch").is_selected())

        home = self.driver(1024, 768)
        home.get(SERVER.base + "/")
        wait_for(home, lambda d: d.execute_script("return document.getElementById('sessions').children.length >= 0"),
                 "the home page")
        ended = SERVER.start_session(DEMO_DECK["id"])["code"]  # listed: proves the list is current
        wait_for(home, lambda d: d.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{ended}"]'), "a listed session")
        self.assertFalse(home.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"]'), "unlisted stays out")
        SERVER.api("POST", f"/api/v1/sessions/{ended}/end")

        # The library's past sessions.
        presenter.get(SERVER.base + "/library")
        wait_for(presenter, lambda d: visible(d, "#past-button"), "the past-sessions entry").click()
        row = wait_for(presenter, lambda d: visible(d, f'.past-row[data-code="{ended}"]'), "the ended session")
        live_row = visible(presenter, f'.past-row[data-code="{code}"]')
        self.assertEqual(live_row.get_attribute("data-live"), "true")
        self.assertTrue(live_row.find_elements(By.CSS_SELECTOR, '[data-role="console"]'), "a live one opens its console")
        self.assertEqual(row.get_attribute("data-live"), "false")
        formats = [a.get_attribute("data-format") for a in row.find_elements(By.CSS_SELECTOR, "a[data-format]")]
        self.assertIn("csv", formats)
        self.assertIn("pdf", formats)
        for link in row.find_elements(By.CSS_SELECTOR, "a[data-format]"):
            self.assertEqual(fetch_status(presenter, link.get_attribute("href")), 200, link.get_attribute("href"))
        screenshot(presenter, "access-library-history")
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        phone.get(SERVER.base + "/library")
        wait_for(phone, lambda d: visible(d, "#past-button"), "the past-sessions entry on a phone").click()
        wait_for(phone, lambda d: visible(d, f'.past-row[data-code="{ended}"]'), "the history on a phone")
        self.assertLessEqual(overflow(phone), 0)
        screenshot(phone, "access-library-history-phone")
        row.find_element(By.CSS_SELECTOR, '[data-role="report"]').click()
        wait_for(presenter, lambda d: d.execute_script(
            "const m = document.getElementById('report'); return m && m.dataset.state") == "ready", "the report")

    def test_4_links_that_lead_nowhere(self):
        """Unknown and ended links get a page that says so and leads back, not JSON."""
        ended = SERVER.start_session(DEMO_DECK["id"])["code"]
        SERVER.api("POST", f"/api/v1/sessions/{ended}/end")
        for width, height in ((390, 844), (1920, 1080)):
            driver = self.driver(width, height)
            driver.get(f"{SERVER.base}/s/ZZZZZZ")
            wait_for(driver, lambda d: visible(d, "#not-found-title"), "the dead-end page")
            # Its script done: on a loaded machine the page shows in English after a second while
            # its words still load, and a click then can meet it mid-change.
            wait_translated(driver)
            self.assertEqual(text_of(driver, "#not-found-title"), "No session with code ZZZZZZ")
            screenshot(driver, f"access-dead-end-session-{width}")
            driver.find_element(By.ID, "dead-end-action").click()
            wait_for(driver, lambda d: visible(d, "#code"), "the way back: the home page's code field")

        driver = self.driver(390, 844)
        driver.get(f"{SERVER.base}/r/ZZZZZZ")
        self.assertEqual(text_of(driver, "#not-found-title"), "No room with code ZZZZZZ")
        driver.get(f"{SERVER.base}/no/such/page")
        self.assertEqual(text_of(driver, "#not-found-title"), "Page not found")
        screenshot(driver, "access-dead-end-page")
        self.sign_in_with_cookie(driver)
        driver.get(f"{SERVER.base}/present/ZZZZZZ")
        self.assertEqual(text_of(driver, "#not-found-title"), "No such session")
        self.assertTrue(driver.find_element(By.ID, "dead-end-action").get_attribute("href").endswith("/library"))
        driver.get(f"{SERVER.base}/decks/d_gone")
        self.assertEqual(text_of(driver, "#not-found-title"), "No such deck")
        wait_translated(driver)
        driver.find_element(By.ID, "dead-end-action").click()
        wait_for(driver, lambda d: visible(d, "#decks"), "the way back: the library")

        # An ended session says so, and still lets viewers read the slides.
        driver.get(f"{SERVER.base}/s/{ended}")
        wait_for(driver, lambda d: visible(d, "#gate-ended"), "the ended notice")
        self.assertIn("ended", text_of(driver, "#gate-ended"))
        self.assertTrue(driver.find_elements(By.CSS_SELECTOR, '#gate a[href="/"]'), "a way back home")
        screenshot(driver, "access-ended-session-phone")

    def test_5_upload_queue_checks_first_and_says_why_it_waits(self):
        """Too large and not-a-PDF fail before sending; one upload at a time, each step said."""
        work = Path(tempfile.mkdtemp(prefix="podium-uploads-"))
        try:
            big = work / "huge-scan.pdf"
            with open(big, "wb") as out:
                out.write(b"%PDF-1.4\n")
                out.truncate(2 * 1024 * 1024)
            notes = work / "notes.pdf"
            notes.write_text("Just notes, not a PDF.\n" * 10)
            first = work / "first-talk.pdf"
            second = work / "second-talk.pdf"
            shutil.copy(harness.DEMO_PDF, first)
            shutil.copy(harness.DEMO_PDF, second)
            before = len(SERVER.api("GET", "/api/v1/decks")[1])

            driver = self.driver(1440, 900)
            self.sign_in_with_cookie(driver)
            driver.get(SERVER.base + "/library")
            wait_for(driver, lambda d: text_of(d, "#upload-limit") == "Slides, up to 1 MB · video, up to 2 GB", "the limit, said before choosing")
            # What the queue says, step by step, for every card (kept as it changes).
            driver.execute_script("""
                window.seenStatus = {};
                const note = (card) => {
                  const label = card.querySelector('.progress-label span, [data-role=error] span');
                  const title = card.dataset.title;
                  if (!label || !title) return;
                  (window.seenStatus[title] = window.seenStatus[title] || []).push(label.textContent);
                };
                new MutationObserver(() => document.querySelectorAll('[data-upload]').forEach(note))
                  .observe(document.getElementById('decks'), {childList: true, subtree: true, characterData: true});
            """)
            # A slow line, so that the second file visibly waits for the first.
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
                "offline": False, "latency": 20, "downloadThroughput": -1, "uploadThroughput": 20 * 1024})
            driver.find_element(By.ID, "file-input").send_keys("\n".join(str(p) for p in (big, notes, first, second)))

            # (The cards are drawn again as the uploads go on: each is read from the page as it is now.)
            wait_for(driver, lambda d: visible(d, '[data-upload][data-title="huge-scan"][data-status="failed"]'),
                     "the too-large file refused")
            self.assertEqual(shown_text(driver, '[data-upload][data-title="huge-scan"][data-status="failed"] [data-role="error"]'),
                             "Failed: 2 MB, larger than the 1 MB this server accepts")
            wait_for(driver, lambda d: visible(d, '[data-upload][data-title="notes"][data-status="failed"]'),
                     "the text file refused")
            self.assertEqual(shown_text(driver, '[data-upload][data-title="notes"][data-status="failed"] [data-role="error"]'),
                             "Failed: not a PDF")
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-upload][data-upload-state="waiting"]'),
                     "the second file waiting for the first")
            self.assertEqual(text_of(driver, '[data-upload][data-upload-state="waiting"] .progress-label span'),
                             "Waiting — 1 upload at a time")
            screenshot(driver, "access-upload-queue")
            driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
                "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
            for title in ("first-talk", "second-talk"):
                wait_for(driver, lambda d: visible(d, f'.deck-card[data-deck-id][data-title="{title}"][data-status="ready"]'),
                         f"{title} ready", timeout=90)
            seen = driver.execute_script("return window.seenStatus")
            for title in ("first-talk", "second-talk"):
                self.assertTrue(any(s.startswith("Uploading ") and s.endswith(" %") for s in seen[title]), seen[title])
            self.assertIn("Waiting — 1 upload at a time", seen["second-talk"])
            # Nothing was sent for the refused files: only the two PDFs reached the library.
            self.assertEqual(len(SERVER.api("GET", "/api/v1/decks")[1]), before + 2)
            # How processing progress reads (the module's own words).
            words = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                import('/app/media/uploader.js').then((m) => done([
                  m.processingText({stage: 'rendering', done: 6, total: 36}),
                  m.processingText({stage: 'inspecting', done: 1, total: 2}),
                  m.processingText({stage: 'queued', done: 0, total: 0}),
                ]));
            """)
            self.assertEqual(words[0], "Processing page 3 of 12")
            self.assertEqual(words[1], "Checking the PDF")
            self.assertTrue(words[2].startswith("Waiting"))
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def test_6_pages_fit_every_screen(self):
        """Home, library, sign-in and the join screen at phone, tablet, laptop and projector sizes."""
        code = SERVER.start_session(DEMO_DECK["id"], passcode="1357")["code"]
        for width, height in SIZES:
            driver = self.driver(width, height)
            driver.get(SERVER.base + "/login")
            wait_for(driver, lambda d: visible(d, "#email"), "the sign-in form")
            self.assertLessEqual(overflow(driver), 0, f"login at {width}")
            screenshot(driver, f"access-login-{width}x{height}")
            driver.get(f"{SERVER.base}/s/{code}")
            wait_for(driver, lambda d: visible(d, "#passcode"), "the join screen")
            self.assertLessEqual(overflow(driver), 0, f"join at {width}")
            screenshot(driver, f"access-join-{width}x{height}")
            driver.get(SERVER.base + "/")
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'.session-link[data-code="{code}"]'),
                     "the home page's list")
            self.assertLessEqual(overflow(driver), 0, f"home at {width}")
            screenshot(driver, f"access-home-{width}x{height}")
            self.sign_in_with_cookie(driver)
            driver.get(SERVER.base + "/library")
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".deck-card[data-deck-id]"), "the library")
            self.assertLessEqual(overflow(driver), 0, f"library at {width}")
            # The header's buttons sit inside the window, in at most two rows.
            layout = driver.execute_script("""
                const head = document.querySelector('.library-head');
                const buttons = [...head.querySelectorAll('.btn')].filter((b) => b.offsetParent);
                const tops = new Set(buttons.map((b) => Math.round(b.getBoundingClientRect().top)));
                const cardsFit = [...document.querySelectorAll('.deck-card[data-deck-id]')].every((card) =>
                  [...card.querySelectorAll('.deck-actions .btn')].every((b) =>
                    b.getBoundingClientRect().right <= card.getBoundingClientRect().right + 0.5));
                const banner = document.getElementById('live-banner');
                const sentence = banner && !banner.hidden ? banner.querySelector('.grow') : null;
                return {rows: tops.size, inside: buttons.every((b) => b.getBoundingClientRect().right <= innerWidth + 0.5),
                        title: document.getElementById('folder-title').getBoundingClientRect().width, cardsFit,
                        columns: getComputedStyle(document.querySelector('.deck-grid')).gridTemplateColumns.split(' ').length,
                        sentence: sentence ? sentence.getBoundingClientRect().width : null,
                        pills: [...document.querySelectorAll('.sidebar .folder-item')].filter((i) => i.offsetParent)
                          .map((i) => Math.round(i.getBoundingClientRect().top)),
                        // Each pill's room before its first drawn thing and after its last.
                        margins: [...document.querySelectorAll('.sidebar .folder-item')].filter((i) => i.offsetParent)
                          .map((i) => {
                            const box = i.getBoundingClientRect();
                            const drawn = [...i.querySelectorAll('.folder-button > *')].map((c) => c.getBoundingClientRect())
                              .filter((r) => r.width > 0);
                            return [Math.round(Math.min(...drawn.map((r) => r.left)) - box.left),
                                    Math.round(box.right - Math.max(...drawn.map((r) => r.right)))];
                          })};
            """)
            self.assertTrue(layout["inside"], f"library header buttons inside the window at {width}: {layout}")
            self.assertLessEqual(layout["rows"], 1 if width >= 820 else 2, f"library header rows at {width}: {layout}")
            self.assertGreater(layout["title"], 100, f"the folder title has room at {width}: {layout}")
            self.assertTrue(layout["cardsFit"], f"every deck card's buttons inside the card at {width}: {layout}")
            # A tablet upright has two columns of decks (the folders above them, not beside), a phone one.
            self.assertEqual(layout["columns"] >= 2, width >= 820, f"deck columns at {width}: {layout}")
            # Where the folders are a bar above the decks, its pills stand in one line.
            if width < 900:
                self.assertLessEqual(max(layout["pills"]) - min(layout["pills"]), 2, f"the folder bar at {width}: {layout}")
                # and each pill's words sit in its middle (an icon hidden in its holder once left a gap).
                for before, after in layout["margins"]:
                    self.assertLessEqual(abs(before - after), 2, f"a folder pill's padding at {width}: {layout}")
            # The live banner's sentence keeps a readable width (a phone once had it a word a line).
            if layout["sentence"] is not None:
                self.assertGreater(layout["sentence"], 200, f"the live banner's sentence at {width}: {layout}")
            screenshot(driver, f"access-library-{width}x{height}")
            self.release(driver)

    def test_7_console_lists_adds_and_removes_co_hosts(self):
        """The presenter adds a colleague as co-host by email in the console's join panel; the colleague's
        console (on a phone) lists the hosts and may leave; the presenter removes them again."""
        status, _ = SERVER.api("POST", "/api/v1/users", {"email": "grace@school.test", "name": "Grace", "password": "grace co-hosts"})
        self.assertEqual(status, 201)
        status, login = SERVER.request("POST", "/api/v1/auth/login", {"email": "grace@school.test", "password": "grace co-hosts"})
        self.assertEqual(status, 200)
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        hosts = f"/api/v1/sessions/{code}/hosts"

        presenter = self.driver(1440, 900)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, code)
        wait_for(presenter, lambda d: visible(d, '#hosts-list li[data-reason="presenter"]'), "the presenter listed as host")
        self.assertIn("(you)", text_of(presenter, '#hosts-list li[data-reason="presenter"]'))
        self.assertEqual(presenter.execute_script("return document.querySelector('.hosts-card').dataset.canManage"), "true")

        # Added by the address of her account.
        presenter.find_element(By.ID, "cohost-email").send_keys("grace@school.test" + Keys.ENTER)
        row = wait_for(presenter, lambda d: visible(d, '#hosts-list li[data-reason="invited"]'), "Grace listed as co-host")
        self.assertIn("Grace", row.text)
        self.assertEqual(SERVER.request("GET", hosts, token=login["token"])[1]["coHosts"][0]["email"], "grace@school.test")
        # A mistyped address is answered, and nothing is added.
        field = presenter.find_element(By.ID, "cohost-email")
        field.send_keys("nobody@school.test" + Keys.ENTER)
        wait_for(presenter, lambda d: "No Podium account has the address nobody@school.test" in (text_of(d, ".toasts") or ""),
                 "the unknown address said")
        self.assertEqual(len(presenter.find_elements(By.CSS_SELECTOR, "#hosts-list li")), 2)
        # The card sits inside the join panel, its field and buttons whole and uncovered (once the
        # toast that said so is gone).
        harness.dismiss_toasts(presenter)
        layout = presenter.execute_script("""
            const card = document.querySelector('.hosts-card').getBoundingClientRect();
            const panel = document.getElementById('join-panel').getBoundingClientRect();
            const parts = ['#cohost-email', '.hosts-add button', '#hosts-list [data-action="remove-host"]'].map((css) => {
              const e = document.querySelector(css);
              e.scrollIntoView({block: 'center'});
              const r = e.getBoundingClientRect();
              const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return {css, width: r.width, height: r.height, inCard: r.left >= card.left - 0.5 && r.right <= card.right + 0.5,
                      uncovered: e === hit || e.contains(hit)};
            });
            const afterAccess = document.querySelector('.access-card').nextElementSibling === document.querySelector('.hosts-card');
            return {inside: card.left >= panel.left - 0.5 && card.right <= panel.right + 0.5, width: card.width, parts, afterAccess};
        """)
        self.assertTrue(layout["inside"], f"the co-hosts card inside the join panel: {layout}")
        self.assertTrue(layout["afterAccess"], f"the co-hosts card right below the passcode and listing: {layout}")
        for part in layout["parts"]:
            self.assertGreater(part["height"], 20, f"{part['css']} has a size: {layout}")
            self.assertGreater(part["width"], 20, f"{part['css']} has a size: {layout}")
            self.assertTrue(part["inCard"] and part["uncovered"], f"{part['css']} whole and on top: {layout}")
        screenshot(presenter, "access-console-co-hosts")

        # Grace's console on her phone: she runs the session, sees who hosts it, may only leave.
        grace = self.driver(390, 844)
        grace.get(SERVER.base + "/healthz")
        grace.add_cookie({"name": "podium_auth", "value": login["token"], "path": "/"})
        self.open_console(grace, code)
        grace.find_element(By.ID, "code-chip").click()
        wait_for(grace, lambda d: visible(d, '#hosts-list [data-action="leave-hosts"]'), "Leave on the co-host's console")
        self.assertFalse(visible(grace, "#cohost-email"), "a co-host adds no one")
        self.assertFalse(grace.find_elements(By.CSS_SELECTOR, '[data-action="remove-host"]'))
        self.assertIn("(you)", text_of(grace, '#hosts-list li[data-reason="invited"]'))
        self.assertLessEqual(overflow(grace), 0, "the co-host's console fits the phone")
        grace.execute_script("document.querySelector('.hosts-card').scrollIntoView({block: 'center'})")
        screenshot(grace, "access-console-co-host-phone")

        # Removed by the presenter: the API shuts its doors to her at once.
        harness.dismiss_toasts(presenter)
        presenter.find_element(By.CSS_SELECTOR, '#hosts-list [data-action="remove-host"]').click()
        wait_for(presenter, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the remove confirmation").click()
        wait_for(presenter, lambda d: not d.find_elements(By.CSS_SELECTOR, '#hosts-list li[data-reason="invited"]'),
                 "Grace gone from the list")
        self.assertEqual(SERVER.request("GET", hosts, token=login["token"])[0], 403)
        # ... and her open console at once: the server closes it, her reconnect is refused, and the
        # console's message covers the stage with the way to watch instead.
        wait_for(grace, lambda d: visible(d, "#console-message"), "the removed co-host's console closed")
        self.assertIn("co-hosts", text_of(grace, "#console-message"))
        watch = grace.find_element(By.CSS_SELECTOR, "#console-message a")
        self.assertTrue(watch.get_attribute("href").endswith(f"/s/{code}"), watch.get_attribute("href"))
        covered = grace.execute_script(
            "const s = document.querySelector('podium-stage').getBoundingClientRect();"
            "const hit = document.elementFromPoint(s.left + s.width / 2, s.top + s.height / 2);"
            "return !!hit && !!hit.closest('#console-message');")
        screenshot(grace, "access-console-co-host-removed-phone")
        self.assertTrue(covered, "the message covers the stage")
        # Readable over the slide shown before: the message has a backdrop, not the bare slide.
        backdrop = grace.execute_script("return getComputedStyle(document.querySelector('#console-message')).backgroundColor")
        self.assertNotIn(backdrop, ("rgba(0, 0, 0, 0)", "transparent"), "the message's backdrop")

        # Added again, she leaves from her console and lands in her library.
        self.assertEqual(SERVER.api("POST", hosts, {"email": "grace@school.test"})[0], 201)
        self.open_console(grace, code)
        grace.find_element(By.ID, "code-chip").click()
        leave = wait_for(grace, lambda d: visible(d, '#hosts-list [data-action="leave-hosts"]'), "Leave again")
        # The join panel slides in: clicked before it stops, the button is not where the click lands.
        harness.finish_animations(grace)
        grace.execute_script("arguments[0].scrollIntoView({block: 'center'})", leave)
        leave.click()
        wait_for(grace, lambda d: visible(d, 'dialog[open] [data-role="confirm"]'), "the leave confirmation").click()
        wait_for(grace, lambda d: d.current_url.rstrip("/").endswith("/library"), "her library after leaving")
        self.assertEqual(SERVER.api("GET", hosts)[1]["coHosts"], [])
