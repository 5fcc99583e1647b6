#!/usr/bin/python3
"""The audience's language on the channel's pages (issue #22): every text a person sees on the
channel, its admin, the rooms, the storyboard and the report comes from a catalogue.

Each page is opened in the pseudo-language (``?lang=qps``: every catalogue message wrapped in
⟦ ⟧) in the states that matter, and no visible text, placeholder, title, aria-label or alt may
hold letters outside ⟦ ⟧, except the data the test itself put there (names, titles). A German
and an Arabic run of the channel check long words and right to left (the layout mirrored).

Runs inside the suite of ``run_browser_tests.py``. Alone:
python3 Tests/Browser/run_browser_tests.py i18n_channel
"""

import sys
import time

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

DEMO_DECK = harness.DEMO_DECK


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# Product names and codes a catalogue keeps as they are.
NAMES = ["Podium", "OpenStreetMap", "Leaflet"]

# The scan, in the page: visible text nodes and the attributes people read (placeholder, title,
# aria-label, alt, the document's title), with every ⟦…⟧ (innermost first, as messages nest)
# and every allowed string removed; what still holds a letter came from no catalogue.
SCAN = r"""
const letters = /\p{L}/u;
// Words Intl writes in dates and times (the pseudo-language formats as English does).
const intlWords = new Set(['AM', 'PM']);
for (let month = 0; month < 12; month++) {
  for (const style of ['long', 'short']) intlWords.add(new Intl.DateTimeFormat('en', { month: style }).format(new Date(2020, month, 15)));
}
for (let day = 0; day < 7; day++) {
  for (const style of ['long', 'short']) intlWords.add(new Intl.DateTimeFormat('en', { weekday: style }).format(new Date(2020, 5, 7 + day)));
}
for (const dateStyle of ['full', 'long', 'medium']) {
  const parts = new Intl.DateTimeFormat('en', { dateStyle, timeStyle: 'short' }).formatToParts(new Date(2020, 5, 7, 15, 30));
  for (const part of parts) if (part.type === 'literal' && letters.test(part.value)) intlWords.add(part.value);
}
const allowed = [...arguments[0], ...[...intlWords].sort((a, b) => b.length - a.length)];
function strip(text) {
  let rest = text;
  for (let before = null; before !== rest; ) { before = rest; rest = rest.replace(/⟦[^⟦⟧]*⟧/g, ' '); }
  for (const word of allowed) rest = rest.split(word).join(' ');
  return rest.replace(/#[0-9a-fA-F]{6}\b/g, ' '); // colours as codes
}
function shown(element) {
  if (!element || element.closest('.language-switcher, script, style, noscript, template')) return false;
  return element.checkVisibility ? element.checkVisibility({ checkVisibilityCSS: true }) : element.getClientRects().length > 0;
}
function where(element) {
  const id = element.id ? '#' + element.id : '';
  const cls = typeof element.className === 'string' && element.className ? '.' + element.className.trim().split(/\s+/).join('.') : '';
  return element.tagName.toLowerCase() + id + cls;
}
const found = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const text = node.textContent;
  if (!letters.test(text) || !shown(node.parentElement)) continue;
  if (letters.test(strip(text))) found.push(where(node.parentElement) + ': ' + JSON.stringify(text.trim().slice(0, 120)));
}
for (const element of document.body.querySelectorAll('[placeholder], [title], [aria-label], [alt], [aria-valuetext]')) {
  if (!shown(element) && !element.closest('[role=dialog], dialog[open]')) continue;
  if (element.closest('.language-switcher')) continue;
  for (const name of ['placeholder', 'title', 'aria-label', 'alt', 'aria-valuetext']) {
    const value = element.getAttribute(name);
    if (value && letters.test(strip(value))) found.push(where(element) + ' [' + name + ']: ' + JSON.stringify(value.slice(0, 120)));
  }
}
if (letters.test(strip(document.title))) found.push('document.title: ' + JSON.stringify(document.title));
return found;
"""


def untranslated(driver, allowed=()):
    """What the page shows that no catalogue gave (in ``?lang=qps``), as "element: text" lines."""
    return driver.execute_script(SCAN, sorted(set(NAMES) | set(allowed), key=len, reverse=True))


def too_wide(driver):
    """The elements that stick out of the page's width (nothing, on a page that fits)."""
    return driver.execute_script(
        "const width = document.documentElement.clientWidth; const out = [];"
        "const scrolls = (e) => { for (let p = e.parentElement; p; p = p.parentElement) { const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll') return true; } return false; };"
        "for (const e of document.body.querySelectorAll('*')) { const r = e.getBoundingClientRect();"
        " if (r.width && (r.right > width + 1 || r.left < -1) && !e.closest('.skip-link') && !scrolls(e)) out.push(e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(r.left) + '..' + Math.round(r.right)); }"
        "return out.slice(0, 8);")


def ready(driver):
    return driver.execute_script("return document.body.dataset.ready") == "true"


def with_lang(path, lang):
    """`path` with `?lang=` before its hash."""
    base, hash_mark, fragment = path.partition("#")
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}lang={lang}{hash_mark}{fragment}"


CHANNEL_SEED = {}
QUIZ_NAMES = ["Rivers", "Castles"]
PLACE = {"name": "Hrad Veveří", "address": "Veverská Bítýška", "openingHours": "Daily 9–17", "phone": "+420 546 420 025"}
CATEGORY = "Sights"
STATION = "Folk Radio"
QUESTION = ("Longest river?", [("Vltava", True), ("Labe", False)])


def seed_channel():
    """Two quizzes (the older one is for members), a place in a category: made once per server."""
    if CHANNEL_SEED.get("base") == SERVER.base:
        return CHANNEL_SEED
    ids = {}
    for name in QUIZ_NAMES:
        text, answers = QUESTION
        status, quiz = SERVER.api("POST", "/api/v1/channel/quizzes", {
            "name": name, "description": "About " + name, "published": True,
            "questions": [{"text": text, "answers": [{"text": a, "correct": c} for a, c in answers]}],
        })
        assert status == 201, (status, quiz)
        ids[name] = quiz["quiz"]["id"]
        time.sleep(0.01)  # the next one is newer
    status, radio = SERVER.api("POST", "/api/v1/channel/radios", {"name": STATION, "description": "Polkas"})
    assert status == 201, (status, radio)
    SERVER.api("PATCH", f"/api/v1/channel/radios/{radio['id']}", {"published": True})
    ids["radio"] = radio["id"]
    status, category = SERVER.api("POST", "/api/v1/channel/pois/categories", {"name": CATEGORY})
    assert status == 201, (status, category)
    status, place = SERVER.api("POST", "/api/v1/channel/pois", {
        **PLACE, "latitude": 49.2836, "longitude": 16.4614, "categoryId": category["id"], "published": True,
        "website": "https://example.org/",
    })
    assert status == 201, (status, place)
    ids["place"] = place["id"]
    CHANNEL_SEED.clear()
    CHANNEL_SEED.update(base=SERVER.base, **ids)
    return CHANNEL_SEED


# Data the channel's test put there, which the scan lets through.
CHANNEL_DATA = QUIZ_NAMES + [STATION, "Polkas", "About Rivers", "About Castles", QUESTION[0], "Vltava", "Labe", CATEGORY,
                             *PLACE.values(), "example.org"]


class ChannelLanguageTests(BrowserTest):
    def assert_translated(self, driver, what, allowed=CHANNEL_DATA):
        found = untranslated(driver, allowed)
        self.assertEqual(found, [], f"text no catalogue gave on {what}:\n" + "\n".join(found))

    def open_channel(self, driver, path, lang="qps"):
        driver.get(SERVER.base + with_lang(path, lang))
        wait_for(driver, ready, "the channel page")

    def test_i18n_channel_1_the_audience_page_in_the_pseudo_language(self):
        """The channel's tabs, empty and with content, a quiz taken to its result, a place's
        page, a membership limit and an error: all from the catalogues."""
        ids = seed_channel()
        phone = self.driver(390, 844)
        self.open_channel(phone, "/channel#videos")
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, ".cv-empty"), "the empty videos")
        self.assert_translated(phone, "the videos (empty)")

        phone.execute_script("location.hash = '#videos/no-such-video'")
        wait_for(phone, lambda d: visible(d, ".cv-detail .cv-empty"), "a video that is not there")
        self.assert_translated(phone, "a missing video")

        phone.execute_script("location.hash = '#radio'")
        wait_for(phone, lambda d: visible(d, ".radio-empty") or visible(d, "[data-role=radio-item]"), "the stations")
        self.assert_translated(phone, "the radio's stations")
        phone.execute_script("location.hash = arguments[0]", "#radio/" + ids["radio"])
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, ".radio-empty, [data-role=radio-title]")
                 and (d.find_element(By.CSS_SELECTOR, ".radio-player").text or "").strip(), "a station without tracks")
        self.assert_translated(phone, "a station that is not on the air")

        phone.execute_script("location.hash = '#places'")
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, ".places-list li"), "the places")
        self.assert_translated(phone, "the places")
        phone.execute_script("location.hash = arguments[0]", "#places/" + ids["place"])
        wait_for(phone, lambda d: visible(d, ".place-title"), "a place")
        self.assert_translated(phone, "a place's page")
        phone.find_element(By.CSS_SELECTOR, ".place-directions-button").click()
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, ".place-directions .channel-limit"), "the membership limit")
        self.assert_translated(phone, "a place's page with the membership limit")

        phone.execute_script("location.hash = '#quizzes'")
        wait_for(phone, lambda d: visible(d, ".quiz-current"), "the quizzes")
        self.assert_translated(phone, "the quizzes")
        phone.execute_script("location.hash = arguments[0]", "#quizzes/" + ids[QUIZ_NAMES[0]])
        wait_for(phone, lambda d: visible(d, ".quiz-limit .channel-limit"), "the archive's limit")
        self.assert_translated(phone, "an archived quiz (members only)")
        phone.execute_script("location.hash = arguments[0]", "#quizzes/" + ids[QUIZ_NAMES[1]])
        wait_for(phone, lambda d: visible(d, ".quiz-answer"), "a question")
        self.assert_translated(phone, "a question")
        phone.find_element(By.CSS_SELECTOR, ".quiz-answer:not(:first-child)").click()  # the wrong one
        wait_for(phone, lambda d: visible(d, ".quiz-result"), "the result")
        self.assert_translated(phone, "a quiz's result")

        phone.execute_script("location.hash = '#new'")
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "#new-items li"), "the new items")
        self.assert_translated(phone, "what is new")

    def test_i18n_channel_2_german_and_arabic(self):
        """German (long words) fits a phone; Arabic is right to left, the tabs and the back
        arrow mirrored."""
        ids = seed_channel()
        phone = self.driver(390, 844)
        self.open_channel(phone, "/channel#quizzes", "de")
        wait_for(phone, lambda d: visible(d, ".quiz-current"), "the quizzes in German")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".channel-tab[data-section=quizzes]").text, "Quiz")
        self.assertEqual(phone.find_element(By.CSS_SELECTOR, ".quiz-heading").get_attribute("textContent"), "Aktuelles Quiz")
        self.assertIn("1 Frage", phone.find_element(By.CSS_SELECTOR, ".quiz-current .quiz-meta").text)
        self.assertEqual(too_wide(phone), [], "the German page is wider than the phone")
        screenshot(phone, "i18n-channel-quizzes-de-phone")
        self.open_channel(phone, "/channel#places/" + ids["place"], "de")
        wait_for(phone, lambda d: visible(d, ".place-title"), "a place in German")
        self.assertIn("Öffnungszeiten", phone.find_element(By.CSS_SELECTOR, ".place-detail").text)
        screenshot(phone, "i18n-channel-place-de-phone")

        laptop = self.driver(1280, 860)
        self.open_channel(laptop, "/channel#quizzes/" + ids[QUIZ_NAMES[1]], "ar")
        wait_for(laptop, lambda d: visible(d, ".quiz-answer"), "a question in Arabic")
        self.assertEqual(laptop.execute_script("return document.documentElement.dir"), "rtl")
        self.assertEqual(laptop.find_element(By.CSS_SELECTOR, ".quiz-count").text, "السؤال ١ من ١"
                         if laptop.execute_script("return new Intl.NumberFormat('ar').format(1)") == "١" else "السؤال 1 من 1")
        # Mirrored: the first tab is at the right, the brand at the right of the top bar.
        tabs = laptop.find_elements(By.CSS_SELECTOR, ".channel-tab")
        self.assertGreater(tabs[0].rect["x"], tabs[-1].rect["x"], "the tabs run right to left")
        brand = laptop.find_element(By.ID, "channel-name").rect
        self.assertGreater(brand["x"], 640, "the channel's name starts at the right")
        arrow = laptop.find_element(By.CSS_SELECTOR, ".quiz-back .flip-inline")
        self.assertIn("matrix(-1", arrow.value_of_css_property("transform"), "the back arrow points right")
        screenshot(laptop, "i18n-channel-quiz-ar-laptop")
        phone.get(SERVER.base + with_lang("/channel#places", "ar"))
        wait_for(phone, ready, "the places in Arabic")
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, ".places-list li"), "the places in Arabic")
        screenshot(phone, "i18n-channel-places-ar-phone")


class ReportLanguageTests(BrowserTest):
    def test_i18n_report_1_a_session_report_in_the_pseudo_language_german_and_arabic(self):
        """A session's report (empty: no polls, no questions, nobody joined) and the errors of
        a report that is not there: from the catalogues; in German and in Arabic, right to left."""
        session = SERVER.start_session(DEMO_DECK["id"])
        code = session["code"]
        laptop = self.driver(1280, 860)
        self.sign_in_with_cookie(laptop)
        laptop.get(SERVER.base + f"/report.html?code={code}&lang=qps")
        wait_for(laptop, lambda d: d.find_element(By.ID, "report").get_attribute("data-state") == "ready", "the report")
        found = untranslated(laptop, [DEMO_DECK["title"], code])
        self.assertEqual(found, [], "text no catalogue gave on the report:\n" + "\n".join(found))

        laptop.get(SERVER.base + "/report.html?code=ZZZZZZ&lang=qps")
        wait_for(laptop, lambda d: d.find_element(By.ID, "report").get_attribute("data-state") == "error", "the error")
        found = untranslated(laptop, ["ZZZZZZ"])
        self.assertEqual(found, [], "text no catalogue gave on a missing report:\n" + "\n".join(found))

        laptop.get(SERVER.base + f"/report.html?code={code}&lang=de")
        wait_for(laptop, lambda d: d.find_element(By.ID, "report").get_attribute("data-state") == "ready", "the report in German")
        self.assertEqual(laptop.find_element(By.ID, "report-kind").text, "Sitzungsbericht")
        self.assertIn("Sitzungsbericht", laptop.title)
        self.assertIn("Fragen aus dem Publikum", laptop.find_element(By.ID, "report").text)
        screenshot(laptop, "i18n-report-de-laptop")

        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        phone.get(SERVER.base + f"/report.html?code={code}&lang=ar")
        wait_for(phone, lambda d: d.find_element(By.ID, "report").get_attribute("data-state") == "ready", "the report in Arabic")
        self.assertEqual(phone.execute_script("return document.documentElement.dir"), "rtl")
        self.assertEqual(phone.find_element(By.ID, "report-kind").get_attribute("textContent"), "تقرير الجلسة")
        screenshot(phone, "i18n-report-ar-phone")
        self.assertEqual(too_wide(phone), [], "the Arabic report is wider than the phone")


# Parts of the room's pages that come from the live console's modules (i18n-live's catalogues:
# the stage's controls, thumbnails, ink, polls and questions, the shortcuts' help, toasts' close
# button): their own tests scan them; here they are left out.
SHARED_PARTS = [".side-tabs", "podium-stage", "#controls", "#thumbs", "#ink-bar", ".interaction-panel", "#pane-polls", "#pane-questions",
                ".pane-tabs", ".lock-slot", "#lock-slot", ".shortcuts", ".toast-close", "podium-stage .stage-controls"]

ROOM_SCAN = "for (const css of arguments[1]) for (const e of document.querySelectorAll(css)) e.setAttribute('data-i18n-scan-skip', '');"


def untranslated_room(driver, allowed):
    driver.execute_script(ROOM_SCAN, [], SHARED_PARTS)
    return [line for line in driver.execute_script(
        SCAN.replace("element.closest('.language-switcher,", "element.closest('[data-i18n-scan-skip], .language-switcher,"),
        sorted(set(NAMES) | set(allowed), key=len, reverse=True))]


class RoomLanguageTests(BrowserTest):
    def assert_room_translated(self, driver, what, allowed):
        found = untranslated_room(driver, allowed)
        self.assertEqual(found, [], f"text no catalogue gave on {what}:\n" + "\n".join(found))

    def test_i18n_rooms_1_moderator_presenter_and_projector_in_the_pseudo_language_and_arabic(self):
        """A room's moderator console, a presenter's gate and console, and the projector's
        join screen: from the catalogues; the presenter's page in Arabic is right to left."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Lightning talks"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        host = SERVER.base.replace("http://", "")
        data = ["Lightning talks", code, "Ann", f"{host}/s/{code}", f"{host}/r/{code}/projector", f"{host}/r/{code}", host]

        moderator = self.driver(1440, 900)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate?lang=qps")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the console")
        self.assert_room_translated(moderator, "the moderator's console", data)

        ann = self.driver(1280, 800)
        ann.get(f"{SERVER.base}/r/{code}?lang=qps")
        wait_for(ann, lambda d: visible(d, "#gate-form"), "the presenter's gate")
        self.assert_room_translated(ann, "the presenter's gate", data)
        ann.find_element(By.ID, "join-button").click()  # no name: the error
        wait_for(ann, lambda d: d.find_element(By.ID, "gate-error").text, "the gate's error")
        self.assert_room_translated(ann, "the presenter's gate with an error", data)
        ann.find_element(By.ID, "presenter-name").send_keys("Ann")
        ann.find_element(By.ID, "join-button").click()
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "Ann in the room")
        wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, ".presenter-item"), "Ann on the console")
        self.assert_room_translated(ann, "the presenter's console", data)
        ann.find_element(By.ID, "request").click()
        wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, "#queue li"), "Ann's request on the console")
        wait_for(ann, lambda d: d.find_element(By.ID, "control-card").get_attribute("data-state") == "waiting", "Ann waiting")
        self.assert_room_translated(ann, "a presenter waiting", data)
        self.assert_room_translated(moderator, "the console with a request", data)

        # The library's "Open a room" dialog (the library page is the other helper's; only the
        # dialog, this part's, is scanned).
        library = self.driver(1280, 800)
        self.sign_in_with_cookie(library)
        library.get(f"{SERVER.base}/library?lang=qps")
        wait_for(library, lambda d: visible(d, "#open-room"), "the library's Open a room").click()
        wait_for(library, lambda d: visible(d, "#room-dialog"), "the open-a-room dialog")
        library.execute_script("for (const e of document.body.children) if (!e.contains(document.getElementById('room-dialog')))"
                               " e.setAttribute('data-i18n-scan-skip', '');")
        found = untranslated_room(library, data + [library.title])
        self.assertEqual(found, [], "text no catalogue gave on the open-a-room dialog:\n" + "\n".join(found))
        self.release(library)

        projector = self.driver(1280, 720)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector?lang=qps")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        self.assert_room_translated(projector, "the projector", data)
        projector.get(f"{SERVER.base}/r/{code}/projector?lang=ar")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen in Arabic")
        self.assertEqual(projector.execute_script("return document.documentElement.dir"), "rtl")
        self.assertEqual(projector.find_element(By.ID, "idle-host").value_of_css_property("direction"), "ltr",
                         "the address reads left to right")
        screenshot(projector, "i18n-room-projector-ar")

        ann.get(f"{SERVER.base}/r/{code}?lang=ar")
        wait_for(ann, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "Ann in Arabic")
        self.assertEqual(ann.execute_script("return document.documentElement.dir"), "rtl")
        self.assertEqual(ann.find_element(By.CSS_SELECTOR, "#request span:last-child").get_attribute("textContent"), "طلب التحكم")
        stage = ann.find_element(By.ID, "stage")
        self.assertEqual(stage.value_of_css_property("direction"), "ltr", "the slide is never mirrored")
        screenshot(ann, "i18n-room-presenter-ar-laptop")
        moderator.get(f"{SERVER.base}/r/{code}/moderate?lang=de")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the console in German")
        self.assertIn("Anfragen", moderator.find_element(By.ID, "requests-card").text)
        screenshot(moderator, "i18n-room-moderator-de-laptop")


class ChannelAdminLanguageTests(BrowserTest):
    def test_i18n_channeladmin_1_every_section_a_dialog_and_a_form_in_the_pseudo_language(self):
        """The channel's admin: each section (with content where the test made some), the
        add-category dialog, the quiz editor and the place form: from the catalogues."""
        seed_channel()
        status, user = SERVER.api("POST", "/api/v1/users", {"email": "vera@example.org", "name": "Vera", "password": "vera-watches"})
        self.assertIn(status, (201, 409), user)
        data = CHANNEL_DATA + ["Vera", "vera@example.org", "admin@example.org", "Admin", "admin", "Podium Admin"]
        laptop = self.driver(1280, 860)
        self.sign_in_with_cookie(laptop)
        for section, ready_css in [("videos", ".cva-table tbody tr"), ("categories", ".cva-table tbody tr"),
                                   ("radio", "[data-role=radio-filter]"), ("places", ".admin-place-rows li"),
                                   ("quizzes", ".admin-rows li"), ("members", "#members-table tbody tr")]:
            laptop.get(SERVER.base + f"/channel/admin?lang=qps&visit={section}#{section}")
            wait_for(laptop, ready, "the channel admin")
            wait_for(laptop, lambda d: d.find_elements(By.CSS_SELECTOR, f"#admin-{section} {ready_css}"), f"the {section} section")
            found = untranslated(laptop, data)
            self.assertEqual(found, [], f"text no catalogue gave on the admin's {section}:\n" + "\n".join(found))

        laptop.get(SERVER.base + "/channel/admin?lang=qps&visit=dialog#categories")
        wait_for(laptop, ready, "the channel admin")
        wait_for(laptop, lambda d: visible(d, "[data-role=add-category]"), "the add button").click()
        wait_for(laptop, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the category dialog")
        found = untranslated(laptop, data)
        self.assertEqual(found, [], "text no catalogue gave on the category dialog:\n" + "\n".join(found))

        laptop.get(SERVER.base + "/channel/admin?lang=qps&visit=editor#quizzes")
        wait_for(laptop, ready, "the channel admin")
        wait_for(laptop, lambda d: visible(d, ".admin-add-quiz"), "the add-quiz button").click()
        wait_for(laptop, lambda d: visible(d, ".admin-quiz-form form"), "the quiz editor")
        found = untranslated(laptop, data)
        self.assertEqual(found, [], "text no catalogue gave on the quiz editor:\n" + "\n".join(found))

        laptop.get(SERVER.base + "/channel/admin?lang=de#places")
        wait_for(laptop, ready, "the channel admin in German")
        wait_for(laptop, lambda d: visible(d, ".admin-add-place"), "the add-place button").click()
        wait_for(laptop, lambda d: visible(d, ".admin-place-form form"), "the place form")
        self.assertIn("Breitengrad", laptop.find_element(By.CSS_SELECTOR, ".admin-place-form").text)
        screenshot(laptop, "i18n-channel-admin-place-de-laptop")

        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        phone.get(SERVER.base + "/channel/admin?lang=ar#quizzes")
        wait_for(phone, ready, "the channel admin in Arabic")
        wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, "#admin-quizzes .admin-rows li"), "the quizzes in Arabic")
        self.assertEqual(phone.execute_script("return document.documentElement.dir"), "rtl")
        screenshot(phone, "i18n-channel-admin-quizzes-ar-phone")
        phone.get(SERVER.base + "/channel/admin?lang=en&visit=en#quizzes")
        wait_for(phone, ready, "the channel admin in English")
        screenshot(phone, "i18n-channel-admin-quizzes-en-phone")
        phone.get(SERVER.base + "/channel/admin?lang=ar&visit=again#quizzes")
        wait_for(phone, ready, "the channel admin in Arabic again")
        self.assertEqual(too_wide(phone), [], "the Arabic admin is wider than the phone")


class StoryboardLanguageTests(BrowserTest):
    def test_i18n_storyboard_1_project_and_shot_editor_in_the_pseudo_language_and_arabic(self):
        """A storyboard's page (a shot selected, the move dialog open) and the shot editor (its
        help open): from the catalogues; the editor in Arabic is right to left, the drawing not."""
        status, board = SERVER.api("POST", "/api/v1/storyboards", {"title": "Dragon ride", "aspectRatio": "16:9"})
        self.assertEqual(status, 201, board)
        # The server names the first scene and layer itself (stored data, as a person may rename them); "A" is the admin's initial.
        data = ["Scene 1", "Layer 1", "A", "Dragon ride", "16:9", "4:3", "2.39:1", "1.85:1", "1:1", "9:16", "Podium Admin", "Admin", "admin@example.org"]
        laptop = self.driver(1280, 860)
        self.sign_in_with_cookie(laptop)
        laptop.get(f"{SERVER.base}/storyboard.html?id={board['id']}&lang=qps")
        wait_for(laptop, ready, "the storyboard page")
        wait_for(laptop, lambda d: d.find_elements(By.CSS_SELECTOR, ".sb-shot"), "the shot cards")
        laptop.find_element(By.CSS_SELECTOR, ".sb-shot").click()
        wait_for(laptop, lambda d: visible(d, "#inspector"), "the shot's inspector")
        found = untranslated(laptop, data)
        self.assertEqual(found, [], "text no catalogue gave on the storyboard:\n" + "\n".join(found))
        laptop.find_element(By.CSS_SELECTOR, "[data-action=move-shot]").click()
        wait_for(laptop, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the move dialog")
        found = untranslated(laptop, data)
        self.assertEqual(found, [], "text no catalogue gave on the move dialog:\n" + "\n".join(found))

        shot_id = laptop.find_element(By.CSS_SELECTOR, ".sb-shot").get_attribute("data-shot-id")
        laptop.get(f"{SERVER.base}/sketch.html?id={board['id']}&shot={shot_id}&lang=qps")
        wait_for(laptop, ready, "the shot editor")
        laptop.find_element(By.ID, "help").click()
        wait_for(laptop, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog[open]"), "the shortcuts' help")
        found = untranslated(laptop, data + ["B", "M", "P", "E", "L", "U", "T", "H", "Ctrl+Z", "Esc"])
        self.assertEqual(found, [], "text no catalogue gave on the shot editor:\n" + "\n".join(found))

        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        phone.get(f"{SERVER.base}/sketch.html?id={board['id']}&shot={shot_id}&lang=ar")
        wait_for(phone, ready, "the shot editor in Arabic")
        self.assertEqual(phone.execute_script("return document.documentElement.dir"), "rtl")
        self.assertEqual(phone.find_element(By.ID, "sketch-canvas").value_of_css_property("direction"), "ltr",
                         "the drawing is never mirrored")
        screenshot(phone, "i18n-sketch-ar-phone")
        laptop.get(f"{SERVER.base}/storyboard.html?id={board['id']}&lang=de")
        wait_for(laptop, ready, "the storyboard in German")
        self.assertIn("Szene hinzufügen", laptop.find_element(By.ID, "add-scene").text)
        screenshot(laptop, "i18n-storyboard-de-laptop")
