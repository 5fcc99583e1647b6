#!/usr/bin/python3
"""Browser tests of a storyboard's project tools (issue #19): exporting from the project page (a
sheet, made by a job on the server, downloaded when ready) and presenting it live (its shots become
a deck, a session starts, the presenter's console shows shot 1 and a viewer follows).

Runs inside the suite of ``run_browser_tests.py``. Alone:
python3 Tests/Browser/run_browser_tests.py storyboard_tools
"""

import sys
import urllib.request

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def storyboard_with_shots(title):
    """A new project: one scene with one empty shot."""
    status, board = SERVER.api("POST", "/api/v1/storyboards", {"title": title})
    if status != 201:
        raise AssertionError(f"POST /api/v1/storyboards answered {status}: {board}")
    return board


class StoryboardToolsTests(BrowserTest):
    def click(self, driver, css):
        """Clicks what the selector finds, again if the page drew it anew in between."""
        def attempt(d):
            element = d.find_element(By.CSS_SELECTOR, css)
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return True

        wait_for(driver, attempt, f"a click on {css}")

    def open_project(self, driver, board):
        driver.get(SERVER.base + "/storyboard.html?id=" + board["id"])
        wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the project connected")

    def test_storyboard_tools_1_export_a_sheet(self):
        """Export as a sheet of 2 panels a page: the list shows it being made, then a download link
        to a real PDF."""
        board = storyboard_with_shots("Sheet export")
        ada = self.driver(1280, 900)
        self.sign_in_with_cookie(ada)
        self.open_project(ada, board)
        Select(wait_for(ada, lambda d: visible(d, "#export-format"), "the export format")).select_by_value("sheet")
        Select(ada.find_element(By.ID, "export-layout")).select_by_value("2")
        ada.find_element(By.ID, "export").click()
        item = wait_for(ada, lambda d: d.find_elements(By.CSS_SELECTOR, "#exports li[data-status=ready] a[download]"), "the export ready")[0]
        self.assertIn("2 a page", ada.find_element(By.CSS_SELECTOR, "#exports li").text)
        screenshot(ada, "storyboard-export")
        request = urllib.request.Request(SERVER.base + item.get_attribute("href").replace(SERVER.base, ""),
                                         headers={"Authorization": "Bearer " + SERVER.token})
        with urllib.request.urlopen(request, timeout=30) as response:
            self.assertEqual(response.headers["Content-Type"], "application/pdf")
            self.assertTrue(response.read(5) == b"%PDF-")
        # A second visit lists it (from the server).
        ada.refresh()
        wait_for(ada, lambda d: d.find_elements(By.CSS_SELECTOR, "#exports li[data-status=ready]"), "the export listed again")

    def test_storyboard_tools_2_present_live(self):
        """Present live: the shots become a deck, a session starts on it and its console opens on
        shot 1; a viewer joining with the code sees the shot."""
        board = storyboard_with_shots("Presented board")
        ada = self.driver(1280, 900)
        self.sign_in_with_cookie(ada)
        self.open_project(ada, board)
        wait_for(ada, lambda d: visible(d, "#present"), "Present live").click()
        wait_for(ada, lambda d: "/present/" in d.current_url, "the presenter's console", timeout=60)
        code = ada.current_url.rstrip("/").split("/")[-1]
        status, decks = SERVER.api("GET", "/api/v1/decks")
        self.assertEqual(status, 200)
        deck = next(d for d in decks if d["title"] == "Presented board")
        self.assertEqual((deck["status"], deck["pageCount"]), ("ready", 1))
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code)
        wait_for(viewer, lambda d: d.execute_script(
            "const i = document.querySelector('podium-stage img.current'); return !!(i && i.complete && i.naturalWidth);"),
            "the viewer showing the shot")
        screenshot(viewer, "storyboard-presented-viewer")

    def test_storyboard_tools_3_shot_history(self):
        """A shot's history lists its versions; restoring the earlier one puts its dialogue back, for
        everyone and on the server."""
        board = storyboard_with_shots("History board")
        shot = board["content"]["scenes"][0]["shots"][0]["id"]
        ada = self.driver(1280, 900)
        self.sign_in_with_cookie(ada)
        self.open_project(ada, board)
        self.click(ada, f".sb-shot[data-shot-id='{shot}']")
        dialogue = wait_for(ada, lambda d: visible(d, "#shot-dialogue"), "the shot's dialogue")
        dialogue.send_keys("We go at dawn.")
        ada.find_element(By.ID, "shot-notes").click()  # the change is sent when the field is left

        def dialogue_on_server():
            status, body = SERVER.api("GET", f"/api/v1/storyboards/{board['id']}")
            return body["content"]["scenes"][0]["shots"][0]["dialogue"] if status == 200 else None

        wait_for(ada, lambda d: dialogue_on_server() == "We go at dawn.", "the dialogue stored")
        self.click(ada, "[data-action=shot-history]")
        wait_for(ada, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#shot-history li[data-seq]")) == 2, "two versions")
        screenshot(ada, "storyboard-history")
        self.click(ada, "#shot-history li[data-seq]:last-child [data-action=restore]")
        wait_for(ada, lambda d: dialogue_on_server() == "", "the earlier dialogue restored on the server")
        wait_for(ada, lambda d: d.find_element(By.ID, "shot-dialogue").get_attribute("value") == "", "and on the page")

    def test_storyboard_tools_4_nested_folders(self):
        """Folders nest in the library: a folder made inside another shows under it, moves to the top
        level, and is offered by its path when a storyboard is filed."""
        ada = self.driver(1280, 900)
        self.sign_in_with_cookie(ada)
        ada.get(SERVER.base + "/library")
        wait_for(ada, lambda d: visible(d, "#new-folder"), "the library").click()
        field = wait_for(ada, lambda d: visible(d, "dialog[open] input"), "the folder's name")
        field.send_keys("Films")
        self.click(ada, "dialog[open] .btn-primary")
        wait_for(ada, lambda d: d.find_element(By.ID, "folder-title").text == "Films", "Films selected")
        self.click(ada, "#new-subfolder")
        field = wait_for(ada, lambda d: visible(d, "dialog[open] input"), "the inner folder's name")
        field.send_keys("Shorts")
        self.click(ada, "dialog[open] .btn-primary")
        wait_for(ada, lambda d: d.find_element(By.ID, "folder-title").text == "Shorts", "Shorts selected")
        status, folders = SERVER.api("GET", "/api/v1/folders")
        films = next(f for f in folders if f["name"] == "Films")
        shorts = next(f for f in folders if f["name"] == "Shorts")
        self.assertEqual(shorts["parentId"], films["id"])
        item = f".folder-item:has(.folder-button[data-folder-id='{shorts['id']}'])"
        self.assertEqual(ada.find_element(By.CSS_SELECTOR, item).get_attribute("data-depth"), "1")
        screenshot(ada, "library-nested-folders")
        # A storyboard filed from its card: the chooser names the folder by its path.
        status, board = SERVER.api("POST", "/api/v1/storyboards", {"title": "Filed board"})
        self.assertEqual(status, 201)
        ada.refresh()
        self.click(ada, ".folder-button[data-folder-id='']")  # everything, not the folder last looked at
        card = f"#storyboards li.storyboard-card[data-storyboard-id='{board['id']}']"
        wait_for(ada, lambda d: d.find_elements(By.CSS_SELECTOR, card + " [data-action=move-storyboard]"), "the board's Move")
        self.click(ada, card + " [data-action=move-storyboard]")
        chooser = Select(wait_for(ada, lambda d: visible(d, "dialog[open] select"), "the folder chooser"))
        self.assertIn("Films / Shorts", [o.text for o in chooser.options])
        chooser.select_by_value(shorts["id"])
        self.click(ada, "dialog[open] .btn-primary")
        wait_for(ada, lambda d: SERVER.api("GET", f"/api/v1/storyboards/{board['id']}")[1].get("folderId") == shorts["id"], "filed")
        # Shorts moves to the top level.
        self.click(ada, f".folder-button[data-folder-id='{shorts['id']}']")
        self.click(ada, "#move-folder")
        Select(wait_for(ada, lambda d: visible(d, "dialog[open] select"), "where to")).select_by_value("")
        self.click(ada, "dialog[open] .btn-primary")
        wait_for(ada, lambda d: d.find_element(By.CSS_SELECTOR, item).get_attribute("data-depth") == "0", "Shorts at the top")
        self.assertIsNone(next(f for f in SERVER.api("GET", "/api/v1/folders")[1] if f["id"] == shorts["id"])["parentId"])
