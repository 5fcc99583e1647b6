#!/usr/bin/python3
"""Browser test of Office decks: a PPTX uploaded through the library becomes a deck (LibreOffice
on the server), and its speaker notes show on the presenter's console, slide by slide, while a
viewer's page never has them.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py OfficeDeckTests

The PPTX comes from ``Tests/Fixtures/office/make-corpus.py`` (LibreOffice through python3-uno),
kept in the temporary directory under the script's checksum as the Swift tests keep it.

State the test reads: ``.deck-card[data-title][data-status]`` (library),
``#speaker-notes[data-page][data-empty]`` and ``#speaker-notes-text`` (speaker-notes.js, in the
presenter view's ``#presenter-view``),
``.thumb[data-title]`` (the jump strip's slide titles).
"""

import subprocess
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
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
stage_attr = harness.stage_attr
screenshot = harness.screenshot

DEMO_DECK = harness.DEMO_DECK


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


SCRIPT = Path(__file__).resolve().parent.parent / "Fixtures" / "office" / "make-corpus.py"


def corpus():
    """The corpus directory (made once; the same cache as the Swift tests' OfficeCorpus)."""
    checksum = 1469598103934665603
    for byte in SCRIPT.read_bytes():
        checksum = ((checksum ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    directory = Path(tempfile.gettempdir()) / f"podium-office-corpus-{checksum:x}"
    if not (directory / "slides.pptx").exists():
        staging = Path(tempfile.mkdtemp(prefix="podium-office-corpus-"))
        subprocess.run(["/usr/bin/python3", str(SCRIPT), str(staging)], check=True, timeout=180)
        if not (directory / "slides.pptx").exists():
            subprocess.run(["rm", "-rf", str(directory)], check=True)
            staging.rename(directory)
    return directory


class OfficeDeckTests(BrowserTest):
    def test_1_pptx_notes_on_the_presenter_console(self):
        """Upload a PPTX in the library; present it: the notes of each slide on the console, the
        slide titles on the thumbnails, nothing of the notes on a viewer's page."""
        pptx = corpus() / "slides.pptx"
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/library")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".deck-card, #decks-empty:not([hidden])"), "the library")
        driver.find_element(By.ID, "file-input").send_keys(str(pptx))
        wait_for(driver, lambda d: visible(d, '.deck-card[data-title="slides"][data-status="ready"]'),
                 "the PPTX's card, ready", timeout=150)
        screenshot(driver, "office-library")
        status, decks = SERVER.api("GET", "/api/v1/decks")
        deck = next(d for d in decks if d["title"] == "slides")
        self.assertEqual(deck["pageCount"], 3)

        code = SERVER.start_session(deck["id"])["code"]
        self.open_console(driver, code)
        notes = wait_for(driver, lambda d: visible(d, '#speaker-notes[data-page="1"]'), "the speaker notes of slide 1")
        # In the presenter view beside the slide (on by itself for a deck with notes), not in the Join tab.
        self.assertTrue(driver.execute_script("return Boolean(document.querySelector('#presenter-view #speaker-notes'))"))
        self.assertEqual([p.text for p in driver.find_elements(By.CSS_SELECTOR, "#speaker-notes-text p")],
                         ["Say hello & smile.", "Mention the Wi-Fi code."])
        self.assertIn("Welcome to Podium", notes.find_element(By.TAG_NAME, "h2").get_attribute("textContent"))
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '.thumb[data-title="Why decks matter"]'),
                 "the slide titles on the jump strip")
        screenshot(driver, "office-console-notes")
        self.press(driver, Keys.ARROW_RIGHT)
        wait_for(driver, lambda d: visible(d, '#speaker-notes[data-page="2"][data-empty="true"]'), "slide 2, without notes")
        self.assertEqual(text_of(driver, "#speaker-notes-text"), "No notes on this slide.")
        self.press(driver, Keys.ARROW_RIGHT)
        wait_for(driver, lambda d: visible(d, '#speaker-notes[data-page="3"][data-empty="false"]'), "slide 3's notes")
        self.assertIn("Überraschung", text_of(driver, "#speaker-notes-text"))

        # A viewer sees the slides, never the notes (nor the panel).
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code)
        wait_for(viewer, lambda d: stage_attr(d, "data-page") == "3", "the viewer following to slide 3")
        page = viewer.execute_script("return document.documentElement.outerHTML")
        for secret in ("Wi-Fi", "smile", "Überraschung"):
            self.assertNotIn(secret, page)
        self.assertFalse(viewer.find_elements(By.ID, "speaker-notes"))
        screenshot(viewer, "office-viewer-phone")

    def test_2_images_chosen_together_make_one_deck(self):
        """Three images picked together in the library make one upload and one deck of three
        pages, in the order of their names (p2 before p10)."""
        directory = self.scratch_directory("podium-image-set-")
        for name, colour in (("shot-p10.png", (200, 40, 40)), ("shot-p2.png", (40, 200, 40)), ("shot-p1.png", (40, 40, 200))):
            (directory / name).write_bytes(png(64, 48, colour))
        driver = self.driver(1280, 900)
        self.sign_in_with_cookie(driver)
        driver.get(SERVER.base + "/library")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".deck-card, #decks-empty:not([hidden])"), "the library")
        paths = "\n".join(str(directory / name) for name in ("shot-p10.png", "shot-p2.png", "shot-p1.png"))
        driver.find_element(By.ID, "file-input").send_keys(paths)
        wait_for(driver, lambda d: visible(d, '.deck-card[data-title="shot-p1"][data-status="ready"]'),
                 "one deck made of the three images, ready", timeout=60)
        self.assertEqual(len(driver.find_elements(By.CSS_SELECTOR, '.deck-card[data-title^="shot-p"]')), 1, "one deck, not three")
        screenshot(driver, "office-image-set")
        status, decks = SERVER.api("GET", "/api/v1/decks")
        deck = next(d for d in decks if d["title"] == "shot-p1")
        self.assertEqual(deck["pageCount"], 3)


def png(width, height, colour):
    """A PNG of one colour, written by hand (no imaging library needed)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(colour) * width
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))
