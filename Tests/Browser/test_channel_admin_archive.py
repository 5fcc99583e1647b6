#!/usr/bin/python3
"""Browser tests of the channel admin's archive (Public/app/channel-admin/archive.js), in the
sections the other tests do not archive in: quizzes, video categories, radio stations and place
categories. In each, "Delete" takes the row out of the current list and says so, the archive
shows it and restores it, and "Delete for ever" (after a confirmation where the section asks)
removes it for good. Videos and places are archived in test_channel_videos.py and
test_channel_places.py.
Alone:  python3 Tests/Browser/run_browser_tests.py channel_admin_archive
"""

import sys

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot
dismiss_toasts = harness.dismiss_toasts


def setUpModule():
    if not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def create(path, body):
    status, item = SERVER.api("POST", path, body)
    assert status == 201, (path, status, item)
    return (item.get("quiz") or item)["id"]


def listed(path, item_id, status):
    code, items = SERVER.api("GET", f"{path}?status={status}")
    assert code == 200, (path, code, items)
    return any(i["id"] == item_id for i in items)


def button(scope, text):
    """The row's (or the dialog's) button that reads `text`, or None."""
    found = [b for b in scope.find_elements(By.TAG_NAME, "button") if b.text == text and b.is_displayed()]
    return found[0] if found else None


def click(driver, row_of, text, message):
    """Clicks the button `text` of the row `row_of` finds, found again if the list was drawn anew
    between finding and clicking (wait_for asks again on a stale element)."""
    def press(d):
        row = row_of(d)
        found = row and button(row, text)
        if found:
            found.click()
        return bool(found)
    wait_for(driver, press, message)


class ChannelAdminArchiveTests(BrowserTest):
    def archive_restore_and_delete(self, driver, section, path, item_id, row_of, show, toast, confirm):
        """In `section` (shown, the item current): Delete, the archive, Restore, Delete again,
        Delete for ever. `row_of(driver)` finds the item's row in what is shown (None if absent);
        `show(driver, status)` shows the current items ('all') or the archive; `toast` is what
        archiving says; `confirm` whether deleting for ever asks first."""
        click(driver, row_of, "Delete", f"the {section} row's Delete")
        wait_for(driver, lambda d: toast in [e.text for e in d.find_elements(By.CSS_SELECTOR, ".toast-text")],
                 f"the {section} archive toast")
        wait_for(driver, lambda d: row_of(d) is None, f"the {section} row out of the current list")
        self.assertTrue(listed(path, item_id, "archived"), f"{section}: archived on the server")
        self.assertFalse(listed(path, item_id, "all"))
        dismiss_toasts(driver)

        show(driver, "archived")
        row = wait_for(driver, row_of, f"the {section} row in the archive")
        self.assertIsNone(button(row, "Delete"), f"{section}: an archived row is not archived again")
        click(driver, row_of, "Restore", f"the {section} row's Restore")
        wait_for(driver, lambda d: listed(path, item_id, "all"), f"{section}: restored on the server")
        self.assertFalse(listed(path, item_id, "archived"))
        show(driver, "all")
        click(driver, row_of, "Delete", f"the {section} row current again, its Delete")
        wait_for(driver, lambda d: listed(path, item_id, "archived"), f"{section}: archived again")
        dismiss_toasts(driver)
        show(driver, "archived")
        click(driver, row_of, "Delete for ever", f"the {section} row in the archive again, its Delete for ever")
        if confirm:
            dialog = wait_for(driver, lambda d: visible(d, "dialog[open] [data-role=confirm]")
                              and d.find_element(By.CSS_SELECTOR, "dialog[open]"), f"the {section} confirmation")
            self.assertIn("Delete for ever?", dialog.text)
            screenshot(driver, f"channel-admin-archive-{section}-confirm")
            self.assertTrue(listed(path, item_id, "archived"), f"{section}: nothing deleted before the answer")
            dialog.find_element(By.CSS_SELECTOR, "[data-role=confirm]").click()
        wait_for(driver, lambda d: row_of(d) is None, f"the {section} row gone from the archive")
        wait_for(driver, lambda d: not listed(path, item_id, "archived"), f"{section}: deleted on the server")
        self.assertFalse(listed(path, item_id, "all"))
        self.assertEqual(SERVER.api("POST", f"{path}/{item_id}/restore")[0], 404, f"{section}: gone for good")

    def test_channel_admin_archive_is_alike_in_every_section(self):
        quiz = create("/api/v1/channel/quizzes", {"name": "Archive quiz", "published": True})
        station = create("/api/v1/channel/radios", {"name": "Archive FM", "published": True})
        shelf = create("/api/v1/channel/videos/categories", {"name": "Archive shelf"})
        sights = create("/api/v1/channel/pois/categories", {"name": "Archive sights"})
        laptop = self.driver(1280, 900)
        self.sign_in_with_cookie(laptop)

        def row_by_id(scope, item_id):
            def find(d):
                rows = d.find_elements(By.CSS_SELECTOR, f"{scope} [data-id='{item_id}']")
                return rows[0] if rows and rows[0].is_displayed() else None
            return find

        def pressed(section):
            def show(d, status):
                d.find_element(By.CSS_SELECTOR, f"#admin-{section} [data-role=status-{status}]").click()
                wait_for(d, lambda d: d.find_element(By.CSS_SELECTOR, f"#admin-{section} [data-role=status-{status}]")
                         .get_attribute("aria-pressed") == "true", f"the {section} {status} switch")
            return show

        laptop.get(SERVER.base + "/channel/admin#quizzes")
        self.archive_restore_and_delete(
            laptop, "quizzes", "/api/v1/channel/quizzes", quiz, row_by_id("#admin-quizzes .admin-rows", quiz),
            pressed("quizzes"), "“Archive quiz” moved to the archive.", confirm=True)

        laptop.get(SERVER.base + "/channel/admin#categories")
        self.archive_restore_and_delete(
            laptop, "categories", "/api/v1/channel/videos/categories", shelf, row_by_id("#admin-categories tbody", shelf),
            pressed("categories"), "Moved to the archive: its videos are hidden until it is restored.", confirm=True)

        def radio_filter(d, status):
            Select(d.find_element(By.CSS_SELECTOR, "[data-role=radio-filter]")).select_by_value(status)
            wait_for(d, lambda d: d.find_element(By.CSS_SELECTOR, "[data-role=radio-filter]").get_attribute("value") == status
                     and d.find_elements(By.CSS_SELECTOR, "[data-role=radio-admin-table] tbody tr"), f"the radio {status} list")

        laptop.get(SERVER.base + "/channel/admin#radio")
        self.archive_restore_and_delete(
            laptop, "radio", "/api/v1/channel/radios", station, row_by_id("[data-role=radio-admin-table]", station),
            radio_filter, "Archived: restore it from Archived.", confirm=True)

        # Place categories: the archived ones are listed under the current ones, marked so.
        def category_row(archived):
            def find(d):
                for row in d.find_elements(By.CSS_SELECTOR, "#admin-places .admin-category-rows .admin-row"):
                    if row.find_element(By.TAG_NAME, "strong").text == "Archive sights" and row.is_displayed():
                        return row if bool(button(row, "Restore")) == archived else None
                return None
            return find

        state = {"archived": False}

        def either_row(d):
            return category_row(state["archived"])(d)

        def switch(d, status):
            state["archived"] = status == "archived"

        laptop.get(SERVER.base + "/channel/admin#places")
        self.archive_restore_and_delete(
            laptop, "places", "/api/v1/channel/pois/categories", sights, either_row, switch,
            "Category archived: its places are hidden until it is restored.", confirm=False)
