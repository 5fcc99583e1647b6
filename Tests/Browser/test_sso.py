#!/usr/bin/python3
"""Browser tests of single sign-on with OpenID Connect (#43): the sign-in page's "Sign in with
School account" button, the round trip through a real OpenID provider (Tests/OIDC/provider.py:
authlib's server, Debian's python3-authlib and python3-flask) into the library, and a refused
sign-in explained on the sign-in page in the person's language, as a person meets them (visible,
sized, on top).

Runs inside the suite of ``run_browser_tests.py`` on a server of its own, started with
``PODIUM_OIDC_*`` naming the provider this module starts. Alone:
python3 Tests/Browser/run_browser_tests.py SingleSignOnTests
"""

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot
wait_translated = harness.wait_translated

PROVIDER = {}
SETTINGS = {
    "PODIUM_OIDC_CLIENT_ID": "podium", "PODIUM_OIDC_CLIENT_SECRET": "s3cret",
    "PODIUM_OIDC_NAME": "School account", "PODIUM_OIDC_PRESENTER_GROUPS": "teachers",
}


def setUpModule():
    # A server of this module's own, signing in at the provider started here.
    if SERVER.proc and SERVER.proc.poll() is None:
        harness.tearDownModule()
    harness.DEMO_DECK.clear()
    script = Path(__file__).resolve().parents[1] / "OIDC" / "provider.py"
    process = subprocess.Popen(
        ["/usr/bin/python3", str(script), "--port", "0", "--client-id", "podium", "--client-secret", "s3cret"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError("the OpenID provider did not start (scripts/setup --test installs python3-authlib)")
    PROVIDER["process"] = process
    PROVIDER["issuer"] = f"http://127.0.0.1:{int(line.split()[-1])}"
    os.environ.update(SETTINGS, PODIUM_OIDC_ISSUER=PROVIDER["issuer"])
    harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()
    for name in list(SETTINGS) + ["PODIUM_OIDC_ISSUER"]:
        os.environ.pop(name, None)
    process = PROVIDER.get("process")
    if process:
        process.stdin.close()
        process.terminate()
        process.wait(5)


def put_user(subject, claims):
    """The person's claims at the provider (their next ID token carries them)."""
    request = urllib.request.Request(
        f"{PROVIDER['issuer']}/users/{subject}", data=json.dumps(claims).encode(), method="PUT",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 204


def on_top(driver, css):
    """Whether the element is shown, inside the viewport, and nothing covers its centre."""
    return driver.execute_script(
        """
        const element = document.querySelector(arguments[0]);
        if (!element) return false;
        const box = element.getBoundingClientRect();
        if (box.width < 1 || box.height < 1) return false;
        if (box.left < 0 || box.top < 0 || box.right > innerWidth || box.bottom > innerHeight) return false;
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return !!hit && (hit === element || element.contains(hit));
        """, css)


def axe_serious(driver):
    """axe-core's serious and critical WCAG findings on the page as it is now (as test_screens.py)."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(harness.AXE_JS.read_text())
    result = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
                            resultTypes: ['violations'] })
          .then((r) => done(r.violations.map((v) => ({ id: v.id, impact: v.impact,
                                                       nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }))))
          .catch((e) => done([{ id: 'axe-error', impact: 'critical', nodes: [String(e)] }]));
        """)
    return [f"{v['id']}: {v['nodes']}" for v in result if v["impact"] in ("serious", "critical")]


def sign_in_at_provider(driver, subject):
    """The school's button, then the provider's page answered as that person."""
    wait_for(driver, lambda d: visible(d, "#sso-button"), "the school account's button")
    driver.find_element(By.ID, "sso-button").click()
    wait_for(driver, lambda d: d.current_url.startswith(PROVIDER["issuer"] + "/authorize"), "the provider's page")
    driver.find_element(By.NAME, "sub").send_keys(subject)
    driver.find_element(By.CSS_SELECTOR, "button[value=allow]").click()


class SingleSignOnTests(BrowserTest):
    def test_sso_1_a_teacher_signs_in_with_the_school_account_on_a_phone(self):
        put_user("t-1", {"email": "ada@school.test", "email_verified": True, "name": "Ada Lovelace", "groups": ["teachers"]})
        phone = self.driver(390, 844)
        phone.get(SERVER.base + "/login")
        wait_translated(phone)
        wait_for(phone, lambda d: visible(d, "#sso-button"), "the school account's button")
        self.assertEqual(text_of(phone, "#sso-button"), "Sign in with School account")
        button = phone.find_element(By.ID, "sso-button")
        self.assertGreaterEqual(button.size["width"], 300, "the button fills the phone's card")
        self.assertGreaterEqual(button.size["height"], 44, "the button is a finger's height")
        self.assertTrue(on_top(phone, "#sso-button"), "the button is on screen and nothing covers it")
        self.assertTrue(on_top(phone, ".auth-divider"), "the 'or' between the button and the password form shows")
        self.assertLess(button.location["y"], phone.find_element(By.ID, "email").location["y"],
                        "the school's button comes before the password form")
        self.assertFalse(visible(phone, "#sso-error"), "no error before a sign-in failed")
        self.assertEqual(axe_serious(phone), [], "the sign-in page with the school's button")
        screenshot(phone, "sso-login-phone")

        sign_in_at_provider(phone, "t-1")
        wait_for(phone, lambda d: d.current_url.rstrip("/").endswith("/library"), "the library after signing in")
        wait_for(phone, lambda d: text_of(d, "#user-name") == "Ada Lovelace", "the school's account signed in, by its name")

    def test_sso_2_someone_in_no_allowed_group_reads_why_in_their_language(self):
        put_user("s-1", {"email": "pupil@school.test", "email_verified": True, "name": "A Pupil", "groups": ["pupils"]})
        driver = self.driver(1280, 800)
        driver.get(SERVER.base + "/login")
        wait_translated(driver)
        sign_in_at_provider(driver, "s-1")
        wait_for(driver, lambda d: "/login" in d.current_url and visible(d, "#sso-error"), "the refusal on the sign-in page")
        self.assertIn("sso_error=not_allowed", driver.current_url)
        self.assertIn("may not use Podium", text_of(driver, "#sso-error"))
        self.assertTrue(on_top(driver, "#sso-error"), "the refusal is on screen and nothing covers it")
        self.assertTrue(visible(driver, "#sso-button"), "the button stays, to try again")
        self.assertEqual(axe_serious(driver), [], "the sign-in page with the refusal")
        screenshot(driver, "sso-refused")

        driver.get(SERVER.base + "/login?sso_error=not_allowed&lang=de")
        wait_translated(driver)
        wait_for(driver, lambda d: visible(d, "#sso-error"), "the refusal in German")
        self.assertIn("Schulkonto darf Podium nicht verwenden", text_of(driver, "#sso-error"))
        # The button's label waits for the sign-in options (the provider's name), not for the
        # page's translation: waited on, as the refusal is.
        wait_for(driver, lambda d: text_of(d, "#sso-button") == "Mit School account anmelden", "the German button label")
