#!/usr/bin/python3
"""Browser tests of rooms: a moderator, two presenters with their own decks, a projector, a viewer.

Runs inside the suite of ``run_browser_tests.py`` (which loads this module and shares its
harness). Alone:  python3 Tests/Browser/run_browser_tests.py rooms

State the tests read: ``<podium-stage data-deck data-page>`` on every room page;
``<body data-connection data-drives data-pending>`` on the moderator's and presenters' pages;
``#control-card[data-state data-position]`` on a presenter's page; ``.queue-item[data-presenter-id]``,
``.presenter-item[data-presenter-id][data-connected]``, ``#queue-held[data-count]`` on the console;
``#idle`` (the join screen) and ``<body data-idle>`` on the projector; ``<podium-stage data-strokes>``
(the strokes shown) and ``<body data-draw-mode>`` with ``#ink-bar`` (draw mode) for ink.
Links and QR codes mirror what they hold: ``#join-qr[data-url]`` (console), ``#idle-qr[data-url]``
(projector). A room's polls and questions use the presenter panel's state (see README);
``.report-question[data-presenter]`` names whose turn a question came in.
"""

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
wait_for = harness.wait_for
visible = harness.visible
text_of = harness.text_of
stage_attr = harness.stage_attr
screenshot = harness.screenshot
FIXTURES = harness.FIXTURES

PASSCODE = "4321"
DECK_A = FIXTURES / "cairo-slides.pdf"  # 3 pages, 16:9
DECK_B = FIXTURES / "ghostscript-a4.pdf"  # 2 pages, A4 portrait


def setUpModule():
    if not harness.DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


def body_data(driver, name):
    return driver.execute_script("return document.body.dataset[arguments[0]] ?? null", name)


def attr(driver, css, name):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;", css, name)


def click(driver, css):
    element = wait_for(driver, lambda d: visible(d, css), f"{css} to be visible")
    wait_for(driver, lambda d: element.is_enabled(), f"{css} to be enabled")
    element.click()
    return element


def slide_shown(driver, deck_id, page):
    """The stage shows this deck's page, its image loaded."""
    return driver.execute_script("""
        const s = document.querySelector('podium-stage');
        const img = s && s.querySelector('img.current');
        return !!s && s.dataset.deck === arguments[0] && s.dataset.page === String(arguments[1])
            && !!img && img.complete && img.naturalWidth > 0;""", deck_id, page)


def frame_box(driver):
    """The slide's frame and the stage, in client pixels."""
    return driver.execute_script("""
        const s = document.querySelector('podium-stage');
        const f = s.querySelector('.stage-frame').getBoundingClientRect();
        const r = s.getBoundingClientRect();
        return {fl: f.left, ft: f.top, fw: f.width, fh: f.height, sl: r.left, st: r.top, sw: r.width, sh: r.height};""")


STROKE_SCRIPT = r"""
const [code, passcode, page, done] = arguments;
const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host
    + '/api/v1/sessions/' + code + '/live');
const id = 'test-stroke-' + Date.now();
ws.onopen = () => ws.send(JSON.stringify({type: 'hello', role: 'presenter', name: 'Ann', passcode}));
ws.onmessage = (event) => {
  const m = JSON.parse(event.data);
  if (m.type === 'welcome') {
    ws.send(JSON.stringify({type: 'stroke', id, stroke: {page, tool: 'pen', color: '#e53935', width: 0.006,
      points: [[0.2, 0.5, 0.5], [0.4, 0.6, 0.5], [0.6, 0.5, 0.5], [0.8, 0.6, 0.5]]}}));
  } else if ((m.type === 'ack' || m.type === 'error') && m.id === id) {
    ws.close();
    done(m);
  } else if (m.type === 'error') {
    done(m);
  }
};
"""


class PublicURLServer(harness.Server):
    """A server of its own, started with ``--public-url`` (its own 127.0.0.1 address): pages opened
    as ``localhost`` must still hand out links and QR codes of the public address."""

    def start(self):
        self.binary = os.environ.get("PODIUM_BIN", str(harness.REPO / ".build" / "debug" / "podium"))
        if not os.path.isabs(self.binary):
            self.binary = str(harness.REPO / self.binary)
        self.data_dir = tempfile.mkdtemp(prefix="podium-browser-public-")
        harness.ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.log = open(harness.ARTIFACTS / "browser-server-public-url.log", "wb")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        harness.add_origin(self.port)
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD=harness.ADMIN_PASSWORD)
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir,
             "--public-url", self.base],
            cwd=str(harness.REPO), env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the public-URL server exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, socket.timeout):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the public-URL server did not answer /healthz within 60 s")
            time.sleep(0.2)
        status, body = self.request("POST", "/api/v1/auth/login", {"email": "admin", "password": harness.ADMIN_PASSWORD})
        if status != 200:
            raise RuntimeError(f"login failed: {status} {body}")
        self.token = body["token"]


def draw(driver, start, moves):
    """A mouse drag on the stage: from `start` (pixels from the stage's centre) by each of `moves`."""
    stage = driver.find_element(By.CSS_SELECTOR, "podium-stage")
    actions = ActionChains(driver, duration=harness.DRAG_MOVE_MS)
    actions.move_to_element_with_offset(stage, *start).click_and_hold()
    for dx, dy in moves:
        actions.move_by_offset(dx, dy)
    actions.release().perform()


class RoomTests(BrowserTest):
    def join_presenter(self, driver, code, name):
        driver.get(f"{SERVER.base}/r/{code}")
        wait_for(driver, lambda d: visible(d, "#gate-form"), "the presenter's join gate")
        wait_for(driver, lambda d: visible(d, "#passcode"), "the passcode field (the room has one)")
        driver.find_element(By.ID, "presenter-name").send_keys(name)
        driver.find_element(By.ID, "passcode").send_keys(PASSCODE)
        driver.find_element(By.ID, "join-button").click()
        wait_for(driver, lambda d: body_data(d, "connection") == "live" and body_data(d, "presenterId"),
                 f"{name} to join the room")
        return body_data(driver, "presenterId")

    def upload_deck(self, presenter, moderator, path, pages, chosen=False):
        """A presenter's deck, chosen in their file field (unless `chosen` already), once it has
        joined the room: in the presenter's list and the moderator's. Its id."""
        if not chosen:
            presenter.find_element(By.ID, "file-input").send_keys(str(path))
        # The deck joins the room once processed: the presenter's list and the moderator's.
        # Read in one script: the list is drawn anew as the upload's card and the deck's events
        # arrive, and an element found a moment before can be gone when it is read.
        item = wait_for(presenter, lambda d: d.execute_script(
            "const i = document.querySelector('#my-decks .deck-item[data-deck-id]');"
            "return i ? {id: i.dataset.deckId, text: i.innerText} : null;"),
            f"{path.name} in the presenter's decks", timeout=120)
        deck_id = item["id"]
        self.assertIn(f"{pages} slides", item["text"])
        wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'#decks [data-deck-id="{deck_id}"]'),
                 "the deck in the moderator's list")
        return deck_id

    def test_room_hand_over(self):
        """Open a room; two presenters bring decks; request, grant, page, hand over, withdraw."""
        # The moderator opens a room from the library.
        moderator = self.driver(1440, 900)
        self.sign_in_with_cookie(moderator)
        moderator.get(SERVER.base + "/library")
        click(moderator, "#open-room")
        wait_for(moderator, lambda d: visible(d, "#room-dialog"), "the open-a-room dialog")
        moderator.find_element(By.ID, "room-title").send_keys("Lightning talks")
        moderator.find_element(By.ID, "room-passcode").send_keys(PASSCODE)
        moderator.find_element(By.ID, "room-download").click()
        screenshot(moderator, "room-open-dialog")
        moderator.find_element(By.ID, "room-start").click()
        wait_for(moderator, lambda d: d.current_url.rstrip("/").endswith("/moderate"), "the moderator console")
        code = moderator.current_url.rstrip("/").split("/")[-2]
        self.assertRegex(code, r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$")
        wait_for(moderator, lambda d: body_data(d, "connection") == "live", "the console to connect")
        self.assertEqual(text_of(moderator, "#join-code"), code)
        self.assertEqual(text_of(moderator, "#room-title"), "Lightning talks")
        self.assertTrue(visible(moderator, "#idle"), "nothing on the stage yet")
        self.assertEqual(body_data(moderator, "drives"), "true")
        status, info = SERVER.api("GET", f"/api/v1/sessions/{code}")
        self.assertEqual((status, info["kind"], info["hasPasscode"]), (200, "room", True))

        # The projector: the moderator's own browser (signed in) needs no passcode. Idle: join screen.
        projector = self.driver(1280, 720)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        self.assertEqual(text_of(projector, "#idle-code"), code)
        wait_for(projector, lambda d: d.execute_script(
            "const i = document.getElementById('idle-qr'); return i.src.startsWith('data:') && i.naturalWidth > 0"),
            "the projector's QR code")
        self.assertEqual(body_data(projector, "idle"), "true")
        screenshot(projector, "room-projector-idle")

        # The audience: the passcode at the usual gate.
        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}")
        wait_for(viewer, lambda d: visible(d, "#gate-form"), "the viewer's gate")
        viewer.find_element(By.ID, "passcode").send_keys(PASSCODE)
        viewer.find_element(By.ID, "join-button").click()
        wait_for(viewer, lambda d: visible(d, "#watch"), "the viewer watching")
        wait_for(viewer, lambda d: "Waiting for the first slide" in (text_of(d, "#watch-page") or ""),
                 "the viewer told that nothing is on the stage yet")

        # Two presenters, each in their own browser (their own identity cookie), each with a deck.
        ann = self.driver(1280, 800)
        bob = self.driver(1280, 800)
        ann_id = self.join_presenter(ann, code, "Ann")
        bob_id = self.join_presenter(bob, code, "Bob")
        self.assertNotEqual(ann_id, bob_id)
        for presenter_id in (ann_id, bob_id):
            wait_for(moderator, lambda d: attr(d, f'.presenter-item[data-presenter-id="{presenter_id}"]', "data-connected") == "true",
                     "the presenters listed as connected on the console")
        # Both choose their decks at once (as two people would), so the server processes them side
        # by side.
        ann.find_element(By.ID, "file-input").send_keys(str(DECK_A))
        bob.find_element(By.ID, "file-input").send_keys(str(DECK_B))
        deck_a = self.upload_deck(ann, moderator, DECK_A, 3, chosen=True)
        deck_b = self.upload_deck(bob, moderator, DECK_B, 2, chosen=True)
        self.assertIn("Ann", text_of(moderator, f'.presenter-item[data-presenter-id="{ann_id}"]'))

        # Ann asks for control; the moderator sees the request and grants it.
        click(ann, "#request")
        wait_for(ann, lambda d: attr(d, "#control-card", "data-state") == "waiting", "Ann waiting")
        self.assertEqual(attr(ann, "#control-card", "data-position"), "1")
        wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'.queue-item[data-presenter-id="{ann_id}"]'),
                 "Ann's request on the console")
        self.assertEqual(text_of(moderator, "#queue-count"), "1")
        screenshot(ann, "room-presenter-waiting")
        moderator.find_element(By.CSS_SELECTOR, f'.queue-item[data-presenter-id="{ann_id}"] [data-action="grant"]').click()

        # Ann's deck is on the projector, the viewer's phone and the console.
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control")
        for driver, who in ((projector, "projector"), (viewer, "viewer"), (moderator, "moderator"), (ann, "Ann")):
            wait_for(driver, lambda d: slide_shown(d, deck_a, 1), f"Ann's deck, page 1, on the {who}")
        wait_for(viewer, lambda d: "Now presenting: Ann" in (text_of(d, "#watch-page") or ""), "the viewer naming Ann")
        self.assertEqual(body_data(moderator, "drives"), "false")
        self.assertIn("Ann", text_of(moderator, "#onstage-name"))
        self.assertIn("Ann", text_of(bob, "#now-presenting"))
        self.assertTrue(visible(projector, "podium-stage") and not visible(projector, "#idle"), "no join screen while a slide shows")

        # Ann pages on: everyone follows.
        self.press(ann, Keys.ARROW_RIGHT)
        for driver, who in ((projector, "projector"), (viewer, "viewer"), (moderator, "moderator")):
            wait_for(driver, lambda d: slide_shown(d, deck_a, 2), f"page 2 on the {who}")
        wait_for(ann, lambda d: body_data(d, "pending") == "0", "Ann's page change acknowledged")
        # Page 2 is 4:3 on a 16:9 projector: full height, centred, margins left and right.
        harness.wait_settled(projector)
        box = frame_box(projector)
        self.assertAlmostEqual(box["fh"], box["sh"], delta=2)
        self.assertAlmostEqual(box["fw"], box["sh"] * 4 / 3, delta=2)
        self.assertAlmostEqual(box["fl"] - box["sl"], (box["sw"] - box["fw"]) / 2, delta=2)
        harness.wait_settled(ann)
        screenshot(ann, "room-presenter-presenting")

        # Ink of the presenter in control reaches the projector, on that deck's page only.
        result = ann.execute_async_script(STROKE_SCRIPT, code, PASSCODE, 2)
        self.assertEqual(result.get("type"), "ack", result)
        wait_for(projector, lambda d: stage_attr(d, "data-strokes") == "1", "Ann's stroke on the projector")
        wait_for(moderator, lambda d: stage_attr(d, "data-strokes") == "1", "Ann's stroke on the console")
        harness.wait_settled(projector)
        screenshot(projector, "room-projector-slide")

        # A presenter who is not in control cannot drive.
        self.press(bob, Keys.ARROW_RIGHT)
        self.assertEqual(stage_attr(projector, "data-page"), "2")

        # Bob asks; the moderator hands over to the next request: Bob's portrait deck, centred.
        click(bob, "#request")
        wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'.queue-item[data-presenter-id="{bob_id}"]'),
                 "Bob's request on the console")
        harness.wait_settled(moderator)
        screenshot(moderator, "room-moderator")
        click(moderator, "#hand-over")
        wait_for(bob, lambda d: body_data(d, "drives") == "true", "Bob in control")
        wait_for(ann, lambda d: body_data(d, "drives") == "false", "Ann no longer in control")
        for driver, who in ((projector, "projector"), (viewer, "viewer"), (moderator, "moderator")):
            wait_for(driver, lambda d: slide_shown(d, deck_b, 1), f"Bob's deck on the {who}")
        harness.wait_settled(projector)
        self.assertEqual(stage_attr(projector, "data-strokes"), "0", "Ann's ink belongs to Ann's deck")
        box = frame_box(projector)
        self.assertAlmostEqual(box["fh"], box["sh"], delta=2)  # a portrait page: full height,
        self.assertLess(box["fw"], box["sw"] * 0.6)  # narrow,
        self.assertAlmostEqual(box["fl"] - box["sl"], (box["sw"] - box["fw"]) / 2, delta=2)  # centred

        # The moderator sets the projector's background; the margins take it.
        moderator.execute_script("""
            const input = document.getElementById('background');
            input.value = '#1a2b3c';
            input.dispatchEvent(new Event('change', {bubbles: true}));""")
        wait_for(projector, lambda d: d.execute_script(
            "return getComputedStyle(document.querySelector('podium-stage')).backgroundColor") == "rgb(26, 43, 60)",
            "the projector's margins in the room's colour")
        harness.wait_settled(projector)
        screenshot(projector, "room-projector-portrait")

        # Bob lends the stage to Ann, who gives it back.
        wait_for(bob, lambda d: visible(d, "#pass-field"), "Bob may pass control")
        bob.find_element(By.ID, "pass-to").send_keys("Ann")
        click(bob, "#pass")
        wait_for(ann, lambda d: body_data(d, "drives") == "true" and visible(d, "#return-control"), "Ann borrowing the stage")
        click(ann, "#return-control")
        wait_for(bob, lambda d: body_data(d, "drives") == "true", "Bob in control again")

        # Do not disturb: Ann's new request is held quietly, then shown.
        click(moderator, "#dnd")
        wait_for(moderator, lambda d: visible(d, "#queue-held"), "the held line")
        click(ann, "#request")
        wait_for(moderator, lambda d: attr(d, "#queue-held", "data-count") == "1", "one request held")
        self.assertIn("1 request waiting (held)", text_of(moderator, "#queue-held"))
        self.assertFalse(visible(moderator, "#queue"), "held requests are not listed")
        click(moderator, "#dnd")
        wait_for(moderator, lambda d: visible(d, f'.queue-item[data-presenter-id="{ann_id}"]'), "the request shown again")

        # A queue cap of 1: nobody else may wait; the presenter is told clearly.
        cap = moderator.find_element(By.ID, "queue-cap")
        cap.clear()
        cap.send_keys("1")
        click(moderator, "#queue-cap-set")
        wait_for(moderator, lambda d: body_data(d, "pending") == "0", "the cap acknowledged")
        click(ann, "#cancel-request")
        wait_for(ann, lambda d: visible(d, "#request"), "Ann's request cancelled")

        harness.wait_settled(bob)
        screenshot(bob, "room-presenter-watching")

    def test_room_moderator_takes_back(self):
        """The moderator withdraws control, shows a presenter's deck where it was left (with its
        ink), blanks the projector and exports every page shown. (The hand-over before it:
        test_room_hand_over; split so neither needs more than 30 s on a busy machine.)"""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Take back", "passcode": PASSCODE})
        self.assertEqual(status, 201, room)
        code = room["code"]
        demo = harness.DEMO_DECK["id"]
        status, added = SERVER.api("POST", f"/api/v1/sessions/{code}/decks", {"deckId": demo})
        self.assertEqual(status, 201, added)
        moderator = self.driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: body_data(d, "connection") == "live", "the console to connect")
        projector = self.driver(1280, 720)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}")
        wait_for(viewer, lambda d: visible(d, "#gate-form"), "the viewer's gate")
        viewer.find_element(By.ID, "passcode").send_keys(PASSCODE)
        viewer.find_element(By.ID, "join-button").click()
        wait_for(viewer, lambda d: visible(d, "#watch"), "the viewer watching")

        # Ann brings her deck, is granted the stage, pages to 2 and draws there.
        ann = self.driver(1280, 800)
        ann_id = self.join_presenter(ann, code, "Ann")
        deck_a = self.upload_deck(ann, moderator, DECK_A, 3)
        click(ann, "#request")
        wait_for(moderator, lambda d: d.find_elements(By.CSS_SELECTOR, f'.queue-item[data-presenter-id="{ann_id}"]'),
                 "Ann's request on the console")
        moderator.find_element(By.CSS_SELECTOR, f'.queue-item[data-presenter-id="{ann_id}"] [data-action="grant"]').click()
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control")
        wait_for(projector, lambda d: slide_shown(d, deck_a, 1), "Ann's deck on the projector")
        self.press(ann, Keys.ARROW_RIGHT)
        wait_for(projector, lambda d: slide_shown(d, deck_a, 2), "page 2 on the projector")
        wait_for(ann, lambda d: body_data(d, "pending") == "0", "Ann's page change acknowledged")
        result = ann.execute_async_script(STROKE_SCRIPT, code, PASSCODE, 2)
        self.assertEqual(result.get("type"), "ack", result)
        wait_for(projector, lambda d: stage_attr(d, "data-strokes") == "1", "Ann's stroke on the projector")

        # The moderator takes control back: the presenter sees that the moderator presents.
        click(moderator, "#withdraw")
        wait_for(moderator, lambda d: body_data(d, "drives") == "true", "the moderator driving")
        wait_for(ann, lambda d: "The moderator" in (text_of(d, "#now-presenting") or ""), "Ann told the moderator presents")
        self.assertEqual(body_data(ann, "drives"), "false")
        wait_for(viewer, lambda d: "Now presenting: the moderator" in (text_of(d, "#watch-page") or ""), "the viewer told too")

        # The moderator shows their own deck, then Ann's where it was left (page 2), and pages with
        # the keyboard.
        moderator.find_element(By.CSS_SELECTOR, f'#deckbar [data-deck-id="{demo}"]').click()
        wait_for(projector, lambda d: slide_shown(d, demo, 1), "the moderator's deck on the projector")
        moderator.find_element(By.CSS_SELECTOR, f'#deckbar [data-deck-id="{deck_a}"]').click()
        wait_for(projector, lambda d: slide_shown(d, deck_a, 2), "Ann's deck back at page 2")
        self.press(moderator, Keys.ARROW_RIGHT)
        wait_for(projector, lambda d: slide_shown(d, deck_a, 3), "the moderator paging")
        wait_for(viewer, lambda d: slide_shown(d, deck_a, 3), "the viewer following the moderator")

        self.assertEqual(stage_attr(projector, "data-strokes"), "0")
        self.press(moderator, Keys.ARROW_LEFT)
        wait_for(projector, lambda d: slide_shown(d, deck_a, 2) and stage_attr(d, "data-strokes") == "1",
                 "Ann's ink again on her page 2")
        self.press(moderator, Keys.ARROW_RIGHT)
        wait_for(projector, lambda d: slide_shown(d, deck_a, 3), "back on page 3")

        # Blank from the console.
        moderator.find_element(By.CSS_SELECTOR, '#blank-group [data-blank="black"]').click()
        wait_for(projector, lambda d: stage_attr(d, "data-blank") == "black", "the projector blanked")
        moderator.find_element(By.CSS_SELECTOR, '#blank-group [data-blank="none"]').click()
        wait_for(projector, lambda d: stage_attr(d, "data-blank") == "none", "the projector back")

        # The export holds every page shown, in order.
        result = moderator.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(document.getElementById('export').href).then(async (r) => done({
                status: r.status, type: r.headers.get('Content-Type'), size: (await r.arrayBuffer()).byteLength,
            })).catch((e) => done({error: String(e)}));""")
        self.assertEqual((result.get("status"), result.get("type")), (200, "application/pdf"), result)
        harness.wait_settled(moderator)
        screenshot(moderator, "room-moderator-driving")

    def test_room_presenter_errors(self):
        """A name is required; a full queue is refused with a clear message; a reload keeps the presenter."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Queue test"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        moderator = self.driver(1280, 800)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: body_data(d, "connection") == "live", "the console to connect")
        cap = moderator.find_element(By.ID, "queue-cap")
        cap.send_keys("1")
        click(moderator, "#queue-cap-set")
        wait_for(moderator, lambda d: body_data(d, "pending") == "0", "the cap acknowledged")

        first = self.driver(1024, 768)
        second = self.driver(1024, 768)
        for driver, name in ((first, "Cleo"), (second, "Dan")):
            driver.get(f"{SERVER.base}/r/{code}")
            wait_for(driver, lambda d: visible(d, "#gate-form"), "the gate")
            self.assertFalse(visible(driver, "#passcode"), "no passcode field for an open room")
            driver.find_element(By.ID, "join-button").click()
            wait_for(driver, lambda d: "name" in (text_of(d, "#gate-error") or ""), "a name is required")
            driver.find_element(By.ID, "presenter-name").send_keys(name)
            driver.find_element(By.ID, "join-button").click()
            wait_for(driver, lambda d: body_data(d, "connection") == "live", f"{name} in the room")
        click(first, "#request")
        wait_for(first, lambda d: attr(d, "#control-card", "data-state") == "waiting", "Cleo waiting")
        click(second, "#request")
        wait_for(second, lambda d: "queue is full" in (text_of(d, "#control-error") or ""), "the queue_full message")
        self.assertEqual(attr(second, "#control-card", "data-state"), "idle")
        screenshot(second, "room-presenter-queue-full")
        # A reload keeps the presenter in the room (same identity cookie, same name).
        presenter_id = body_data(first, "presenterId")
        first.refresh()
        wait_for(first, lambda d: body_data(d, "connection") == "live" and body_data(d, "presenterId") == presenter_id,
                 "Cleo back in after a reload")
        wait_for(first, lambda d: attr(d, "#control-card", "data-state") == "waiting", "still waiting after the reload")

    def test_room_ink(self):
        """Draw mode in a room: the moderator while driving, then the presenter in control; ink per deck; undo."""
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Ink room", "passcode": PASSCODE})
        self.assertEqual(status, 201, room)
        code = room["code"]
        demo = harness.DEMO_DECK["id"]
        status, added = SERVER.api("POST", f"/api/v1/sessions/{code}/decks", {"deckId": demo})
        self.assertEqual(status, 201, added)

        # The moderator drives: shows their deck, goes to page 2, draws a stroke there.
        moderator = self.driver(1440, 900)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: body_data(d, "connection") == "live", "the console to connect")
        self.assertFalse(visible(moderator, '[data-action="draw"]'), "no draw button while nothing is on the stage")
        click(moderator, f'#deckbar [data-deck-id="{demo}"]')
        wait_for(moderator, lambda d: slide_shown(d, demo, 1), "the moderator's deck on the console")
        self.press(moderator, Keys.ARROW_RIGHT)
        wait_for(moderator, lambda d: slide_shown(d, demo, 2) and body_data(d, "pending") == "0", "page 2 of the moderator's deck")

        projector = self.driver(1280, 720)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: slide_shown(d, demo, 2), "the projector on the moderator's page 2")
        viewer = self.driver(390, 844)
        self.join_as_viewer(viewer, code, passcode=PASSCODE)
        wait_for(viewer, lambda d: slide_shown(d, demo, 2), "the viewer on the moderator's page 2")

        self.assertFalse(visible(moderator, "#ink-bar"), "no ink tools outside draw mode")
        self.press(moderator, "d")
        wait_for(moderator, lambda d: visible(d, "#ink-bar"), "the moderator's ink tools")
        self.assertEqual(attr(moderator, '[data-action="draw"]', "aria-pressed"), "true")
        harness.wait_settled(moderator)
        draw(moderator, (-120, -30), [(20, 4)] * 10)
        wait_for(moderator, lambda d: body_data(d, "pending") == "0", "the moderator's stroke acknowledged")
        for driver, who in ((moderator, "moderator"), (projector, "projector"), (viewer, "viewer")):
            wait_for(driver, lambda d: stage_attr(d, "data-strokes") == "1", f"the moderator's stroke on the {who}")
        harness.dismiss_toasts(moderator)
        screenshot(moderator, "room-moderator-draw-mode")

        # Ann brings a deck and gets control: the moderator's draw mode ends.
        ann = self.driver(1280, 800)
        ann_id = self.join_presenter(ann, code, "Ann")
        deck_a = self.upload_deck(ann, moderator, DECK_A, 3)
        click(ann, "#request")
        grant = wait_for(moderator, lambda d: visible(d, f'.queue-item[data-presenter-id="{ann_id}"] [data-action="grant"]'),
                         "Ann's request on the console")
        grant.click()
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control")
        wait_for(moderator, lambda d: body_data(d, "drawMode") == "false" and not visible(d, "#ink-bar"),
                 "the moderator out of draw mode once control moved away")
        self.assertFalse(visible(moderator, '[data-action="draw"]'), "no draw button without control")

        # Page 2 of Ann's deck: the moderator's stroke (page 2 of another deck) is not on it.
        wait_for(ann, lambda d: slide_shown(d, deck_a, 1), "Ann's deck on her page")
        self.press(ann, Keys.ARROW_RIGHT)
        for driver, who in ((ann, "Ann"), (projector, "projector"), (viewer, "viewer"), (moderator, "moderator")):
            wait_for(driver, lambda d: slide_shown(d, deck_a, 2), f"Ann's page 2 on the {who}")
            self.assertEqual(stage_attr(driver, "data-strokes"), "0", f"no ink of another deck on the {who}")

        # Ann draws with the draw tools; everyone sees the stroke.
        click(ann, '[data-action="draw"]')
        wait_for(ann, lambda d: visible(d, "#ink-bar"), "Ann's ink tools")
        self.assertEqual(body_data(ann, "drawMode"), "true")
        ann.find_element(By.CSS_SELECTOR, '#ink-bar [data-color="#1e88e5"]').click()
        ann.find_element(By.CSS_SELECTOR, '#ink-bar [data-width="0.008"]').click()
        harness.wait_settled(ann)
        draw(ann, (-140, 40), [(25, -6)] * 10)
        wait_for(ann, lambda d: body_data(d, "pending") == "0", "Ann's stroke acknowledged")
        for driver, who in ((ann, "Ann"), (projector, "projector"), (viewer, "viewer"), (moderator, "moderator")):
            wait_for(driver, lambda d: stage_attr(d, "data-strokes") == "1", f"Ann's stroke on the {who}")
        self.assertEqual(stage_attr(ann, "data-page"), "2", "drawing does not turn the page")
        harness.dismiss_toasts(ann)
        screenshot(ann, "room-presenter-draw-mode")
        harness.wait_settled(viewer)
        # On a phone the title and the slide line keep a line of their own beside the bar's buttons.
        box = viewer.execute_script("""
            const t = document.querySelector('.watch-title'), s = document.getElementById('watch-title');
            return {w: t.getBoundingClientRect().width, sw: s.scrollWidth, cw: s.clientWidth};""")
        self.assertGreater(box["w"], 300, "the title has the width of the phone")
        self.assertLessEqual(box["sw"], box["cw"], "the room's title is not cut off on a phone")
        ActionChains(viewer).move_to_element_with_offset(viewer.find_element(By.CSS_SELECTOR, "podium-stage"), 10, 10).perform()
        wait_for(viewer, lambda d: not d.execute_script("return document.getElementById('watch').classList.contains('is-idle')"),
                 "the viewer's bar awake")
        screenshot(viewer, "room-viewer-phone-ink")

        # Undo on Ann's page takes it off the projector.
        ActionChains(ann).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(ann, lambda d: body_data(d, "pending") == "0", "the undo acknowledged")
        for driver, who in ((ann, "Ann"), (projector, "projector"), (viewer, "viewer")):
            wait_for(driver, lambda d: stage_attr(d, "data-strokes") == "0", f"the stroke gone from the {who}")

        # The moderator takes control back: Ann leaves draw mode; the moderator's deck keeps its ink.
        click(moderator, "#withdraw")
        wait_for(ann, lambda d: body_data(d, "drives") == "false", "Ann no longer in control")
        wait_for(ann, lambda d: body_data(d, "drawMode") == "false" and not visible(d, "#ink-bar"), "Ann out of draw mode")
        click(moderator, f'#deckbar [data-deck-id="{demo}"]')
        for driver, who in ((projector, "projector"), (viewer, "viewer")):
            wait_for(driver, lambda d: slide_shown(d, demo, 2) and stage_attr(d, "data-strokes") == "1",
                     f"the moderator's page 2 with its stroke on the {who}")

    def open_room(self, passcode=PASSCODE, server=None):
        status, room = (server or SERVER).api("POST", "/api/v1/rooms", {"title": "Questions room", "passcode": passcode})
        self.assertEqual(status, 201, room)
        return room["code"]

    def open_moderator(self, driver, code, base=None, token=None):
        base = base or SERVER.base
        driver.get(base + "/healthz")
        driver.add_cookie({"name": "podium_auth", "value": token or SERVER.token, "path": "/"})
        driver.get(f"{base}/r/{code}/moderate")
        wait_for(driver, lambda d: body_data(d, "connection") == "live", "the moderator console to connect")

    def test_room_links_are_the_servers(self):
        """A room opened as localhost: every link and QR code is the server's public address."""
        server = PublicURLServer()
        server.start()
        try:
            code = self.open_room(server=server)
            local = f"http://localhost:{server.port}"
            public = server.base  # http://127.0.0.1:port, the --public-url
            moderator = self.driver(1920, 1080)
            self.open_moderator(moderator, code, base=local, token=server.token)
            wait_for(moderator, lambda d: attr(d, "#join-qr", "data-url"), "the console's QR code")
            self.assertEqual(attr(moderator, "#join-qr", "data-url"), f"{public}/s/{code}")
            self.assertEqual(attr(moderator, "#link-audience", "href"), f"{public}/s/{code}")
            self.assertEqual(attr(moderator, "#link-presenter", "href"), f"{public}/r/{code}")
            self.assertEqual(attr(moderator, "#link-projector", "href"), f"{public}/r/{code}/projector")
            self.assertEqual(attr(moderator, "#open-projector", "href"), f"{public}/r/{code}/projector")
            self.assertIn(f"127.0.0.1:{server.port}/s/{code}", text_of(moderator, "#link-audience"))
            screenshot(moderator, "room-moderator-links")
            # The room's replay shared with everyone who has the link (docs/protocol.md, "Replay").
            wait_for(moderator, lambda d: visible(d, 'label[for="replay-shared"]'), "the replay switch")
            self.assertFalse(moderator.find_element(By.ID, "replay-shared").is_selected())
            click(moderator, 'label[for="replay-shared"]')
            wait_for(moderator, lambda d: server.api("GET", f"/api/v1/sessions/{code}")[1].get("replay") == "link",
                     "the room's replay shared")
            # The console on a phone: the panel (join, polls, questions) slides over from the bar.
            phone = self.driver(390, 844)
            self.open_moderator(phone, code, base=local, token=server.token)
            wait_for(phone, lambda d: not visible(d, "#join-qr"), "the panel out of the way on a phone")
            screenshot(phone, "room-moderator-phone")
            click(phone, "#code-chip")
            wait_for(phone, lambda d: visible(d, "#join-qr"), "the panel open on a phone")
            screenshot(phone, "room-moderator-phone-panel")

            projector = self.driver(1920, 1080)
            projector.get(local + "/healthz")
            projector.add_cookie({"name": "podium_auth", "value": server.token, "path": "/"})
            projector.get(f"{local}/r/{code}/projector")
            wait_for(projector, lambda d: visible(d, "#idle") and attr(d, "#idle-qr", "data-url"), "the projector's join screen")
            self.assertEqual(attr(projector, "#idle-qr", "data-url"), f"{public}/s/{code}")
            self.assertEqual(text_of(projector, "#idle-host"), f"127.0.0.1:{server.port}")

            presenter = self.driver(390, 844)
            presenter.get(f"{local}/r/{code}")
            wait_for(presenter, lambda d: attr(d, "#audience-link", "href") == f"{public}/s/{code}",
                     "the presenter's audience link")
            # On a phone the side panel slides over the page from the chip in the bar.
            wait_for(presenter, lambda d: visible(d, "#passcode"), "the passcode field")
            presenter.find_element(By.ID, "presenter-name").send_keys("Pia")
            presenter.find_element(By.ID, "passcode").send_keys(PASSCODE)
            presenter.find_element(By.ID, "join-button").click()
            wait_for(presenter, lambda d: body_data(d, "connection") == "live", "the presenter joined")
            self.assertFalse(visible(presenter, "#side-panel"), "the panel out of the way on a phone")
            click(presenter, "#code-chip")
            wait_for(presenter, lambda d: visible(d, "#tab-questions"), "the panel open")
            self.assertEqual(attr(presenter, "#link-audience", "href"), f"{public}/s/{code}")
            screenshot(presenter, "room-presenter-phone-panel")
            click(presenter, "#close-join")
            wait_for(presenter, lambda d: not visible(d, "#tab-questions"), "the panel closed")
            screenshot(presenter, "room-presenter-phone")
        finally:
            server.stop()

    def test_room_questions_polls_and_report(self):
        """Questions go to whoever had the stage; the presenter in control runs a poll the audience
        answers; the report lists both, with the presenter per question."""
        code = self.open_room()
        moderator = self.driver(1920, 1080)
        self.open_moderator(moderator, code)
        ann = self.driver(1280, 800)
        ann_id = self.join_presenter(ann, code, "Ann")
        viewer = self.driver(390, 844)
        viewer.get(f"{SERVER.base}/s/{code}")
        wait_for(viewer, lambda d: visible(d, "#gate-form"), "the viewer's gate")
        viewer.find_element(By.ID, "viewer-name").send_keys("Vi")
        viewer.find_element(By.ID, "passcode").send_keys(PASSCODE)
        viewer.find_element(By.ID, "join-button").click()
        wait_for(viewer, lambda d: visible(d, "#watch"), "the viewer watching")

        def ask(text):
            harness.dismiss_toasts(viewer)
            click(viewer, "#ask-button")
            wait_for(viewer, lambda d: visible(d, "#ask-text"), "the question form").send_keys(text)
            viewer.find_element(By.ID, "ask-send").click()
            wait_for(viewer, lambda d: not d.find_elements(By.ID, "ask-dialog"), "the question form to close")

        def questions(driver):
            return driver.execute_script(
                "return [...document.querySelectorAll('#pane-questions .question-item .question-text')].map(e => e.textContent)")

        # While the moderator has the stage: the question is the moderator's alone.
        ask("For the moderator?")
        moderator.find_element(By.ID, "tab-questions").click()
        wait_for(moderator, lambda d: questions(d) == ["For the moderator?"], "the question on the console")
        ann.find_element(By.ID, "tab-questions").click()
        self.assertEqual(questions(ann), [], "not Ann's turn")
        # Without the stage Ann cannot poll the audience; her polls tab says so.
        ann.find_element(By.ID, "tab-polls").click()
        wait_for(ann, lambda d: visible(d, "#polls-hint"), "the hint to ask for the stage first")
        self.assertFalse(visible(ann, '[data-action="ask-adhoc"]'))
        ann.find_element(By.ID, "tab-questions").click()

        # Ann's turn: her question reaches her, and the moderator, not the other way round.
        moderator.find_element(By.CSS_SELECTOR, f'.presenter-item[data-presenter-id="{ann_id}"] [data-action="grant"]').click()
        wait_for(ann, lambda d: body_data(d, "drives") == "true", "Ann in control")
        ann.find_element(By.ID, "tab-polls").click()
        wait_for(ann, lambda d: visible(d, '[data-action="ask-adhoc"]') and not visible(d, "#polls-hint"),
                 "Ann may poll with the stage")
        ann.find_element(By.ID, "tab-questions").click()
        ask("For Ann?")
        wait_for(ann, lambda d: questions(d) == ["For Ann?"], "the question of Ann's turn on her page")
        wait_for(moderator, lambda d: sorted(questions(d)) == ["For Ann?", "For the moderator?"], "both on the console")
        screenshot(ann, "room-presenter-questions")

        # Ann, in control, asks the audience; the viewer answers; her chart counts it.
        ann.find_element(By.ID, "tab-polls").click()
        ann.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]').click()
        wait_for(ann, lambda d: visible(d, "#poll-question"), "the poll editor")
        ann.find_element(By.ID, "poll-question").send_keys("Tea or coffee?")
        choices = ann.find_elements(By.CSS_SELECTOR, '#poll-editor [data-role="choice"]')
        choices[0].send_keys("Tea")
        choices[1].send_keys("Coffee")
        ann.find_element(By.CSS_SELECTOR, '#poll-editor [data-action="send-adhoc"]').click()
        wait_for(ann, lambda d: attr(d, "#active-poll", "data-poll-status") == "open", "the poll open on Ann's page")
        wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"]'), "the poll on the viewer")
        harness.dismiss_toasts(viewer)
        viewer.find_element(By.CSS_SELECTOR, '#poll-sheet .poll-option[data-index="1"]').click()
        viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(viewer, lambda d: attr(d, "#poll-sheet", "data-answered") == "true", "the answer acknowledged")
        screenshot(viewer, "room-viewer-poll")
        wait_for(ann, lambda d: attr(d, '[data-role="response-rate"]', "data-answered") == "1", "one answer on Ann's chart")
        moderator.find_element(By.ID, "tab-polls").click()
        wait_for(moderator, lambda d: attr(d, '[data-role="response-rate"]', "data-answered") == "1", "and on the console")
        screenshot(moderator, "room-moderator-polls")

        # The report: the poll, and each question with whose turn it came in.
        moderator.get(f"{SERVER.base}/report.html?code={code}")
        wait_for(moderator, lambda d: attr(d, "main#report", "data-state") == "ready", "the report")
        presenters = moderator.execute_script(
            "return [...document.querySelectorAll('.report-question')].map(e => e.dataset.presenter)")
        self.assertEqual(sorted(presenters), ["Ann", "the moderator"])
        self.assertEqual(len(moderator.find_elements(By.CSS_SELECTOR, ".report-poll")), 1)
        self.assertIn("Tea or coffee?", text_of(moderator, ".report-poll"))
        screenshot(moderator, "room-report")

    def test_room_arrow_keys_from_the_side_panel(self):
        """Arrow keys change slide while a side-panel tab has the focus (not only the stage)."""
        session = SERVER.start_session(harness.DEMO_DECK["id"])
        presenter = self.driver(1280, 800)
        self.sign_in_with_cookie(presenter)
        self.open_console(presenter, session["code"])
        tab = presenter.find_element(By.ID, "tab-polls")
        tab.click()
        wait_for(presenter, lambda d: d.execute_script("return document.activeElement.id") == "tab-polls", "the tab focused")
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(presenter, lambda d: stage_attr(d, "data-page") == "2", "the next slide from a focused tab")
        self.assertEqual(presenter.execute_script("return document.activeElement.id"), "tab-polls", "the tab kept the focus")
        self.assertEqual(attr(presenter, "#tab-polls", "aria-selected"), "true", "the arrow did not switch tabs")
        button = presenter.find_element(By.CSS_SELECTOR, '[data-action="ask-adhoc"]')
        presenter.execute_script("arguments[0].focus()", button)
        self.press(presenter, Keys.ARROW_LEFT)
        wait_for(presenter, lambda d: stage_attr(d, "data-page") == "1", "the previous slide from a focused button")
        # In a text field the arrows are the text's.
        button.click()
        field = wait_for(presenter, lambda d: visible(d, "#poll-question"), "the poll editor")
        field.send_keys("abc" + Keys.ARROW_LEFT)
        self.wait_synced(presenter)
        self.assertEqual(stage_attr(presenter, "data-page"), "1")

