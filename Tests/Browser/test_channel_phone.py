#!/usr/bin/python3
"""Browser tests of the channel as a member meets it on a phone (#37 defects 1, 3 and 7).

- A signed-in member with a long name: at 390x844 and 360x740 the page is no wider than the
  screen, the header's name, badge, language and account are whole inside it, every tab of the
  bottom bar is whole inside the screen and is what a tap at its centre reaches, and one tap on
  each tab (touch events, as a phone sends them) switches to it.
- Lock badges: a member sees none on members-only cards (videos, quizzes); a visitor does.
- The channel's video player shows the picture at a phone's, a tablet's and a laptop's size: the
  <video> taller than 0 and inside the player, the big play button and then the control bar
  inside the player and on top.

A 6 s clip (ffmpeg) is packaged by the server and published twice: free and members-only.
Alone:  python3 Tests/Browser/run_browser_tests.py ChannelPhone
"""

import sys
import time

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

import test_channel_videos as videos  # noqa: E402  (its clip helpers)

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

MEMBER = {"email": "long-name@example.org", "password": "members-only-42",
          "name": "Maximiliána Konstantinopolská-Wittelsbachová"}
SETUP = {}
SIZES = ((390, 844), (360, 740))
PLAYER_SIZES = ((390, 844), (820, 1180), (1366, 768))


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()
    if not SETUP:
        make_channel()


def tearDownModule():
    harness.tearDownModule()


def make_channel():
    """A member with a long name; a clip published free and members-only; two quizzes (the older
    one members-only)."""
    status, user = SERVER.api("POST", "/api/v1/users", {"email": MEMBER["email"], "name": MEMBER["name"], "password": MEMBER["password"]})
    assert status == 201, user
    status, changed = SERVER.api("PATCH", f"/api/v1/users/{user['id']}", {"member": True})
    assert status == 200, changed
    status, login = SERVER.request("POST", "/api/v1/auth/login", {"email": MEMBER["email"], "password": MEMBER["password"]})
    assert status == 200, login
    clip = videos.upload_clip("Phone", "testsrc2")
    videos.wait_packaged(clip)
    status, category = SERVER.api("POST", "/api/v1/channel/videos/categories", {"name": "Kitchen"})
    assert status == 201, category
    published = {}
    for name, free in (("members", False), ("free", True)):
        status, video = SERVER.api("POST", "/api/v1/channel/videos", {
            "videoId": clip, "categoryId": category["id"], "title": f"Soup ({name})", "description": "", "published": True, "free": free})
        assert status == 201, video
        published[name] = video["id"]
    quizzes = []
    for name in ("Rivers", "Towns"):
        status, quiz = SERVER.api("POST", "/api/v1/channel/quizzes", {
            "name": name, "description": "", "published": True,
            "questions": [{"text": "Which?", "answers": [{"text": "This", "correct": True}, {"text": "That", "correct": False}]}]})
        assert status == 201, quiz
        quizzes.append(quiz["quiz"]["id"])
        time.sleep(0.01)  # the second published a moment later: the newest (the older one is members-only)
    SETUP.update(token=login["token"], videos=published, quizzes=quizzes)


def sign_in_member(driver):
    driver.get(SERVER.base + "/healthz")
    driver.add_cookie({"name": "podium_auth", "value": SETUP["token"], "path": "/"})


# What a person sees of the page: its width, the header's parts and the bottom bar's tabs, each
# with its box and whether a tap at its centre reaches it.
LAYOUT = """
const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
const hit = (e) => { const r = e.getBoundingClientRect(); const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return Boolean(at && (at === e || e.contains(at))); };
const part = (e) => e && e.getClientRects().length ? {...box(e), hit: hit(e), name: e.id || e.className} : null;
return {
  width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth,
  bodyWidth: document.body.scrollWidth,
  header: ['#channel-name', '#member-badge', '.channel-language select', '#account-link'].map((s) => part(document.querySelector(s))).filter(Boolean),
  tabs: [...document.querySelectorAll('.channel-tab')].map((t) => ({...part(t), section: t.dataset.section})),
};
"""


def whole_inside(b, width, height):
    return b["left"] >= -0.5 and b["top"] >= -0.5 and b["right"] <= width + 0.5 and b["bottom"] <= height + 0.5


def tap(driver, element):
    """A finger's tap at the element's centre: touch events (and the clicks a phone makes of them)."""
    r = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];", element)
    for kind in ("touchStart", "touchEnd"):
        driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
            "type": kind, "touchPoints": [{"x": r[0], "y": r[1]}] if kind == "touchStart" else []})


class ChannelPhoneTests(BrowserTest):
    def test_1_a_members_page_fits_a_phone_and_its_tabs_answer_the_first_tap(self):
        for width, height in SIZES:
            phone = self.driver(width, height)
            phone.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
            sign_in_member(phone)
            phone.get(SERVER.base + "/channel#videos")
            wait_for(phone, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the channel")
            wait_for(phone, lambda d: visible(d, "#member-badge"), "the member's badge")
            wait_for(phone, lambda d: d.find_element(By.ID, "account-link").get_attribute("title") == MEMBER["name"], "the member's name")
            wait_for(phone, lambda d: visible(d, "[data-role=video-card]"), "the videos")
            layout = phone.execute_script(LAYOUT)
            screenshot(phone, f"channel-member-{width}x{height}")
            where = f"at {width}x{height}"
            self.assertLessEqual(layout["scrollWidth"], width, f"the page is wider than the screen {where}: {layout}")
            for part in layout["header"]:
                self.assertTrue(whole_inside(part, width, height), f"{part['name']} inside the screen {where}: {part}")
            self.assertEqual(len(layout["tabs"]), 5)
            for tab in layout["tabs"]:
                self.assertTrue(whole_inside(tab, width, height), f"the {tab['section']} tab inside the screen {where}: {tab}")
                self.assertTrue(tab["hit"], f"the {tab['section']} tab is what a tap reaches {where}: {tab}")
            # One tap on each tab switches to it, the first time.
            for section in ("radio", "places", "quizzes", "new", "videos"):
                tab = phone.find_element(By.CSS_SELECTOR, f'.channel-tab[data-section="{section}"]')
                tap(phone, tab)
                wait_for(phone, lambda d: d.execute_script(
                    "const s = document.getElementById('section-' + arguments[0]); return s && !s.hidden;", section)
                    and tab.get_attribute("aria-current") == "page", f"the {section} section after one tap {where}", timeout=5)
                layout = phone.execute_script(LAYOUT)
                self.assertLessEqual(layout["scrollWidth"], width, f"the {section} section is wider than the screen {where}")
            self.release(phone)

    def test_2_members_see_no_lock_on_what_they_may_open(self):
        member = self.driver(390, 844)
        sign_in_member(member)
        visitor = self.driver(390, 844)
        for driver, locked in ((member, False), (visitor, True)):
            who = "a visitor" if locked else "a member"
            driver.get(SERVER.base + "/channel#videos")
            card = f'[data-role=video-card][data-id="{SETUP["videos"]["members"]}"]'
            wait_for(driver, lambda d: visible(d, card), f"the members-only video's card for {who}")
            self.assertEqual(bool(driver.find_elements(By.CSS_SELECTOR, card + " .cv-badge-members")), locked,
                             f"the lock on the members-only video for {who}")
            self.assertFalse(driver.find_elements(By.CSS_SELECTOR, f'[data-role=video-card][data-id="{SETUP["videos"]["free"]}"] .cv-badge-members'))
            driver.get(SERVER.base + "/channel#quizzes")
            older = f'.quiz-card[data-id="{SETUP["quizzes"][0]}"]'
            wait_for(driver, lambda d: visible(d, older), f"the older quiz for {who}")
            self.assertEqual(bool(driver.find_elements(By.CSS_SELECTOR, older + " .quiz-lock")), locked,
                             f"the lock on the members-only quiz for {who}")
            self.assertFalse(driver.find_elements(By.CSS_SELECTOR, f'.quiz-card[data-id="{SETUP["quizzes"][1]}"] .quiz-lock'))
            screenshot(driver, "channel-quizzes-" + ("visitor" if locked else "member"))

    def test_3_the_video_player_shows_the_picture_at_every_size(self):
        member = self.driver(390, 844)
        sign_in_member(member)
        video_id = SETUP["videos"]["members"]
        member.get(f"{SERVER.base}/channel#videos/{video_id}")
        wait_for(member, lambda d: d.execute_script(
            "const v = document.querySelector('[data-role=video-player] video'); return v && v.readyState >= 1;"), "the player")
        for started in (False, True):
            if started:  # played and paused: the control bar instead of the big play button
                member.execute_script("const p = videojs(document.querySelector('[data-role=video-player] video')); p.muted(true); p.play();")
                wait_for(member, lambda d: d.execute_script(
                    "return document.querySelector('[data-role=video-player] video').currentTime > 0.3"), "playback")
                member.execute_script("videojs(document.querySelector('[data-role=video-player] video')).pause();")
            for width, height in PLAYER_SIZES:
                harness.size_driver(member, width, height)
                wait_for(member, lambda d: d.execute_script("return innerWidth") == width, f"the page at {width}x{height}")
                where = f"at {width}x{height}" + (", paused" if started else "")
                control = ".vjs-control-bar" if started else ".vjs-big-play-button"
                last = {}

                def settled(d):
                    b = d.execute_script(PLAYER_BOXES, control)
                    same = b and b == last.get("boxes")
                    last["boxes"] = b
                    return b if same else None

                boxes = wait_for(member, settled, f"the player laid out {where}")
                member.execute_script("arguments[0].scrollIntoView({block: 'center'})", member.find_element(By.CSS_SELECTOR, "[data-role=video-player]"))
                boxes = member.execute_script(PLAYER_BOXES, control)
                screenshot(member, f"channel-player-{width}x{height}" + ("-paused" if started else ""))
                self.assertGreater(boxes["video"]["height"], 100, f"the picture's height {where}: {boxes}")
                self.assertTrue(inside(boxes["video"], boxes["player"]), f"the video inside the player {where}: {boxes}")
                self.assertTrue(inside(boxes["player"], boxes["stage"]), f"the player inside its stage {where}: {boxes}")
                self.assertIsNotNone(boxes["control"], f"{control} shown {where}")
                self.assertTrue(inside(boxes["control"], boxes["player"]), f"{control} inside the player {where}: {boxes}")
                self.assertTrue(boxes["hit"], f"{control} on top {where}: {boxes}")
                self.assertLessEqual(boxes["scrollWidth"], width, f"no sideways scrolling {where}")


PLAYER_BOXES = """
const box = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
const stage = document.querySelector('[data-role=video-player]');
const player = stage.querySelector('.video-js');
const control = player.querySelector(arguments[0]);
const shown = control && control.getClientRects().length && getComputedStyle(control).visibility !== 'hidden' && Number(getComputedStyle(control).opacity) > 0;
let hit = null;
if (shown) { const r = control.getBoundingClientRect(); const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); hit = Boolean(at && control.contains(at)); }
return {stage: box(stage), player: box(player), video: box(player.querySelector('video')), control: shown ? box(control) : null, hit,
        scrollWidth: document.documentElement.scrollWidth};
"""


def inside(inner, outer, slack=1):
    return (inner["left"] >= outer["left"] - slack and inner["top"] >= outer["top"] - slack
            and inner["right"] <= outer["right"] + slack and inner["bottom"] <= outer["bottom"] + slack)
