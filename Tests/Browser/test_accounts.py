#!/usr/bin/python3
"""Browser tests of accounts by email (#43): the page an invitation's link opens, and "Forgot
password?" from the sign-in page to a new password, as a person meets them (visible, sized, on
top, every word from a catalogue), with the messages read from a real SMTP server.

Runs inside the suite of ``run_browser_tests.py`` on a server of its own, started with
``PODIUM_SMTP_URL`` naming an aiosmtpd server this module runs (Debian's python3-aiosmtpd) and
``PODIUM_ALLOW_SIGN_UP=1``. Alone:  python3 Tests/Browser/run_browser_tests.py AccountTests
"""

import email
import email.header
import os
import re
import socket
import sys
import threading
import time

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from aiosmtpd.controller import Controller  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
screenshot = harness.screenshot
wait_translated = harness.wait_translated

MAIL = {"messages": [], "lock": threading.Lock()}


class Sink:
    async def handle_DATA(self, server, session, envelope):
        with MAIL["lock"]:
            MAIL["messages"].append((list(envelope.rcpt_tos), envelope.original_content.decode("utf-8", "replace")))
        return "250 Message accepted for delivery"


def setUpModule():
    # A server of this module's own, whose mail goes to the sink above.
    if SERVER.proc and SERVER.proc.poll() is None:
        harness.tearDownModule()
    harness.DEMO_DECK.clear()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    MAIL["controller"] = Controller(Sink(), hostname="127.0.0.1", port=port)
    MAIL["controller"].start()
    os.environ["PODIUM_SMTP_URL"] = f"smtp://127.0.0.1:{port}"
    os.environ["PODIUM_ALLOW_SIGN_UP"] = "1"
    harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()
    os.environ.pop("PODIUM_SMTP_URL", None)
    os.environ.pop("PODIUM_ALLOW_SIGN_UP", None)
    if MAIL.get("controller"):
        MAIL["controller"].stop()


def wait_for_link(address, count=1, timeout=20):
    """The link of the count-th message to address (a bounded wait on a condition)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with MAIL["lock"]:
            received = [text for to, text in MAIL["messages"] if address in to]
        if len(received) >= count:
            match = re.search(r"https?://\S+#token=[0-9a-f]{64}", received[count - 1])
            if match:
                return match.group(0)
        time.sleep(0.05)
    raise AssertionError(f"no message {count} to {address} within {timeout} s")


def on_top(driver, css):
    """Whether the element is shown, inside the viewport, and what is at its centre is itself or
    inside it (nothing covers it)."""
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


def untranslated(driver, selectors):
    """Of these elements' texts (or placeholders), those not from a catalogue: under the pseudo
    language `qps` every catalogue message is wrapped in ⟦ ⟧."""
    texts = driver.execute_script(
        "return arguments[0].map((s) => { const e = document.querySelector(s); return e ? e.textContent.trim() : null; });",
        selectors)
    return [(selector, text) for selector, text in zip(selectors, texts) if text is not None and not text.startswith("⟦")]


class AccountTests(BrowserTest):
    def test_accounts_1_an_invitation_opens_a_page_to_choose_a_name_and_password(self):
        status, invitation = SERVER.api("POST", "/api/v1/invitations", {"email": "ada@school.test"})
        self.assertEqual(status, 201, invitation)
        link = wait_for_link("ada@school.test")
        self.assertTrue(link.startswith(SERVER.base + "/invitation#token="), link)

        # Under the pseudo language, every word of the page comes from a catalogue.
        checker = self.driver(820, 1180)
        checker.get(link.replace("/invitation#", "/invitation?lang=qps#"))
        wait_for(checker, lambda d: visible(d, "#invitation-form"), "the invitation form (qps)")
        self.assertEqual(untranslated(checker, [
            "h1", "#invitation-lead", "label[for=invitation-name] .field-label", "label[for=invitation-password] .field-label",
            "label[for=invitation-password] .field-hint", "#invitation-submit", ".auth-back a"]), [])
        self.release(checker)

        phone = self.driver(390, 844)
        phone.get(link)
        wait_translated(phone)
        wait_for(phone, lambda d: visible(d, "#invitation-form"), "the invitation form")
        self.assertNotIn("token", phone.current_url, "the token is taken off the address bar")
        self.assertEqual(phone.find_element(By.ID, "invitation-email").get_attribute("value"), "ada@school.test")
        self.assertIn("invited to present", text_of(phone, "#invitation-lead"))
        for css in ("#invitation-name", "#invitation-password"):
            field = phone.find_element(By.CSS_SELECTOR, css)
            self.assertGreaterEqual(field.size["width"], 300, f"{css} fills the phone's card")
            self.assertGreaterEqual(field.size["height"], 40, f"{css} is a finger's height")
            self.assertTrue(on_top(phone, css), f"{css} is on screen and nothing covers it")
        self.assertTrue(on_top(phone, "#invitation-submit"), "the button is on screen and nothing covers it")
        screenshot(phone, "accounts-invitation-phone")

        # A password too short is said next to the form, in words.
        phone.find_element(By.ID, "invitation-name").send_keys("Ada Lovelace")
        phone.find_element(By.ID, "invitation-password").send_keys("short")
        phone.find_element(By.ID, "invitation-submit").click()
        wait_for(phone, lambda d: text_of(d, "#invitation-error"), "the short password's error")
        self.assertIn("8 characters", text_of(phone, "#invitation-error"))
        self.assertEqual(phone.find_element(By.ID, "invitation-password").get_attribute("aria-invalid"), "true")
        field = phone.find_element(By.ID, "invitation-password")
        field.clear()
        field.send_keys("analytical engine")
        phone.find_element(By.ID, "invitation-submit").click()
        wait_for(phone, lambda d: d.current_url.rstrip("/").endswith("/library"), "the library after accepting")
        wait_for(phone, lambda d: text_of(d, "#user-name") == "Ada Lovelace", "the new account signed in, by its name")

        # The link works once: opened again, it says so and shows no form.
        again = self.driver(1280, 800)
        again.get(link)
        wait_for(again, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the page to read the link")
        self.assertFalse(visible(again, "#invitation-form"), "no form for a used link")
        self.assertIn("expired or has been used", text_of(again, "#invitation-lead"))
        self.assertTrue(on_top(again, "#invitation-lead"))
        screenshot(again, "accounts-invitation-used")

    def test_accounts_2_forgot_password_from_the_sign_in_page_to_a_new_password(self):
        status, user = SERVER.api("POST", "/api/v1/users", {"email": "grace@school.test", "password": "first secret"})
        self.assertEqual(status, 201, user)
        driver = self.driver(1280, 800)
        driver.get(SERVER.base + "/login")
        wait_translated(driver)
        wait_for(driver, lambda d: visible(d, "#forgot-password"), "Forgot password? on the sign-in page")
        self.assertTrue(on_top(driver, "#forgot-password"))
        wait_for(driver, lambda d: visible(d, "#sign-up-link"), "Ask for an account (sign-up is allowed here)")
        screenshot(driver, "accounts-login-links")
        driver.find_element(By.ID, "email").send_keys("grace@school.test")
        driver.find_element(By.ID, "forgot-password").click()

        wait_for(driver, lambda d: visible(d, "#reset-ask-form"), "the reset request form")
        self.assertEqual(driver.find_element(By.ID, "reset-email").get_attribute("value"), "grace@school.test",
                         "the address typed on the sign-in page is carried over")
        self.assertTrue(on_top(driver, "#reset-ask-submit"))
        screenshot(driver, "accounts-reset-ask")
        driver.find_element(By.ID, "reset-ask-submit").click()
        wait_for(driver, lambda d: visible(d, "#reset-done"), "the answer to the request")
        self.assertFalse(visible(driver, "#reset-ask-form"))
        self.assertIn("grace@school.test", text_of(driver, "#reset-done-text"))
        self.assertIn("Check your mail", text_of(driver, "#reset-done-text"))
        self.assertTrue(on_top(driver, "#reset-done-text"))
        screenshot(driver, "accounts-reset-sent")

        link = wait_for_link("grace@school.test")
        phone = self.driver(390, 844)
        phone.get(link)
        wait_translated(phone)
        wait_for(phone, lambda d: visible(d, "#reset-set-form"), "the new password form")
        self.assertEqual(text_of(phone, "#reset-heading"), "Choose a new password")
        self.assertNotIn("token", phone.current_url)
        field = phone.find_element(By.ID, "reset-password")
        self.assertGreaterEqual(field.size["width"], 300)
        self.assertTrue(on_top(phone, "#reset-set-submit"))
        screenshot(phone, "accounts-reset-choose-phone")
        field.send_keys("second secret")
        phone.find_element(By.ID, "reset-set-submit").click()
        wait_for(phone, lambda d: visible(d, "#reset-sign-in"), "the done message with Sign in")
        self.assertIn("password is changed", text_of(phone, "#reset-done-text"))
        self.assertTrue(on_top(phone, "#reset-sign-in"))
        screenshot(phone, "accounts-reset-done-phone")

        phone.find_element(By.ID, "reset-sign-in").click()
        wait_for(phone, lambda d: visible(d, "#email"), "the sign-in form")
        phone.find_element(By.ID, "email").send_keys("grace@school.test")
        phone.find_element(By.ID, "password").send_keys("second secret")
        phone.find_element(By.ID, "login-submit").click()
        wait_for(phone, lambda d: d.current_url.rstrip("/").endswith("/library"), "the library with the new password")

        # The same page under the pseudo language: every word from a catalogue.
        driver.get(SERVER.base + "/reset-password?lang=qps")
        wait_for(driver, lambda d: visible(d, "#reset-ask-form"), "the reset request form (qps)")
        self.assertEqual(untranslated(driver, [
            "#reset-heading", "#reset-lead", "label[for=reset-email] .field-label", "#reset-ask-submit", ".auth-back a"]), [])

    def test_accounts_3_the_admin_invites_from_the_admin_page_and_reads_the_audit_log(self):
        driver = self.driver(1280, 800)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/channel/admin#accounts")
        wait_translated(driver)
        wait_for(driver, lambda d: visible(d, "#invite-email"), "the invitation form")
        driver.find_element(By.ID, "invite-email").send_keys("lin@school.test")
        driver.find_element(By.ID, "invite-submit").click()
        row = "#invitations-table tr[data-invitation-id]"
        wait_for(driver, lambda d: "lin@school.test" in (text_of(d, row) or ""), "the pending invitation")
        wait_for_link("lin@school.test")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the server records the relay's answer just after it
            status, pending = SERVER.api("GET", "/api/v1/invitations")
            if any(i["email"] == "lin@school.test" and i["delivery"] == "sent" for i in pending):
                break
            time.sleep(0.05)
        # The list says how its message fared once it is asked again (a new look at the section).
        driver.refresh()
        wait_for(driver, lambda d: d.execute_script(
            "const s = document.querySelector(arguments[0] + ' [data-status]'); return s && s.dataset.status", row)
            == "delivery-sent", "the invitation shown as sent")
        self.assertIn("Sent", text_of(driver, row))
        for action in ("resend", "revoke"):
            self.assertTrue(on_top(driver, f"{row} [data-action={action}]"), f"{action} on screen and not covered")
        wait_for(driver, lambda d: "Invited" in (text_of(d, "#audit-table tbody tr[data-action='user.invited']") or ""),
                 "the invitation in the audit log")
        self.assertIn("lin@school.test", text_of(driver, "#audit-table tbody tr[data-action='user.invited']"))
        screenshot(driver, "accounts-admin")

    def test_accounts_4_an_admin_changes_a_role_in_members_and_the_audit_log_says_so(self):
        status, user = SERVER.api("POST", "/api/v1/users", {"email": "noor@school.test", "name": "Noor", "password": "noor presents"})
        self.assertEqual(status, 201, user)
        driver = self.driver(1280, 800)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/channel/admin#members")
        wait_translated(driver)
        select = f'#members-table tr[data-user-id="{user["id"]}"] select[data-action=role]'
        wait_for(driver, lambda d: visible(d, select), "Noor's role in the members' list")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, select).get_attribute("value"), "presenter")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, select).get_attribute("aria-label"), "Role of Noor")
        self.assertTrue(on_top(driver, select), "the role's menu is on screen and nothing covers it")
        from selenium.webdriver.support.ui import Select
        Select(driver.find_element(By.CSS_SELECTOR, select)).select_by_value("admin")
        wait_for(driver, lambda d: "role is changed" in (text_of(d, "#toasts") or ""), "the change confirmed")
        status, users = SERVER.api("GET", "/api/v1/users?search=noor")
        self.assertEqual([u["role"] for u in users], ["admin"])
        screenshot(driver, "accounts-members-role")
        driver.get(SERVER.base + "/channel/admin#accounts")
        entry = "#audit-table tbody tr[data-action='user.role_changed']"
        wait_for(driver, lambda d: visible(d, entry), "the role change in the audit log")
        self.assertIn("Changed the role to admin", text_of(driver, entry))
        self.assertIn("noor@school.test", text_of(driver, entry))

    def test_accounts_5_a_visitor_asks_for_an_account_confirms_it_and_an_admin_approves(self):
        phone = self.driver(390, 844)
        phone.get(SERVER.base + "/sign-up")
        wait_translated(phone)
        wait_for(phone, lambda d: visible(d, "#sign-up-form"), "the sign-up form")
        for css in ("#sign-up-email", "#sign-up-name", "#sign-up-password"):
            self.assertGreaterEqual(phone.find_element(By.CSS_SELECTOR, css).size["width"], 300, css)
        self.assertTrue(on_top(phone, "#sign-up-submit"))
        screenshot(phone, "accounts-sign-up-phone")
        phone.find_element(By.ID, "sign-up-email").send_keys("mia@school.test")
        phone.find_element(By.ID, "sign-up-name").send_keys("Mia Teacher")
        phone.find_element(By.ID, "sign-up-password").send_keys("mia presents")
        phone.find_element(By.ID, "sign-up-submit").click()
        wait_for(phone, lambda d: visible(d, "#sign-up-done"), "the answer to the request")
        self.assertIn("mia@school.test", text_of(phone, "#sign-up-done-text"))
        self.assertFalse(visible(phone, "#sign-up-form"))

        phone.get(wait_for_link("mia@school.test"))
        wait_for(phone, lambda d: phone.execute_script("return document.body.dataset.ready") == "true"
                 and visible(d, "#sign-up-done"), "the address confirmed")
        self.assertIn("address is confirmed", text_of(phone, "#sign-up-done-text"))
        self.assertTrue(on_top(phone, "#sign-up-done-text"))
        screenshot(phone, "accounts-sign-up-confirmed-phone")

        admin = self.driver(1280, 800)
        self.sign_in_with_cookie(admin)
        admin.get(SERVER.base + "/channel/admin#accounts")
        wait_translated(admin)
        row = "#sign-ups-table tr[data-sign-up-id]"
        wait_for(admin, lambda d: visible(d, "#sign-ups") and "Mia Teacher" in (text_of(d, row) or ""), "the waiting request")
        self.assertTrue(on_top(admin, row + " [data-action=approve]"))
        screenshot(admin, "accounts-admin-sign-ups")
        admin.find_element(By.CSS_SELECTOR, row + " [data-action=approve]").click()
        wait_for(admin, lambda d: not visible(d, "#sign-ups"), "the request gone once approved")
        self.assertIn("approved", wait_for_link_or_text("mia@school.test", 2))

        phone.get(SERVER.base + "/login")
        wait_for(phone, lambda d: visible(d, "#email"), "the sign-in form")
        phone.find_element(By.ID, "email").send_keys("mia@school.test")
        phone.find_element(By.ID, "password").send_keys("mia presents")
        phone.find_element(By.ID, "login-submit").click()
        wait_for(phone, lambda d: text_of(d, "#user-name") == "Mia Teacher", "Mia signed in to her library")

    def test_accounts_6_each_message_in_its_readers_language(self):
        """The invite form's language choice starts at the admin's page language (French here)
        and sends the invitation in the one chosen (German); a reset asked from a Czech page
        comes in Czech; subjects that are not ASCII decode back whole."""
        admin = self.driver(1280, 800)
        self.sign_in_with_cookie(admin)
        admin.get(SERVER.base + "/channel/admin?lang=fr#accounts")
        wait_translated(admin)
        wait_for(admin, lambda d: visible(d, "#invite-language"), "the message's language on the invitation form")
        self.assertEqual(admin.find_element(By.ID, "invite-language").get_attribute("value"), "fr",
                         "the admin's page language by default")
        self.assertEqual(admin.execute_script(
            "return document.querySelector('#invite-language').closest('label').querySelector('.field-label').textContent"),
            "Langue du message")
        self.assertEqual(admin.execute_script(
            "return [...document.querySelectorAll('#invite-language option')].map((o) => o.value)"),
            ["en", "de", "fr", "es", "cs", "zh-Hans", "ar"])
        self.assertTrue(on_top(admin, "#invite-language"))
        screenshot(admin, "accounts-invite-language")
        # French unless changed.
        admin.find_element(By.ID, "invite-email").send_keys("claire@school.test")
        admin.find_element(By.ID, "invite-submit").click()
        french = message_to("claire@school.test", 1)
        self.assertEqual(header(french, "Subject"), "Vous êtes invité(e) sur Podium")
        self.assertIn("vous invite à présenter avec Podium", body(french))
        # German, chosen for a German colleague.
        Select(admin.find_element(By.ID, "invite-language")).select_by_value("de")
        admin.find_element(By.ID, "invite-email").send_keys("jonas@school.test")
        admin.find_element(By.ID, "invite-submit").click()
        german = message_to("jonas@school.test", 1)
        self.assertEqual(header(german, "Subject"), "Ihre Einladung zu Podium")
        self.assertEqual(header(german, "Content-Language"), "de")
        self.assertIn("lädt Sie ein, mit Podium zu präsentieren", body(german))
        self.assertIn("Der Link funktioniert einmal, 7 Tage lang.", body(german))
        # The pending invitations say which language each message went out in, named in itself.
        def language_shown(address):
            rows = [r for r in admin.find_elements(By.CSS_SELECTOR, "#invitations-table tr[data-invitation-id]")
                    if address in r.text]
            cells = rows[0].find_elements(By.CSS_SELECTOR, "[data-role=invitation-language]") if rows else []
            return cells[0] if cells and cells[0].is_displayed() else None
        jonas = wait_for(admin, lambda d: language_shown("jonas@school.test"), "Jonas's invitation's language")
        self.assertEqual((jonas.text, jonas.get_attribute("lang")), ("Deutsch", "de"))
        claire = language_shown("claire@school.test")
        self.assertEqual((claire.text, claire.get_attribute("lang")), ("Français", "fr"))
        self.assertIn("Langue du message", [h.text for h in admin.find_elements(By.CSS_SELECTOR, "#invitations-table th")])
        admin.execute_script("arguments[0].scrollIntoView({block: 'center'})", jonas)
        self.assertTrue(admin.execute_script(
            "const box = arguments[0].getBoundingClientRect();"
            "return arguments[0].contains(document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2));",
            jonas), "Jonas's invitation's language is on screen and nothing covers it")
        screenshot(admin, "accounts-pending-invitation-languages")

        # On a phone the choice is on screen and wide enough to read.
        phone = self.driver(390, 844)
        self.sign_in_with_cookie(phone)
        phone.get(SERVER.base + "/channel/admin?lang=cs#accounts")
        wait_translated(phone)
        wait_for(phone, lambda d: visible(d, "#invite-language"), "the message's language on a phone")
        self.assertEqual(phone.find_element(By.ID, "invite-language").get_attribute("value"), "cs")
        phone.execute_script("document.querySelector('#invite-language').scrollIntoView({block: 'center'})")
        self.assertTrue(on_top(phone, "#invite-language"))
        self.assertGreaterEqual(phone.find_element(By.ID, "invite-language").size["width"], 140)

        # A password reset asked from the Czech reset page is in Czech.
        status, user = SERVER.api("POST", "/api/v1/users", {"email": "petr@school.test", "password": "první heslo"})
        self.assertEqual(status, 201, user)
        phone.get(SERVER.base + "/reset-password?lang=cs")
        wait_translated(phone)
        wait_for(phone, lambda d: visible(d, "#reset-ask-form"), "the reset request form in Czech")
        phone.find_element(By.ID, "reset-email").send_keys("petr@school.test")
        phone.find_element(By.ID, "reset-ask-submit").click()
        czech = message_to("petr@school.test", 1)
        self.assertTrue(czech["Subject"].startswith("=?UTF-8?B?"), "a Czech subject is an encoded word")
        self.assertEqual(header(czech, "Subject"), "Obnovení hesla k Podiu")
        self.assertIn("Odkaz platí 1 hodinu a funguje jen jednou.", body(czech))
        phone.get(wait_for_link("petr@school.test"))
        wait_for(phone, lambda d: visible(d, "#reset-set-form"), "the new password form from the Czech message")


def wait_for_link_or_text(address, count, timeout=20):
    """The text of the count-th message to address."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with MAIL["lock"]:
            received = [text for to, text in MAIL["messages"] if address in to]
        if len(received) >= count:
            return received[count - 1]
        time.sleep(0.05)
    raise AssertionError(f"no message {count} to {address} within {timeout} s")


def message_to(address, count, timeout=20):
    """The count-th message to address, parsed."""
    return email.message_from_string(wait_for_link_or_text(address, count, timeout))


def header(message, name):
    """A header as a mail reader shows it: its encoded words (RFC 2047) decoded."""
    value = message[name]
    return str(email.header.make_header(email.header.decode_header(value)))


def body(message):
    """The text (sent as UTF-8, 8 bit: already text here)."""
    return message.get_payload().replace("\r\n", "\n")
