#!/usr/bin/python3
"""Browser tests of the channel's ground (issue #20): the audience page's tabs and the members
section of its admin, where an admin makes an account a member and that person's channel page
says so.

Runs inside the suite of ``run_browser_tests.py``. Alone:
python3 Tests/Browser/run_browser_tests.py channel
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


def ready(driver):
    return driver.execute_script("return document.body.dataset.ready") == "true"


class ChannelTests(BrowserTest):
    def test_channel_1_an_admin_makes_an_account_a_member(self):
        """The admin finds an account in Members and makes it a member; signed in on another
        browser, that person's channel page shows the Member badge; revoked, it does not."""
        status, user = SERVER.api("POST", "/api/v1/users", {"email": "ilse@example.org", "name": "Ilse", "password": "ilse-listens"})
        self.assertEqual(status, 201, user)
        status, login = SERVER.request("POST", "/api/v1/auth/login", {"email": "ilse@example.org", "password": "ilse-listens"})
        self.assertEqual(status, 200, login)

        ilse = self.driver(390, 844)  # a phone
        ilse.get(SERVER.base + "/healthz")
        ilse.add_cookie({"name": "podium_auth", "value": login["token"], "path": "/"})
        ilse.get(SERVER.base + "/channel")
        wait_for(ilse, ready, "the channel page")
        self.assertFalse(ilse.find_element(By.ID, "member-badge").is_displayed())
        self.assertEqual(text_of(ilse, "#account-link"), "Ilse")
        # The tabs route by the hash, and the current one is marked.
        ilse.find_element(By.CSS_SELECTOR, ".channel-tab[data-section=new]").click()
        wait_for(ilse, lambda d: visible(d, "#section-new"), "the New tab")
        self.assertEqual(ilse.find_element(By.CSS_SELECTOR, ".channel-tab[data-section=new]").get_attribute("aria-current"), "page")
        wait_for(ilse, lambda d: "Nothing new" in (text_of(d, "#new-items") or ""), "an empty feed")
        screenshot(ilse, "channel-new-phone")

        admin = self.driver(1280, 860)
        self.sign_in_with_cookie(admin)
        admin.get(SERVER.base + "/channel/admin#members")
        wait_for(admin, ready, "the channel admin")
        search = wait_for(admin, lambda d: visible(d, "#member-search"), "the members' search")
        search.send_keys("ILSE")
        row = '#members-table tr[data-user-id="%s"]' % user["id"]
        wait_for(admin, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#members-table tbody tr")) == 1
                 and d.find_elements(By.CSS_SELECTOR, row), "only Ilse listed")
        admin.find_element(By.CSS_SELECTOR, row + " button[data-action=grant]").click()
        wait_for(admin, lambda d: d.find_elements(By.CSS_SELECTOR, row + " button[data-action=revoke]"), "Ilse a member")
        self.assertEqual(text_of(admin, row + " .admin-status"), "member")
        screenshot(admin, "channel-admin-members")

        ilse.get(SERVER.base + "/channel#videos")
        ilse.refresh()  # the same page with another hash is not loaded again by get()
        wait_for(ilse, ready, "the channel page again")
        wait_for(ilse, lambda d: d.find_element(By.ID, "member-badge").is_displayed(), "the Member badge")

        admin.find_element(By.CSS_SELECTOR, row + " button[data-action=revoke]").click()
        wait_for(admin, lambda d: d.find_elements(By.CSS_SELECTOR, row + " button[data-action=grant]"), "Ilse no longer a member")
        ilse.refresh()
        wait_for(ilse, ready, "the channel page a third time")
        self.assertFalse(ilse.find_element(By.ID, "member-badge").is_displayed())

    def test_channel_2_a_presenter_cannot_open_the_admin(self):
        """Only admins manage the channel: a presenter is told so, and the API refuses them."""
        status, _ = SERVER.api("POST", "/api/v1/users", {"email": "otto@example.org", "name": "Otto", "password": "otto-presents"})
        self.assertEqual(status, 201)
        status, login = SERVER.request("POST", "/api/v1/auth/login", {"email": "otto@example.org", "password": "otto-presents"})
        otto = self.driver(1024, 768)
        otto.get(SERVER.base + "/healthz")
        otto.add_cookie({"name": "podium_auth", "value": login["token"], "path": "/"})
        otto.get(SERVER.base + "/channel/admin#members")
        wait_for(otto, ready, "the channel admin")
        self.assertIn("Only an admin", text_of(otto, "#admin-main"))
        status, _ = SERVER.request("PATCH", "/api/v1/users/x", {"member": True}, token=login["token"])
        self.assertEqual(status, 403)
