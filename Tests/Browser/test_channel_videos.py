#!/usr/bin/python3
"""Browser tests of the channel's videos (#20).

A person favourites a video and plays it half way in one browser, anonymously; signs in there
(what the browser kept moves to the account); on a second browser signs in and finds the
favourite and "Continue watching", and the player resumes where they stopped. A non-member opens
a members-only video and sees the membership message, a member sees the player. The admin
archives a video in the channel's admin and restores it.

Two clips are made here with ffmpeg (testsrc2, 8 s) and packaged by the server.
Alone:  python3 Tests/Browser/run_browser_tests.py ChannelVideoTests
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

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

CLIP_SECONDS = 8
CATALOGUE = {}
PERSON = {"email": "viewer@example.org", "password": "watching-videos-42"}


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()
    if not CATALOGUE:
        make_catalogue()


def tearDownModule():
    harness.tearDownModule()


def upload_clip(title, pattern):
    """A short clip uploaded to the library and packaged; its id."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "clip.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
             f"{pattern}=size=640x360:rate=15:duration={CLIP_SECONDS}", "-f", "lavfi", "-i",
             f"sine=frequency=440:duration={CLIP_SECONDS}", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
             "-c:a", "aac", "-shortest", str(path)],
            check=True)
        status, video = SERVER.request(
            "POST", "/api/v1/videos?title=" + title, token=SERVER.token, raw=path.read_bytes(), content_type="video/mp4")
    if status != 201:
        raise AssertionError(f"video upload answered {status}: {video}")
    return video["id"]


def wait_packaged(video_id):
    deadline = time.monotonic() + 120
    while True:
        status, video = SERVER.api("GET", f"/api/v1/videos/{video_id}")
        if status == 200 and video["status"] in ("ready", "failed"):
            if video["status"] != "ready":
                raise AssertionError(f"packaging failed: {video}")
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"still packaging after 120 s: {video}")
        time.sleep(0.25)


def make_catalogue():
    """A category; a members-only video published first, then a free one (the newest); a person."""
    library = [upload_clip("Members", "testsrc2"), upload_clip("Open", "smptebars")]
    for video_id in library:
        wait_packaged(video_id)
    status, category = SERVER.api("POST", "/api/v1/channel/videos/categories", {"name": "Czech kitchen"})
    assert status == 201, category
    status, members = SERVER.api("POST", "/api/v1/channel/videos", {
        "videoId": library[0], "categoryId": category["id"], "title": "Goulash for members",
        "description": "The family recipe, step by step.", "published": True,
        "chapters": [{"start": 0, "title": "Onions"}, {"start": 4, "title": "Paprika"}]})
    assert status == 201, members
    status, free = SERVER.api("POST", "/api/v1/channel/videos", {
        "videoId": library[1], "categoryId": category["id"], "title": "Dumplings for everyone",
        "description": "Bread dumplings.", "published": True, "free": True,
        "chapters": [{"start": 0, "title": "Dough"}, {"start": 4, "title": "Boiling"}]})
    assert status == 201, free
    status, person = SERVER.api("POST", "/api/v1/users", {"email": PERSON["email"], "name": "Viewer", "password": PERSON["password"]})
    assert status == 201, person
    CATALOGUE.update(category=category["id"], members=members["id"], free=free["id"])


def video_time(driver):
    return driver.execute_script("const v = document.querySelector('[data-role=video-player] video'); return v ? v.currentTime : null;")


def open_video(driver, video_id):
    driver.get(f"{SERVER.base}/channel#videos/{video_id}")
    wait_for(driver, lambda d: visible(d, f'[data-role=video-detail][data-id="{video_id}"] .cv-title'), "the video page")


def sign_in(driver, back_to):
    driver.get(f"{SERVER.base}/login?next=" + back_to)
    wait_for(driver, lambda d: visible(d, "#email"), "the sign-in form")
    driver.find_element(By.ID, "email").send_keys(PERSON["email"])
    driver.find_element(By.ID, "password").send_keys(PERSON["password"])
    driver.find_element(By.ID, "login-submit").click()
    wait_for(driver, lambda d: "/login" not in d.current_url, "signed in")


class ChannelVideoTests(BrowserTest):
    def test_1_favourite_and_resume_on_another_browser(self):
        free = CATALOGUE["free"]
        phone = self.driver(390, 844)
        phone.get(f"{SERVER.base}/channel#videos")
        card = wait_for(phone, lambda d: visible(d, f'[data-role=video-card][data-id="{free}"]'), "the free video's card")
        self.assertIn("Dumplings for everyone", card.text)
        screenshot(phone, "channel-videos-phone")
        # A card's badges ("New", "Members") stay inside its picture, clear of the length in its
        # corner: on a phone the picture is narrow, and they once ran over the title beside it.
        spills = phone.execute_script("""
            const out = [];
            for (const thumb of document.querySelectorAll('[data-role=video-card] .cv-thumb')) {
              const box = thumb.getBoundingClientRect();
              const length = thumb.querySelector('.cv-duration').getBoundingClientRect();
              for (const badge of thumb.querySelectorAll('.cv-badge')) {
                const b = badge.getBoundingClientRect();
                if (b.left < box.left - 0.5 || b.right > box.right + 0.5 || b.bottom > length.top + 0.5)
                  out.push(badge.textContent + ': ' + JSON.stringify([b.left, b.right, b.bottom]) + ' in ' +
                    JSON.stringify([box.left, box.right, length.top]));
              }
            }
            return out;""")
        self.assertEqual(spills, [], "badges outside their picture")
        self.assertTrue(phone.find_elements(By.CSS_SELECTOR, "[data-role=video-card] .cv-badge-members"),
                        "a members-only card to measure")
        # Favourite it from its card; the Favourites row shows it.
        card.find_element(By.CSS_SELECTOR, "[data-role=favourite]").click()
        wait_for(phone, lambda d: visible(d, f'[data-role=favourites-row] [data-role=video-card][data-id="{free}"]'),
                 "the favourite in the Favourites row")

        # Play it half way, then pause: the position is saved.
        open_video(phone, free)
        wait_for(phone, lambda d: d.execute_script(
            "const v = document.querySelector('[data-role=video-player] video'); return v && v.readyState >= 1;"), "the player")
        phone.execute_script("document.querySelector('[data-role=video-player] video').muted = true;")
        phone.execute_script("videojs(document.querySelector('[data-role=video-player] video')).play();")
        wait_for(phone, lambda d: (video_time(d) or 0) > 0.3, "playback to start")
        # A chapter seeks: "Boiling" starts at 4 s, half way.
        phone.find_element(By.CSS_SELECTOR, '[data-role=chapter][data-start="4"]').click()
        wait_for(phone, lambda d: (video_time(d) or 0) >= 4.2, "playback past the chapter")
        screenshot(phone, "channel-video-player-phone")
        phone.execute_script("videojs(document.querySelector('[data-role=video-player] video')).pause();")
        stopped = video_time(phone)
        wait_for(phone, lambda d: d.execute_script("""
            return fetch('/api/v1/channel/me/continue', {headers: {Accept: 'application/json'}})
              .then(r => r.json()).then(rows => rows.length > 0 && rows[0].seconds >= 4).catch(() => false);"""),
                 "the saved position")

        # Signing in on this browser takes the favourite and the position to the account.
        sign_in(phone, "/channel%23videos")
        laptop = self.driver(1280, 800)
        sign_in(laptop, "/channel%23videos")
        laptop.get(f"{SERVER.base}/channel#videos")
        wait_for(laptop, lambda d: visible(d, f'[data-role=continue-row] [data-role=video-card][data-id="{free}"]'),
                 "Continue watching on the second browser")
        wait_for(laptop, lambda d: visible(d, f'[data-role=favourites-row] [data-role=video-card][data-id="{free}"]'),
                 "the favourite on the second browser")
        self.assertTrue(visible(laptop, f'[data-role=continue-row] [data-id="{free}"] [data-role=video-progress]'))
        screenshot(laptop, "channel-videos-laptop")
        laptop.find_element(By.CSS_SELECTOR, f'[data-role=continue-row] [data-id="{free}"] a').click()
        wait_for(laptop, lambda d: abs((video_time(d) or 0) - stopped) < 0.6, f"the player resumed at {stopped:.1f} s")
        star = laptop.find_element(By.CSS_SELECTOR, "[data-role=video-detail] .cv-actions [data-role=favourite]")
        self.assertEqual(star.get_attribute("aria-pressed"), "true")

    def test_2_members_only_video_shows_the_message_to_non_members(self):
        members = CATALOGUE["members"]
        visitor = self.driver(390, 844)
        open_video(visitor, members)
        message = wait_for(visitor, lambda d: visible(d, "[data-role=video-player] .channel-limit[data-limit=video]"),
                           "the membership message")
        self.assertIn("member", message.text.lower())
        self.assertFalse(visitor.find_elements(By.CSS_SELECTOR, "[data-role=video-player] video"))
        screenshot(visitor, "channel-video-members-only")

        member = self.driver(1280, 800)
        self.sign_in_with_cookie(member)  # the admin counts as a member
        open_video(member, members)
        wait_for(member, lambda d: d.execute_script(
            "const v = document.querySelector('[data-role=video-player] video'); return v && v.readyState >= 1;"),
                 "the player for a member")
        self.assertFalse(member.find_elements(By.CSS_SELECTOR, "[data-role=video-player] .channel-limit"))

    def test_3_admin_archives_and_restores_a_video(self):
        free = CATALOGUE["free"]
        admin = self.driver(1280, 800)
        self.sign_in_with_cookie(admin)
        admin.get(f"{SERVER.base}/channel/admin#videos")
        row = f'tr[data-id="{free}"]'
        wait_for(admin, lambda d: visible(d, row), "the video's row")
        screenshot(admin, "channel-admin-videos")
        admin.find_element(By.CSS_SELECTOR, row + " [data-role=archive]").click()
        wait_for(admin, lambda d: not d.find_elements(By.CSS_SELECTOR, row), "the row gone from Current")
        self.assertEqual(SERVER.request("GET", f"/api/v1/channel/videos/{free}")[0], 404)
        admin.find_element(By.CSS_SELECTOR, "[data-role=status-archived]").click()
        wait_for(admin, lambda d: visible(d, row + " [data-role=restore]"), "the row in the archive").click()
        wait_for(admin, lambda d: not d.find_elements(By.CSS_SELECTOR, row), "the row gone from the archive")
        admin.find_element(By.CSS_SELECTOR, "[data-role=status-all]").click()
        wait_for(admin, lambda d: visible(d, row), "the row back in Current")
        self.assertEqual(SERVER.request("GET", f"/api/v1/channel/videos/{free}")[0], 200)
