#!/usr/bin/python3
"""The audience's language on the pages of i18n-live (#22): the join page, sign-in, the library,
the presenter's console, the viewer, rehearsal and the dead ends. Each page is opened in the
pseudo-language (``?lang=qps``: every catalogue message wrapped in ⟦ ⟧) in the states that
matter, and no visible text, placeholder, title or label may hold a letter outside ⟦ ⟧ except the
data the test put there (deck titles, names). Then one flow in German and one in Arabic (right to
left: the page mirrored, the slide not).

Runs inside the suite of ``run_browser_tests.py``. Alone:
python3 Tests/Browser/run_browser_tests.py i18n_live
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
wait_translated = harness.wait_translated


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# Text that is no message: what the page shows of the data, and names that are never translated.
ALWAYS_ALLOWED = ["Podium", "PDF", "Markdown"]

# Walks the page: every visible text node, and the placeholder, title, aria-label and alt of every
# visible element (and of open dialogs), plus the document's title. Returns what is left of each
# once the ⟦…⟧ messages and the allowed data are taken out, when letters remain.
UNTRANSLATED_SCRIPT = r"""
const allowed = arguments[0];
const letters = /\p{L}/u;
const leftOver = (text) => {
  let rest = String(text || '');
  // Messages nest (a size inside a sentence): take out the innermost until none is left.
  for (let before = null; before !== rest;) {
    before = rest;
    rest = rest.replace(/⟦[^⟦⟧]*⟧/g, ' ');
  }
  for (const word of allowed) rest = rest.split(word).join(' ');
  return letters.test(rest) ? rest.replace(/\s+/g, ' ').trim() : null;
};
const shown = (element) => {
  if (!element || !element.isConnected) return false;
  if (element.closest('[hidden], template, script, style, noscript, option')) return false;
  if (element.closest('time')) return false; // a date or time, formatted by Intl, not a message
  if (element.closest('kbd')) return false; // a key cap: the key's own name
  if (element.closest('.choice-letter, .spot-letter')) return false; // A, B, C… name the choices in every language
  const dialog = element.closest('dialog');
  if (dialog && !dialog.open) return false;
  const style = getComputedStyle(element);
  if (style.visibility === 'hidden' || style.display === 'none') return false;
  return element.getClientRects().length > 0;
};
const found = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const rest = leftOver(node.nodeValue);
  if (rest && shown(node.parentElement)) found.push({ where: node.parentElement.outerHTML.slice(0, 160), text: rest });
}
for (const element of document.body.querySelectorAll('[placeholder], [title], [aria-label], [alt]')) {
  if (!shown(element) && !(element.tagName === 'SELECT' && shown(element.parentElement))) continue;
  for (const name of ['placeholder', 'title', 'aria-label', 'alt']) {
    const rest = leftOver(element.getAttribute(name));
    if (rest) found.push({ where: name + ' of ' + element.outerHTML.slice(0, 120), text: rest });
  }
}
const title = leftOver(document.title);
if (title) found.push({ where: 'document.title', text: title });
return found;
"""


def untranslated(driver, allowed=()):
    """What the page shows that no catalogue gave (in the pseudo-language), beside `allowed`."""
    # The longest first, so a deck title holding "Podium" goes out whole.
    return driver.execute_script(UNTRANSLATED_SCRIPT, sorted(set(ALWAYS_ALLOWED) | set(allowed), key=len, reverse=True))


def language_switcher_values(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('select.language-switcher')].filter(s => s.getClientRects().length)"
        ".map(s => s.value);")


def layout(driver):
    """The page's language and direction, as the document says."""
    return driver.execute_script("return { lang: document.documentElement.lang, dir: document.documentElement.dir };")


class I18nLiveTestCase(BrowserTest):
    def assertAllTranslated(self, driver, state, allowed=()):
        found = untranslated(driver, allowed)
        if found:
            screenshot(driver, "i18n-untranslated-" + state)
        self.assertEqual(found, [], f"{state}: text no catalogue gave:\n" + "\n".join(f"  {f['text']!r} in {f['where']}" for f in found))

    def present(self, driver, code):
        """A presenter's live client on `driver` (signed in), to send commands as the console would."""
        result = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/app/live/live.js').then(({ LiveClient }) => {"
            "  const live = new LiveClient(arguments[0], { role: 'presenter' });"
            "  window.testPresenter = live;"
            "  live.addEventListener('welcome', () => done('ok'));"
            "  live.addEventListener('fatal', (e) => done('fatal ' + JSON.stringify(e.detail)));"
            "  live.connect();"
            "}).catch((error) => done('error ' + error));", code)
        self.assertEqual(result, "ok")

    def command(self, driver, command):
        result = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.testPresenter.send(arguments[0]).then(() => done('ok'), (e) => done('refused ' + (e && (e.code || e.message))));",
            command)
        self.assertEqual(result, "ok", f"{command}")


class I18nLiveViewerTests(I18nLiveTestCase):
    def test_i18n_live_1_viewer_in_the_pseudo_language(self):
        """The viewer's gate (with a wrong passcode), the stage, a poll, the question dialog, the
        public questions, the notes and the shortcuts: every word from a catalogue."""
        # Public questions, so the audience's list of questions shows too.
        status, session = SERVER.api("POST", "/api/v1/sessions", {
            "deckId": DEMO_DECK["id"], "passcode": "4242", "allowDownload": True, "questions": {"public": True, "approval": False}})
        self.assertEqual(status, 201, session)
        code = session["code"]
        title = session["title"]
        allowed = [title, code, "Ana", "Blue", "Red", "Which colour?"]

        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}?lang=qps")
        wait_translated(viewer)
        wait_for(viewer, lambda d: visible(d, "#gate-form") and visible(d, "#passcode"), "the join gate with a passcode")
        self.assertEqual(language_switcher_values(viewer), ["en"], "the switcher on the gate (qps shows as English)")
        self.assertAllTranslated(viewer, "viewer-gate", allowed)

        # A wrong passcode: the error and the countdown.
        viewer.find_element(By.ID, "viewer-name").send_keys("Ana")
        viewer.find_element(By.ID, "passcode").send_keys("0000")
        viewer.find_element(By.ID, "join-button").click()
        wait_for(viewer, lambda d: text_of(d, "#gate-error"), "the wrong passcode's message")
        self.assertAllTranslated(viewer, "viewer-wrong-passcode", allowed)

        field = viewer.find_element(By.ID, "passcode")
        field.clear()
        field.send_keys("4242")
        wait_for(viewer, lambda d: d.find_element(By.ID, "join-button").is_enabled(), "Join again after the wait", timeout=70)
        viewer.find_element(By.ID, "join-button").click()
        self.wait_watching(viewer)
        wait_for(viewer, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "live")
        self.assertAllTranslated(viewer, "viewer-watching", allowed)

        # A poll from the presenter.
        presenter = self.driver(900, 700)
        self.sign_in_with_cookie(presenter)
        self.present(presenter, code)
        self.command(presenter, {"type": "openPoll", "poll": {"kind": "choice", "question": "Which colour?", "choices": ["Red", "Blue"],
                                                              "multiple": False, "correct": [1], "showResults": True, "quiz": True}})
        wait_for(viewer, lambda d: visible(d, "#poll-sheet"), "the poll on the viewer")
        self.assertAllTranslated(viewer, "viewer-poll-open", allowed)
        viewer.find_element(By.CSS_SELECTOR, "#poll-sheet .poll-option").click()
        viewer.find_element(By.CSS_SELECTOR, "#poll-sheet button[type=submit]").click()
        wait_for(viewer, lambda d: "⟦" in (text_of(d, "[data-role=poll-note]") or ""), "the answer sent")
        poll_id = presenter.execute_script("const polls = window.testPresenter.state.polls; return polls[polls.length - 1].poll.id;")
        self.command(presenter, {"type": "revealPoll", "pollId": poll_id, "results": True})
        wait_for(viewer, lambda d: d.find_elements(By.CSS_SELECTOR, "#poll-sheet .bar-row"), "the chart revealed")
        self.assertAllTranslated(viewer, "viewer-poll-revealed", allowed)
        screenshot(viewer, "i18n-qps-viewer-poll")

        # The question dialog.
        viewer.find_element(By.CSS_SELECTOR, "[data-action=collapse-poll]").click()
        harness.dismiss_toasts(viewer)
        viewer.execute_script("document.getElementById('ask-button').click()")  # the sheet may still be sliding away
        wait_for(viewer, lambda d: visible(d, "#ask-dialog"), "the question dialog")
        self.assertAllTranslated(viewer, "viewer-ask", allowed)
        viewer.find_element(By.ID, "ask-text").send_keys("Why blue?")
        viewer.find_element(By.ID, "ask-send").click()
        wait_for(viewer, lambda d: not visible(d, "#ask-dialog"), "the question sent")
        wait_for(viewer, lambda d: visible(d, ".toast"), "the toast that says so")
        self.assertAllTranslated(viewer, "viewer-question-sent", allowed)
        harness.dismiss_toasts(viewer)
        wait_for(viewer, lambda d: visible(d, "#questions-button"), "the public questions' button")
        viewer.find_element(By.ID, "questions-button").click()
        wait_for(viewer, lambda d: d.find_elements(By.CSS_SELECTOR, "#questions-dialog[open] [data-role=votes]"), "the public questions")
        self.assertAllTranslated(viewer, "viewer-public-questions", allowed + ["Why blue?"])
        viewer.find_element(By.CSS_SELECTOR, "#questions-dialog .sheet-icon-btn").click()

        # The notes panel.
        viewer.find_element(By.ID, "notes-button").click()
        wait_for(viewer, lambda d: visible(d, "#notes-panel"), "the notes panel")
        self.assertAllTranslated(viewer, "viewer-notes", allowed + ["Why blue?"])
        viewer.find_element(By.CSS_SELECTOR, "#notes-panel .sheet-icon-btn").click()
        wait_for(viewer, lambda d: not visible(d, "#notes-panel"), "the notes closed")

        # The keyboard shortcuts.
        viewer.find_element(By.TAG_NAME, "body").send_keys("?")
        wait_for(viewer, lambda d: visible(d, "dialog.shortcuts-dialog"), "the shortcuts")
        self.assertAllTranslated(viewer, "viewer-shortcuts", allowed + ["F"])  # key caps
        viewer.find_element(By.CSS_SELECTOR, "dialog.shortcuts-dialog button[type=submit]").click()

        # What the presenter puts on everyone's screen, then the end of the session.
        self.command(presenter, {"type": "spotlight", "spotlight": {"kind": "pollResults", "pollId": poll_id}})
        wait_for(viewer, lambda d: visible(d, "#spotlight"), "the results on the viewer's screen")
        self.assertAllTranslated(viewer, "viewer-spotlight", allowed + ["A,", "B,"])  # the choices' letters
        self.command(presenter, {"type": "spotlight", "spotlight": None})
        SERVER.api("POST", f"/api/v1/sessions/{code}/end")
        wait_for(viewer, lambda d: d.execute_script("return document.body.dataset.connection") == "ended", "the session ended")
        self.assertAllTranslated(viewer, "viewer-ended", allowed)

    def test_i18n_live_2_viewer_in_german_and_arabic(self):
        """German: the gate and the stage say it in German. Arabic: the page is right to left,
        the slide is not mirrored, plurals and numbers follow Arabic."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]

        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}?lang=de")
        wait_translated(viewer)
        wait_for(viewer, lambda d: visible(d, "#gate-form"), "the join gate")
        self.assertEqual(layout(viewer), {"lang": "de", "dir": "ltr"})
        self.assertEqual(text_of(viewer, "#join-button"), "Beitreten")
        self.assertEqual(language_switcher_values(viewer), ["de"])
        screenshot(viewer, "i18n-de-viewer-gate")
        viewer.find_element(By.ID, "join-button").click()
        self.wait_watching(viewer)
        wait_for(viewer, lambda d: text_of(d, "#status-text") == "Live", "live")
        self.assertTrue(text_of(viewer, "#watch-page").startswith("Folie 1 / "), text_of(viewer, "#watch-page"))
        screenshot(viewer, "i18n-de-viewer-stage")

        arabic = self.driver(390, 844)
        arabic.get(f"{SERVER.base}/s/{code}?lang=ar")
        wait_translated(arabic)
        wait_for(arabic, lambda d: visible(d, "#gate-form"), "the join gate")
        self.assertEqual(layout(arabic), {"lang": "ar", "dir": "rtl"})
        self.assertEqual(text_of(arabic, "#join-button"), "انضمام")
        # Mirrored: the gate's text starts at the right.
        self.assertEqual(arabic.execute_script("return getComputedStyle(document.querySelector('#gate-title')).direction"), "rtl")
        screenshot(arabic, "i18n-ar-viewer-gate")
        arabic.find_element(By.ID, "join-button").click()
        self.wait_watching(arabic)
        wait_for(arabic, lambda d: text_of(d, "#status-text") == "مباشر", "live, in Arabic")
        # The slide itself is never mirrored.
        mirrored = arabic.execute_script(
            "const flipped = (e) => { const m = getComputedStyle(e).transform; return m !== 'none' && new DOMMatrix(m).a < 0; };"
            "const img = document.querySelector('podium-stage img.current');"
            "const chain = []; for (let e = img; e; e = e.parentElement || (e.getRootNode() && e.getRootNode().host)) chain.push(e);"
            "return chain.filter(flipped).map((e) => e.tagName);")
        self.assertEqual(mirrored, [], "nothing between the slide and the page flips it")
        self.assertEqual(arabic.execute_script("return getComputedStyle(document.querySelector('podium-stage')).direction"), "rtl")
        self.assertEqual(text_of(arabic, "#watch-page").split(" / ")[0], "الشريحة 1")
        screenshot(arabic, "i18n-ar-viewer-stage")
        self.assertLessEqual(overflow(arabic), 0, "the viewer's bar fits a phone in Arabic")
        # The language while watching: a dialog from the bar; choosing reloads and joins again by itself.
        arabic.find_element(By.ID, "language-button").click()
        wait_for(arabic, lambda d: visible(d, "dialog.language-dialog select.language-switcher"), "the language dialog")
        screenshot(arabic, "i18n-ar-viewer-language")
        from selenium.webdriver.support.ui import Select
        Select(arabic.find_element(By.CSS_SELECTOR, "dialog.language-dialog select")).select_by_value("cs")
        wait_for(arabic, lambda d: d.execute_script("return document.documentElement.lang") == "cs", "the page in Czech")
        self.wait_watching(arabic)
        wait_for(arabic, lambda d: text_of(d, "#status-text") == "Živě", "live again, in Czech, without the gate")
        self.assertEqual(layout(arabic), {"lang": "cs", "dir": "ltr"})


def listed_sessions(driver):
    """The codes and titles of the live sessions the join page lists (other tests' too): data."""
    return driver.execute_script(
        "return [...document.querySelectorAll('.session-link')].flatMap((a) => [a.dataset.code, a.querySelector('.session-title span').textContent])")


class I18nLiveEntryTests(I18nLiveTestCase):
    def test_i18n_live_3_home_login_and_dead_ends_in_the_pseudo_language(self):
        """The join page (empty, with a live session, a bad code), sign-in (a wrong password)
        and every dead end: every word from a catalogue, with a language switcher."""
        driver = self.driver(390, 844)
        driver.get(SERVER.base + "/?lang=qps")
        wait_translated(driver)
        wait_for(driver, lambda d: visible(d, "#code"), "the code field")
        self.assertEqual(language_switcher_values(driver), ["en"])
        self.assertAllTranslated(driver, "home", listed_sessions(driver))
        session = SERVER.start_session(DEMO_DECK["id"], passcode="1234")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'[data-code="{session["code"]}"]'), "the live session listed")
        field = driver.find_element(By.ID, "code")
        field.send_keys("O0")
        driver.find_element(By.ID, "join-button").click()
        wait_for(driver, lambda d: "is-error" in d.find_element(By.ID, "join-hint").get_attribute("class"), "the hint says why")
        # Other tests' sessions may be live too: every listed code and title is data.
        self.assertAllTranslated(driver, "home-with-session", [session["title"], session["code"], "Admin"] + listed_sessions(driver))

        driver.get(SERVER.base + "/login?lang=qps")
        wait_translated(driver)
        wait_for(driver, lambda d: visible(d, "#email"), "the sign-in form")
        driver.find_element(By.ID, "login-submit").click()
        wait_for(driver, lambda d: text_of(d, "#login-error"), "the missing email said")
        self.assertAllTranslated(driver, "login-empty")
        driver.find_element(By.ID, "email").send_keys("admin")
        driver.find_element(By.ID, "password").send_keys("wrong password")
        driver.find_element(By.ID, "login-submit").click()
        wait_for(driver, lambda d: "bad_credentials" not in (text_of(d, "#login-error") or "") and "⟦" in (text_of(d, "#login-error") or "")
                 and text_of(d, "#login-error") != "⟦Enter your password.⟧", "the wrong password said")
        self.assertEqual(text_of(driver, "#login-error"), "⟦Wrong email or password.⟧")
        self.assertAllTranslated(driver, "login-wrong", ["admin"])

        self.sign_in_with_cookie(driver)
        for path in ("/s/ZZZZZZ", "/r/ZZZZZZ", "/present/ZZZZZZ", "/decks/d_gone", "/no/such/page"):
            driver.get(SERVER.base + path + "?lang=qps")
            wait_translated(driver)
            wait_for(driver, lambda d: "⟦" in (text_of(d, "#not-found-title") or ""), "the dead end translated")
            self.assertAllTranslated(driver, "dead-end " + path, ["ZZZZZZ"])

    def test_i18n_live_4_dead_end_and_sign_in_in_arabic_and_german(self):
        """A dead end in Arabic is right to left and says the code; sign-in in German."""
        driver = self.driver(390, 844)
        driver.get(SERVER.base + "/s/ZZZZZZ?lang=ar")
        wait_translated(driver)
        self.assertEqual(layout(driver), {"lang": "ar", "dir": "rtl"})
        self.assertEqual(text_of(driver, "#not-found-title"), "لا توجد جلسة بالرمز ZZZZZZ")
        screenshot(driver, "i18n-ar-dead-end")
        driver.get(SERVER.base + "/login?lang=de")
        wait_translated(driver)
        self.assertEqual(text_of(driver, "#login-submit"), "Anmelden")
        driver.find_element(By.ID, "email").send_keys("admin")
        driver.find_element(By.ID, "password").send_keys("wrong password")
        driver.find_element(By.ID, "login-submit").click()
        wait_for(driver, lambda d: text_of(d, "#login-error") == "E-Mail-Adresse oder Passwort ist falsch.", "the German error")
        screenshot(driver, "i18n-de-login-error")


# What the library shows that belongs to other parts (the channel's storyboards and rooms, i18n-channel's areas).
LIBRARY_OTHERS = "#storyboards, .storyboard-card"


class I18nLiveLibraryTests(I18nLiveTestCase):
    def test_i18n_live_5_library_in_the_pseudo_language(self):
        """The library with decks, a failed upload, a deck's menu, the rename and go-live dialogs,
        a folder and its delete question, and the past sessions: every word from a catalogue."""
        work = self.scratch_directory("podium-i18n-")
        notes = work / "notes.pdf"
        notes.write_text("Just notes, not a PDF.\n" * 10)
        deck_title = DEMO_DECK["title"]
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        status, user = SERVER.api("GET", "/api/v1/me")
        name = user.get("name") or user.get("email") or ""
        allowed = [deck_title, "notes.pdf", "notes", name, user.get("email") or "", "Talks", name[:1].upper()]  # the avatar's initial
        # What other tests left in the library is data too: decks, folders, videos, by their names.
        for path, key in (("/api/v1/decks", "title"), ("/api/v1/folders", "name"), ("/api/v1/videos", "title")):
            status, items = SERVER.api("GET", path)
            allowed += [item[key] for item in (items or []) if status == 200 and item.get(key)]
        driver.get(SERVER.base + "/library?lang=qps")
        wait_translated(driver)
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '.deck-card[data-status="ready"]'), "the decks")
        driver.execute_script("document.querySelectorAll(arguments[0]).forEach((e) => e.remove());", LIBRARY_OTHERS)
        self.assertEqual(language_switcher_values(driver), ["en"])
        self.assertAllTranslated(driver, "library", allowed)

        driver.find_element(By.ID, "file-input").send_keys(str(notes))
        wait_for(driver, lambda d: visible(d, '[data-upload][data-status="failed"]'), "the refused upload")
        self.assertAllTranslated(driver, "library-failed-upload", allowed)

        card = driver.find_element(By.CSS_SELECTOR, '.deck-card[data-status="ready"]')
        card.find_element(By.CSS_SELECTOR, '[data-action="more"]').click()
        self.assertAllTranslated(driver, "library-menu", allowed)
        card.find_element(By.CSS_SELECTOR, '[data-action="rename"]').click()
        wait_for(driver, lambda d: visible(d, "dialog[open]"), "the rename dialog")
        self.assertAllTranslated(driver, "library-rename", allowed)
        driver.find_element(By.CSS_SELECTOR, "dialog[open] button[value=cancel]").click()
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the dialog closed")

        card.find_element(By.CSS_SELECTOR, '[data-action="golive"]').click()
        wait_for(driver, lambda d: visible(d, "#golive-dialog"), "the go-live dialog")
        self.assertAllTranslated(driver, "library-golive", allowed)
        driver.find_element(By.CSS_SELECTOR, "#golive-dialog .dialog-actions .btn:not(.btn-primary)").click()

        SERVER.api("POST", "/api/v1/folders", {"name": "Talks"})
        driver.get(SERVER.base + "/library?lang=qps")
        wait_translated(driver)
        folder = wait_for(driver, lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, ".folder-button") if "Talks" in b.text], "the folder")
        folder[0].click()
        driver.find_element(By.ID, "delete-folder").click()
        wait_for(driver, lambda d: visible(d, "dialog[open]"), "the delete question")
        driver.execute_script("document.querySelectorAll(arguments[0]).forEach((e) => e.remove());", LIBRARY_OTHERS)
        self.assertAllTranslated(driver, "library-delete-folder", allowed)
        driver.find_element(By.CSS_SELECTOR, "dialog[open] button[value=cancel]").click()

        SERVER.start_session(DEMO_DECK["id"], passcode="9999")
        driver.find_element(By.ID, "past-button").click()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".past-row"), "the past sessions")
        codes = driver.execute_script("return [...document.querySelectorAll('.past-row')].map((r) => r.dataset.code)")
        driver.execute_script("document.querySelectorAll(arguments[0]).forEach((e) => e.remove());", LIBRARY_OTHERS)
        self.assertAllTranslated(driver, "library-history", allowed + codes)
        screenshot(driver, "i18n-qps-library-history")


class I18nLiveConsoleTests(I18nLiveTestCase):
    def test_i18n_live_6_console_and_rehearsal_in_the_pseudo_language(self):
        """The presenter console (its panels, the poll editor, a poll with answers, a question,
        draw mode, the end dialog) and rehearsal: every word from a catalogue."""
        session = SERVER.start_session(DEMO_DECK["id"], passcode="2468")
        code = session["code"]
        title = session["title"]
        # "admin": the presenter's account, shown on the co-hosts card (its name, its address as the title).
        allowed = [title, code, "2468", "Which colour?", "Red", "Blue", "Why blue?", "Ana", "Admin", "admin"]
        presenter = self.driver(1280, 860)
        self.sign_in_with_cookie(presenter)
        presenter.get(f"{SERVER.base}/present/{code}?lang=qps")
        wait_translated(presenter)
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the console live")
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the first slide")
        host = presenter.execute_script("return location.host")
        allowed += [host, f"{SERVER.base}/s/{code}", f"/s/{code}"]
        self.assertEqual(language_switcher_values(presenter), ["en"])
        self.assertAllTranslated(presenter, "console", allowed)

        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, name="Ana", passcode="2468")
        presenter.find_element(By.ID, "tab-viewers").click()
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, '.viewer-item[data-connected="true"]'), "Ana listed")
        self.assertAllTranslated(presenter, "console-viewers", allowed)

        presenter.find_element(By.ID, "tab-polls").click()
        presenter.find_element(By.CSS_SELECTOR, '[data-action="new-question"]').click()
        wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        self.assertAllTranslated(presenter, "console-poll-editor", allowed)
        presenter.find_element(By.CSS_SELECTOR, "#poll-editor [data-action=save-send]").click()
        wait_for(presenter, lambda d: "⟦" in (text_of(d, "#poll-editor .form-error") or ""), "the editor's complaint")
        self.assertAllTranslated(presenter, "console-poll-editor-error", allowed)
        presenter.find_element(By.ID, "poll-question").send_keys("Which colour?")
        choices = presenter.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        choices[0].send_keys("Red")
        choices[1].send_keys("Blue")
        presenter.find_element(By.CSS_SELECTOR, "#poll-editor [data-action=save-send]").click()
        wait_for(viewer, lambda d: visible(d, "#poll-sheet"), "the poll on the viewer")
        viewer.find_element(By.CSS_SELECTOR, "#poll-sheet .poll-option").click()
        viewer.find_element(By.CSS_SELECTOR, "#poll-sheet button[type=submit]").click()
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, '.bar-row[data-count="1"]'), "the answer counted")
        self.assertAllTranslated(presenter, "console-poll-open", allowed)
        presenter.find_element(By.CSS_SELECTOR, '#active-poll [data-results-to="screen"]').click()
        wait_for(presenter, lambda d: visible(d, '[data-action="spotlight-off-panel"]'), "the results on screen")
        self.assertAllTranslated(presenter, "console-spotlight", allowed + ["A,", "B,"])  # the choices' letters
        presenter.find_element(By.CSS_SELECTOR, '[data-action="spotlight-off-panel"]').click()

        viewer.execute_script("document.getElementById('ask-button').click()")  # under the poll's sheet on a phone
        wait_for(viewer, lambda d: visible(d, "#ask-dialog"), "the question dialog")
        viewer.find_element(By.ID, "ask-text").send_keys("Why blue?")
        viewer.find_element(By.ID, "ask-send").click()
        presenter.find_element(By.ID, "tab-questions").click()
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, ".question-item"), "the question")
        # The question's time is Intl's ("just now" is a message; minutes ago, Intl's words).
        self.assertAllTranslated(presenter, "console-questions", allowed)

        presenter.find_element(By.CSS_SELECTOR, '[data-action="draw"]').click()
        wait_for(presenter, lambda d: visible(d, "#ink-bar"), "the ink bar")
        self.assertAllTranslated(presenter, "console-draw", allowed)
        presenter.find_element(By.CSS_SELECTOR, '[data-action="ink-done"]').click()

        presenter.find_element(By.ID, "end-session").click()
        wait_for(presenter, lambda d: visible(d, "dialog[open]"), "the end question")
        self.assertAllTranslated(presenter, "console-end-dialog", allowed)
        presenter.find_element(By.CSS_SELECTOR, "dialog[open] [data-role=confirm]").click()
        wait_for(presenter, lambda d: visible(d, "#ended-overlay"), "the session ended")
        self.assertAllTranslated(presenter, "console-ended", allowed)

        presenter.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}?lang=qps")
        wait_translated(presenter)
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "rehearsal's first slide")
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, ".bank-item, .pane-empty"), "the question bank")
        self.assertAllTranslated(presenter, "rehearsal", allowed)

    def test_i18n_live_7_console_in_arabic(self):
        """The console in Arabic: right to left, the slide not mirrored, counts in Arabic plurals."""
        session = SERVER.start_session(DEMO_DECK["id"])
        presenter = self.driver(1280, 860)
        self.sign_in_with_cookie(presenter)
        presenter.get(f"{SERVER.base}/present/{session['code']}?lang=ar")
        wait_translated(presenter)
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the console live")
        wait_for(presenter, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the first slide")
        self.assertEqual(layout(presenter), {"lang": "ar", "dir": "rtl"})
        self.assertEqual(text_of(presenter, "#connection-text"), "مباشر")
        self.assertEqual(presenter.execute_script("return document.querySelector('#viewer-pill').title"), "لا مشاهدين متصلين")
        # The join panel sits on the start side of a right-to-left page: its right edge is left of the stage's.
        screenshot(presenter, "i18n-ar-console")
        de = self.driver(390, 844)
        self.sign_in_with_cookie(de)
        de.get(f"{SERVER.base}/present/{session['code']}?lang=de")
        wait_translated(de)
        wait_for(de, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the console live")
        self.assertEqual(text_of(de, "#connection-text"), "Live")
        screenshot(de, "i18n-de-console-phone")


def overflow(driver):
    """How far the page is wider than the window (long German words, right-to-left slips), in px."""
    return driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")


class I18nLiveLayoutTests(I18nLiveTestCase):
    def test_i18n_live_8_pages_fit_in_german_and_arabic_on_a_phone(self):
        """Every page of i18n-live on a phone in German (long words) and Arabic (right to left):
        nothing wider than the window; screenshots to look at."""
        self.check_pages_fit((("de", (390, 844)), ("ar", (390, 844))))

    def test_i18n_live_8_pages_fit_in_german_and_arabic_on_a_laptop(self):
        """The same on a laptop (split from the phone's so neither needs 30 s on a busy machine)."""
        self.check_pages_fit((("ar", (1280, 800)), ("de", (1280, 800))))

    def check_pages_fit(self, languages_and_sizes):
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        # Signed out first (sign-in, the join page), then signed in.
        pages = {
            "login": "/login", "home": "/", "view": f"/s/{code}", "dead-end": "/s/ZZZZZZ",
            "library": "/library", "console": f"/present/{code}", "rehearse": f"/decks/{DEMO_DECK['id']}",
        }
        # What each page shows once it has loaded, so the widths are measured (and the screenshot
        # taken) on the page a person sees, not on its empty frame: the console's bar and strip fill
        # only when it is live.
        loaded = {
            "login": lambda d: visible(d, "form"),
            "home": lambda d: visible(d, "form"),
            "view": lambda d: visible(d, "form") or d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"),
            "dead-end": lambda d: visible(d, "main"),
            "library": lambda d: d.find_elements(By.CSS_SELECTOR, ".deck-card[data-deck-id]"),
            "console": lambda d: d.execute_script("return document.body.dataset.connection") == "live"
            and d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"),
            "rehearse": lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"),
        }
        for language, (width, height) in languages_and_sizes:
            driver = self.driver(width, height)
            for name, path in pages.items():
                if name == "library":
                    self.sign_in_with_cookie(driver)
                driver.get(f"{SERVER.base}{path}?lang={language}")
                wait_translated(driver)
                wait_for(driver, lambda d: d.execute_script("return document.fonts.status") == "loaded", "the fonts")
                wait_for(driver, loaded[name], f"the {name} page loaded in {language}")
                self.assertEqual(layout(driver)["dir"], "rtl" if language == "ar" else "ltr", f"{language} {name}")
                self.assertLessEqual(overflow(driver), 0, f"{name} in {language} at {width}px is wider than the window")
                if name == "rehearse" and language == "ar":
                    # The deck's English title, cut short in a right-to-left page, keeps its first word
                    # and loses its end: its first letter inside the title's box, the ellipsis at the end.
                    start, box = driver.execute_script(
                        "const t = document.querySelector('#deck-title'); const r = document.createRange();"
                        "r.setStart(t.firstChild, 0); r.setEnd(t.firstChild, 1);"
                        "const a = r.getBoundingClientRect(), b = t.getBoundingClientRect();"
                        "return [[a.left, a.right], [b.left, b.right]];")
                    self.assertEqual(driver.find_element(By.ID, "deck-title").text, DEMO_DECK["title"])
                    self.assertGreaterEqual(start[0], box[0] - 0.5, f"the title's first letter is cut off: {start} in {box}")
                    self.assertLessEqual(start[1], box[1] + 0.5, f"the title's first letter is outside its box: {start} in {box}")
                screenshot(driver, f"i18n-{language}-{width}-{name}")
            self.release(driver)
