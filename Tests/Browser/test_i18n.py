#!/usr/bin/python3
"""The audience's language (issue #22): the catalogues are complete in every language, and the
pages follow the browser's language, the switcher and ``?lang=``, right to left included.

Runs inside the suite of ``run_browser_tests.py``. Alone:
python3 Tests/Browser/run_browser_tests.py i18n
"""

import json
import re
import sys
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible

LOCALES = Path(__file__).resolve().parents[2] / "Public" / "locales"
SOURCE = "en"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# Installed in a browser before a page's own scripts: the page's catalogues wait until the test
# calls `releaseWords()`, as on a slow line, while everything else arrives at once.
SLOW_WORDS = """(() => {
  const fetch = window.fetch;
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  window.releaseWords = release;
  window.fetch = (input, init) => String(input).includes('/locales/')
    ? released.then(() => fetch.call(window, input, init))
    : fetch.call(window, input, init);
})();"""
PENDING = "return document.documentElement.classList.contains('i18n-pending')"


def catalogues():
    """{language: {area: {key: message}}} for every catalogue file on disk."""
    found = {}
    for directory in sorted(path for path in LOCALES.iterdir() if path.is_dir()):
        found[directory.name] = {
            file.stem: json.loads(file.read_text(encoding="utf-8")) for file in sorted(directory.glob("*.json"))
        }
    return found


def forms(message):
    """A message's texts: one for a plain message, one per plural category otherwise."""
    return message.values() if isinstance(message, dict) else [message]


def placeholders(message):
    return set().union(*(set(PLACEHOLDER.findall(text)) for text in forms(message)))


def load_i18n(driver, path):
    """Opens `path` and waits until it has loaded."""
    driver.get(SERVER.base + path)
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete", "the page")


def run_module(driver, script):
    """Runs `script` with `i18n` bound to the imported module; returns its `result`."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/app/core/i18n.js').then((i18n) => { " + script + " }).catch((error) => done('error: ' + error));"
    )


class LanguageTests(BrowserTest):
    def test_i18n_1_every_catalogue_is_complete(self):
        """Every language has every area and key English has, and no other; the same
        placeholders; every plural category its language's rules use (Chromium's
        Intl.PluralRules); no empty message."""
        found = catalogues()
        self.assertIn(SOURCE, found)
        driver = self.driver(400, 300)
        load_i18n(driver, "/healthz")
        # The switcher's languages, and the plural categories each uses, as the browser knows them.
        categories = run_module(
            driver,
            "done(Object.fromEntries(i18n.LANGUAGES.map(({ code }) => [code, new Intl.PluralRules(code).resolvedOptions().pluralCategories])));",
        )
        codes = list(categories)
        self.assertEqual(sorted(found), sorted(codes), "a catalogue directory per language of the switcher, and no other")
        problems = []
        english = found[SOURCE]
        for code in codes:
            areas = found[code]
            for area in sorted(set(english) | set(areas)):
                if area not in areas:
                    problems.append(f"{code}: no {area}.json")
                    continue
                if area not in english:
                    problems.append(f"{code}: {area}.json has no English original")
                    continue
                source, translated = english[area], areas[area]
                for key in sorted(set(source) - set(translated)):
                    problems.append(f"{code}/{area}: missing {key}")
                for key in sorted(set(translated) - set(source)):
                    problems.append(f"{code}/{area}: {key} is not in English")
                for key in sorted(set(source) & set(translated)):
                    original, message = source[key], translated[key]
                    if not all(isinstance(text, str) and text.strip() for text in forms(message)):
                        problems.append(f"{code}/{area}: {key} is empty")
                    if placeholders(original) != placeholders(message):
                        problems.append(f"{code}/{area}: {key} has placeholders {sorted(placeholders(message))}, English {sorted(placeholders(original))}")
                    if isinstance(original, dict) != isinstance(message, dict):
                        problems.append(f"{code}/{area}: {key} is plural in one language only")
                    elif isinstance(message, dict):
                        lacking = set(categories[code]) - set(message)
                        if lacking:
                            problems.append(f"{code}/{area}: {key} lacks plural forms {sorted(lacking)}")
                        unknown = set(message) - set(categories[code])
                        if unknown:
                            problems.append(f"{code}/{area}: {key} has forms {sorted(unknown)} that {code} never uses")
        self.assertEqual(problems, [], "\n".join(problems))

    def test_i18n_2_the_language_follows_the_address_the_switcher_and_the_browser(self):
        """`?lang=` wins; the language chooser matches regions and scripts; Arabic is right to
        left; plurals and numbers follow the language; the switcher's choice is remembered."""
        driver = self.driver(400, 300)
        load_i18n(driver, "/healthz?lang=ar")
        state = run_module(
            driver,
            "done({ language: i18n.language, dir: document.documentElement.dir, lang: document.documentElement.lang,"
            " two: i18n.t('common.viewers', { count: 2 }), eleven: i18n.t('common.viewers', { count: 11 }),"
            " number: i18n.formatNumber(1234.5), unknown: i18n.t('common.no-such-key') });",
        )
        self.assertEqual(state["language"], "ar", state)
        self.assertEqual(state["dir"], "rtl")
        self.assertEqual(state["lang"], "ar")
        self.assertEqual(state["two"], "مشاهدان")
        self.assertEqual(state["eleven"], "11 مشاهدًا")  # the "many" form
        self.assertEqual(state["unknown"], "common.no-such-key", "a missing key shows as itself, never blank")

        chosen = run_module(
            driver,
            "done([i18n.chooseLanguage(['de-AT']), i18n.chooseLanguage(['zh-CN']), i18n.chooseLanguage(['zh-TW', 'fr-CA']),"
            " i18n.chooseLanguage(['pt-BR']), i18n.chooseLanguage(['CS'])]);",
        )
        self.assertEqual(chosen, ["de", "zh-Hans", "fr", "en", "cs"])

        # The switcher remembers the choice: the next page opens in Czech without ?lang=.
        run_module(driver, "localStorage.setItem('podium.language', 'cs'); done(true);")
        load_i18n(driver, "/healthz")
        czech = run_module(
            driver,
            "done({ language: i18n.language, dir: document.documentElement.dir, few: i18n.t('common.viewers', { count: 3 }),"
            " number: i18n.formatNumber(1234.5) });",
        )
        self.assertEqual(czech["language"], "cs")
        self.assertEqual(czech["dir"], "ltr")
        self.assertEqual(czech["few"], "3 diváci")
        self.assertEqual(czech["number"], "1\u00a0234,5")

        # The pseudo-language wraps every message, so a test can spot text no catalogue gave.
        load_i18n(driver, "/healthz?lang=qps")
        self.assertEqual(run_module(driver, "done(i18n.t('common.language'));"), "⟦Language⟧")

    def test_i18n_3_a_click_or_a_sign_in_before_the_words_arrive_is_kept(self):
        """A page slow to get its words shows in English after a second; a click or a form sent
        then is held and done once the page's script runs: never lost, and a sign-in is never
        sent as a plain form to the page's own address (the password in the URL)."""
        driver = self.driver(1280, 800)
        slow = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SLOW_WORDS})
        try:
            driver.get(SERVER.base + "/login")
            wait_for(driver, lambda d: visible(d, "#password"), "the sign-in form, shown in English while its words load")
            driver.find_element(By.ID, "email").send_keys("admin")
            driver.find_element(By.ID, "password").send_keys(harness.ADMIN_PASSWORD + Keys.ENTER)
            self.assertTrue(driver.execute_script(PENDING), "the words had not arrived when the form was sent")
            self.assertNotIn("password", driver.current_url)
            self.assertEqual(driver.execute_script("return document.getElementById('email').value"), "admin")
            driver.execute_script("window.releaseWords()")
            wait_for(driver, lambda d: d.current_url.rstrip("/").endswith("/library"), "the library, signed in")

            wait_for(driver, lambda d: visible(d, "#open-room") and d.execute_script(PENDING), "the library, shown while its words load")
            driver.find_element(By.ID, "open-room").click()
            self.assertTrue(driver.execute_script(PENDING), "the words had not arrived at the click")
            self.assertFalse(visible(driver, "#room-dialog"))
            driver.execute_script("window.releaseWords()")
            wait_for(driver, lambda d: visible(d, "#room-dialog"), "the open-a-room dialog, from the early click")
            self.assertEqual(len(driver.find_elements(By.ID, "room-dialog")), 1)
        finally:
            driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", slow)
