#!/usr/bin/python3
"""The page-health sweep (#36): every page, in the states a person reaches, at phone 390x844,
tablet 820x1180, laptop 1440x900 and projector 1920x1080, fails on

- sideways scrolling (the page wider than the screen);
- a visible <video>, <canvas>, <img class=current> or player of zero width or height;
- an interactive control (button, link, field, [role=button], ...) that shows but is covered by
  another element: `elementsFromPoint` at its centre, once scrolled into view as a person would,
  finds something else on top; and a results chart covered likewise (at its rows' ends and middle);
- axe-core's serious and critical findings (WCAG 2.0-2.2 A and AA).

What is off-screen on purpose is left out honestly: visually-hidden text and skip links (until
focused), controls in closed or hidden panels (not rendered, clipped away by a closed drawer,
inert, or outside the screen where no scrolling reaches), and, while a modal dialog is open, the
page behind it. A screenshot of every page and state is kept in
``test-artifacts/screenshots/health/<page>-<state>-<size>.png``.

One test per page group and size, each on a class of its own (its own server): the entry pages
and the storyboards, a live session (presenting, poll open, results on screen, ended: viewer,
console, the big screen, the report), a room, and the channel (signed out, as a member, admin).
Alone:  python3 Tests/Browser/run_browser_tests.py health
"""

import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

harness = sys.modules.get("run_browser_tests")
if harness is None:  # imported directly: load the harness under its own name
    import run_browser_tests as harness  # noqa: E402

from selenium.webdriver.common.by import By  # noqa: E402

import test_screens  # noqa: E402  (axe-core's findings, shared with the screens test)

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot
text_of = harness.text_of

SIZES = test_screens.SIZES


def setUpModule():
    if not DEMO_DECK or not SERVER.proc or SERVER.proc.poll() is not None:
        harness.setUpModule()


def tearDownModule():
    harness.tearDownModule()


# What a person sees, measured in the page: media of zero size, controls and charts covered.
HEALTH_JS = r"""
// The area elementsFromPoint reaches (a phone zoomed out to a page too wide has more of it).
const W = innerWidth, H = innerHeight;
const findings = [];
const name = (e) => {
  if (!e) return 'nothing';
  let s = e.tagName.toLowerCase();
  if (e.id) s += '#' + e.id;
  for (const c of [...e.classList].slice(0, 3)) s += '.' + c;
  for (const a of ['data-action', 'data-role', 'data-section', 'aria-label']) {
    if (e.hasAttribute && e.hasAttribute(a)) s += `[${a}="${e.getAttribute(a).slice(0, 30)}"]`;
  }
  const text = (e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 30);
  return text && e.children.length < 4 ? `${s} "${text}"` : s;
};
const shown = (e) => e.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true });
// Visually hidden on purpose: clipped to nothing (.visually-hidden) or a pixel in size.
const visuallyHidden = (e, r) => {
  const s = getComputedStyle(e);
  return r.width <= 1 || r.height <= 1 || s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)';
};
// A closed panel: an ancestor that clips (overflow hidden or clip, not a scroller) leaves nothing
// of it showing, or an ancestor is zero-sized and clips. Scrollers are reached by scrolling.
const clippedAway = (e, r) => {
  for (let a = e.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
    const s = getComputedStyle(a);
    const clips = [s.overflowX, s.overflowY].some((o) => o === 'hidden' || o === 'clip');
    const scrolls = [s.overflowX, s.overflowY].some((o) => o === 'auto' || o === 'scroll');
    if (!clips || scrolls) continue;
    const b = a.getBoundingClientRect();
    // (Something of zero size counts as a pixel here: it is placed inside the panel or not.)
    const w = Math.min(r.left + Math.max(r.width, 1), b.right) - Math.max(r.left, b.left);
    const h = Math.min(r.top + Math.max(r.height, 1), b.bottom) - Math.max(r.top, b.top);
    if (w <= 0 || h <= 0) return true;
  }
  return false;
};
const modal = document.querySelector('dialog:modal');
const inScope = (e) => !e.closest('[inert]') && (!modal || modal.contains(e));

// 1. Media and players of zero size.
for (const e of document.querySelectorAll('video, canvas, img.current, audio[controls], .video-js, [data-role$="-player"]')) {
  if (!shown(e) || !inScope(e)) continue;
  const r = e.getBoundingClientRect();
  if (clippedAway(e, r)) continue;
  if (r.width < 1 || r.height < 1) findings.push(`${name(e)} shows at zero size (${Math.round(r.width)}x${Math.round(r.height)})`);
}

// 2. Controls and charts covered by something else. Each is scrolled into view first (as a
// person scrolls to reach it); every scroll position is put back at the end.
const saved = new Map();
const save = (e) => {
  for (let a = e.parentElement; a; a = a.parentElement) {
    if (!saved.has(a) && (a.scrollHeight > a.clientHeight || a.scrollWidth > a.clientWidth)) saved.set(a, [a.scrollLeft, a.scrollTop]);
  }
};
const windowScroll = [scrollX, scrollY];
const inView = (x, y) => x >= 0 && y >= 0 && x < W && y < H;
// A panel the person opened over the page (its toggle says aria-expanded=true and names it in
// aria-controls) covers what is under it on purpose, until it is closed again.
const opened = [...document.querySelectorAll('[aria-expanded="true"][aria-controls]')]
  .flatMap((t) => t.getAttribute('aria-controls').split(/\s+/)).map((id) => document.getElementById(id)).filter(Boolean);
const onTop = (e, x, y) => {
  const top = document.elementsFromPoint(x, y)[0];
  const ok = !top || top === e || e.contains(top) || top.contains(e)
    || opened.some((panel) => panel.contains(top) && !panel.contains(e));
  return { ok, top };
};
const reach = (e) => {
  let r = e.getBoundingClientRect();
  if (!inView(r.left + r.width / 2, r.top + r.height / 2)) {
    save(e);
    e.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    r = e.getBoundingClientRect();
  }
  return r;
};
const CONTROLS = 'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], '
  + '[role=tab], [role=switch], [role=checkbox], [role=radio], [role=menuitem], [role=option], [role=slider], '
  + '[tabindex]:not([tabindex="-1"]), video[controls], audio[controls]';
let checked = 0;
for (const e of document.querySelectorAll(CONTROLS)) {
  if (!shown(e) || !inScope(e) || e.closest('[aria-hidden="true"]')) continue;
  let r = e.getBoundingClientRect();
  if (visuallyHidden(e, r) || clippedAway(e, r)) continue;
  r = reach(e);
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (!inView(x, y)) {
    // Wholly outside the screen where no scrolling brings it (a skip link above the page, a
    // drawer slid out): off-screen on purpose. Half out: cut off by the screen's edge.
    const outside = r.right <= 0 || r.bottom <= 0 || r.left >= W || r.top >= H;
    if (!outside) findings.push(`${name(e)} is cut off by the screen's edge (its centre at ${Math.round(x)},${Math.round(y)})`);
    continue;
  }
  checked += 1;
  const { ok, top } = onTop(e, x, y);
  if (!ok) findings.push(`${name(e)} is covered by ${name(top)}`);
}
// A chart of results: its rows at the start, middle and end (where the figures are).
for (const e of document.querySelectorAll('.bar-row, .spot-bar, .spot-word, [data-role=chart] canvas')) {
  if (!shown(e) || !inScope(e)) continue;
  let r = e.getBoundingClientRect();
  if (visuallyHidden(e, r) || clippedAway(e, r)) continue;
  r = reach(e);
  for (const f of [0.05, 0.5, 0.95]) {
    const x = r.left + r.width * f, y = r.top + r.height / 2;
    if (!inView(x, y)) continue;
    const { ok, top } = onTop(e, x, y);
    if (!ok) { findings.push(`the results chart's ${name(e)} is covered by ${name(top)}`); break; }
  }
}
for (const [a, [left, top]] of saved) { a.scrollLeft = left; a.scrollTop = top; }
window.scrollTo({ left: windowScroll[0], top: windowScroll[1], behavior: 'instant' });
return { findings, checked };
"""


def page_findings(driver):
    """What the sweep finds on the page as it is now (without axe-core)."""
    result = driver.execute_script(HEALTH_JS)
    found = list(result["findings"])
    overflow = driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    if overflow > 1:
        found.append(f"the page scrolls sideways: {overflow}px wider than the screen")
    return found


def socket_command(driver, code, hello, message):
    """Sends one command on a socket of its own from this browser's page (its cookies: a signed-in
    presenter or moderator), waits for its answer and returns it."""
    return driver.execute_async_script(r"""
        const [code, hello, message, done] = arguments;
        const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host
            + '/api/v1/sessions/' + code + '/live');
        const id = 'health-' + Date.now() + '-' + Math.random().toString(16).slice(2);
        ws.onopen = () => ws.send(JSON.stringify(hello));
        ws.onerror = () => done({ type: 'error', code: 'socket' });
        ws.onmessage = (event) => {
          const m = JSON.parse(event.data);
          if (m.type === 'welcome') ws.send(JSON.stringify(Object.assign({ id }, message)));
          else if ((m.type === 'ack' && m.id === id) || m.type === 'error') { ws.close(); done(m); }
        };""", code, hello, message)


# Findings on pages that other parts of #36 are changing at the time of writing (the console's
# presenter view, the viewer's poll cards, rooms): printed, not failed on, until those parts land.
# Each entry is (page, a piece of the finding's text), each seen in the sweep's full run at 00:45 on
# 29 November 2026, and should go once its page is fixed; the sweep fails on anything else.
KNOWN = [
]


def known(finding):
    return any(finding.startswith(page) and piece in finding for page, piece in KNOWN)


class HealthTest(BrowserTest):
    """The sweep's check, screenshot and findings, shared by the page groups."""

    def setUp(self):
        super().setUp()
        self.assertTrue(harness.AXE_JS.is_file(), f"axe-core is missing at {harness.AXE_JS}: run scripts/setup --test")
        self.findings = []
        self.notes = []

    def check(self, driver, page, state, size):
        """Screenshot, layout checks and axe-core on the page as it is now."""
        shot = f"health/{page}-{state}-{size}" if state else f"health/{page}-{size}"
        screenshot(driver, shot)
        where = f"{page} ({state}) at {size}" if state else f"{page} at {size}"
        started = time.monotonic()
        self.findings += [f"{where}: {line}" for line in page_findings(driver)]
        harness.profiled("(the health sweep's own checks)", started)
        self.findings += [f"{where}: {line}" for line in test_screens.axe_findings(driver)]

    def done(self):
        for note in self.notes:
            print(f"\n  note: {note}", file=sys.stderr)
        for finding in self.findings:
            if known(finding):
                print(f"\n  known (another part of #36): {finding}", file=sys.stderr)
        found = [finding for finding in self.findings if not known(finding)]
        self.assertEqual(found, [], "\n  ".join(["page-health findings:"] + found))

    def ready(self, driver, what):
        """The page's words in and its script run (body[data-ready] where the page sets it)."""
        harness.wait_translated(driver)
        wait_for(driver, lambda d: d.execute_script(
            "return document.body.dataset.ready === undefined || document.body.dataset.ready === 'true'"), what)


def create_storyboard(title):
    status, board = SERVER.api("POST", "/api/v1/storyboards", {"title": title})
    assert status == 201, (status, board)
    return board


# A page for the sweep's own test, built with the DOM (the server's CSP allows no inline styles).
BUILD_TEST_PAGE = r"""
document.body.replaceChildren();
const add = (tag, props, style, parent = document.body) => {
  const e = Object.assign(document.createElement(tag), props);
  Object.assign(e.style, style);
  parent.append(e);
  return e;
};
add('a', { className: 'skip-link', href: '#main', textContent: 'Skip' }, {});
add('span', { className: 'visually-hidden', textContent: 'Hidden words' }, {});
add('button', { id: 'fine', textContent: 'Fine' }, { margin: '20px' });
add('button', { id: 'covered', textContent: 'Covered' }, { position: 'absolute', top: '100px', left: '20px' });
const sheet = add('div', { id: 'sheet', textContent: 'An opened panel' }, { position: 'absolute', top: '40px', left: '200px', width: '150px', height: '60px', background: '#ddd' });
add('button', { id: 'under-sheet', textContent: 'Under' }, { position: 'absolute', top: '50px', left: '210px' });
document.body.append(sheet);  // (drawn after the button: on top of it)
add('button', { id: 'sheet-toggle', textContent: 'Panel', ariaExpanded: 'true' }, { position: 'absolute', top: '10px', left: '200px' }).setAttribute('aria-controls', 'sheet');
add('div', { id: 'banner', textContent: 'A banner' }, { position: 'absolute', top: '90px', left: '0', width: '300px', height: '60px', background: '#eee' });
add('canvas', { id: 'flat', width: 120, height: 0 }, { display: 'block', width: '120px', height: '0' });
const stage = add('div', { id: 'stage' }, { overflow: 'hidden', minHeight: '60px', background: '#000' });
add('video', { id: 'flat-video' }, { display: 'block', width: '100%', height: '0' }, stage);
const drawer = add('nav', { id: 'drawer' }, { position: 'fixed', top: '0', left: '100%', width: '300px', height: '100%' });
add('button', { id: 'in-drawer', textContent: 'In the drawer' }, {}, drawer);
const panel = add('div', { id: 'closed' }, { overflow: 'hidden', height: '0' });
add('button', { id: 'in-closed', textContent: 'In a closed panel' }, {}, panel);
add('div', {}, { height: '1500px' });
add('button', { id: 'below', textContent: 'Below the fold' }, {});
const chart = add('div', { id: 'chart' }, { position: 'relative', width: '300px' });
add('div', { id: 'row', className: 'bar-row', textContent: 'Tea 3' }, { height: '40px', background: '#ccd' }, chart);
add('div', { id: 'card', textContent: 'Vote now' }, { position: 'absolute', top: '0', left: '220px', width: '80px', height: '40px', background: '#fff' }, chart);
const modal = add('dialog', { id: 'modal' }, {});
add('button', { id: 'in-modal', textContent: 'OK' }, {}, modal);
"""


class EntryPages(HealthTest):
    """Home, sign-in, the join gate, the library (with the go-live dialog open), rehearsal and the
    storyboards (the project page and the shot editor)."""

    @classmethod
    def setUpClass(cls):
        cls.fixture = None

    def fixtures(self):
        cls = type(self)
        if cls.fixture is None:
            session = SERVER.start_session(DEMO_DECK["id"])
            board = create_storyboard("Health check")
            shot = board["content"]["scenes"][0]["shots"][0]["id"]
            cls.fixture = {"code": session["code"], "board": board["id"], "shot": shot}
        return cls.fixture

    def entry(self, size):
        """Home (signed out and in), sign-in and the join gate."""
        fixture = self.fixtures()
        width, height = SIZES[size]
        visitor = self.driver(width, height)
        visitor.get(SERVER.base + "/")
        wait_for(visitor, lambda d: visible(d, "#code"), "the home page")
        self.ready(visitor, "the home page's script")
        wait_for(visitor, lambda d: d.execute_script("return document.body.dataset.account") == "signed-out",
                 "the home page knows nobody is signed in")
        self.assertEqual(visitor.find_element(By.ID, "presenter-link").get_attribute("pathname"), "/login")
        self.check(visitor, "home", "signed-out", size)
        visitor.get(SERVER.base + "/login")
        wait_for(visitor, lambda d: visible(d, "#email"), "the sign-in page")
        self.ready(visitor, "the sign-in page's script")
        self.check(visitor, "login", None, size)
        # Accounts by email (#43): "Forgot password?" and an invitation's page. This server has no
        # mail relay: the reset page says who can help, the invitation's answer carries its link.
        visitor.get(SERVER.base + "/reset-password")
        wait_for(visitor, lambda d: visible(d, "#reset-done"), "the password reset page")
        assert "administrator" in (text_of(visitor, "#reset-done-text") or ""), text_of(visitor, "#reset-done-text")
        self.ready(visitor, "the password reset page's script")
        self.check(visitor, "reset-password", None, size)
        status, invitation = SERVER.api("POST", "/api/v1/invitations", {"email": f"health-{size}@school.test"})
        assert status == 201, (status, invitation)
        visitor.get(invitation["link"])
        wait_for(visitor, lambda d: visible(d, "#invitation-form"), "the invitation page")
        self.ready(visitor, "the invitation page's script")
        self.check(visitor, "invitation", None, size)
        visitor.get(f"{SERVER.base}/s/{fixture['code']}")
        wait_for(visitor, lambda d: visible(d, "#gate-form"), "the join gate")
        self.ready(visitor, "the join gate's script")
        self.check(visitor, "join", None, size)
        visitor.get(f"{SERVER.base}/s/ZZZZZZ")  # a mistyped code: the dead end
        wait_for(visitor, lambda d: visible(d, "#not-found"), "the not-found page")
        self.ready(visitor, "the not-found page's script")
        self.check(visitor, "not-found", None, size)
        self.sign_in_with_cookie(visitor)
        visitor.get(SERVER.base + "/")
        wait_for(visitor, lambda d: visible(d, "#code"), "the home page")
        self.ready(visitor, "the home page's script")
        # Signed in, the header offers the library instead of a sign-in already done.
        wait_for(visitor, lambda d: d.execute_script("return document.body.dataset.account") == "signed-in",
                 "the home page knows who is signed in")
        link = visitor.find_element(By.ID, "presenter-link")
        self.assertTrue(link.is_displayed())
        self.assertEqual((link.get_attribute("pathname"), link.text), ("/library", "Go to the library"))
        self.check(visitor, "home", "signed-in", size)
        self.done()

    def library(self, size):
        """The library (decks, storyboards), its go-live dialog, rehearsal, a storyboard and its
        shot editor."""
        fixture = self.fixtures()
        width, height = SIZES[size]
        host = self.driver(width, height)
        self.sign_in_with_cookie(host)
        host.get(SERVER.base + "/library")
        card = f'.deck-card[data-deck-id="{DEMO_DECK["id"]}"][data-status="ready"]'
        wait_for(host, lambda d: visible(d, card), "the library's demo deck")
        wait_for(host, lambda d: visible(d, f'li.storyboard-card[data-storyboard-id="{fixture["board"]}"]'), "the storyboard's card")
        self.ready(host, "the library's script")
        self.check(host, "library", None, size)
        host.find_element(By.CSS_SELECTOR, card + ' [data-action="golive"]').click()
        wait_for(host, lambda d: visible(d, "#golive-dialog"), "the go-live dialog")
        self.check(host, "library", "go-live", size)
        host.get(f"{SERVER.base}/decks/{DEMO_DECK['id']}")
        wait_for(host, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the rehearsal")
        harness.wait_settled(host)
        self.check(host, "rehearsal", None, size)
        host.get(f"{SERVER.base}/storyboard.html?id={fixture['board']}")
        wait_for(host, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the storyboard page")
        wait_for(host, lambda d: d.find_elements(By.CSS_SELECTOR, ".sb-shot"), "the shot cards")
        self.check(host, "storyboard", None, size)
        # The export format's longest name fits its field (it was cut on a phone and a tablet):
        # the text in the field's font, its padding and the arrow within the field's width.
        fit = host.execute_script("""
            const field = document.getElementById('export-format');
            const style = getComputedStyle(field);
            const context = document.createElement('canvas').getContext('2d');
            context.font = style.font;
            const text = Math.max(...[...field.options].map((o) => context.measureText(o.text).width));
            return { text, needs: text + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 24,
                     width: field.getBoundingClientRect().width };""")
        self.assertLessEqual(fit["needs"], fit["width"], f"{size}: the export format's name is cut ({fit})")
        host.get(f"{SERVER.base}/sketch.html?id={fixture['board']}&shot={fixture['shot']}")
        wait_for(host, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the shot editor")
        wait_for(host, lambda d: d.execute_script("return document.getElementById('stage').dataset.shotRect"), "the shot drawn")
        self.check(host, "sketch", None, size)
        toggle = visible(host, "#panel-toggle")
        if toggle and toggle.get_attribute("aria-expanded") != "true":  # (folded away on a phone and a tablet)
            toggle.click()
            wait_for(host, lambda d: visible(d, "#layers"), "the layers panel")
            self.check(host, "sketch", "panel-open", size)
        self.done()


POLL = {"type": "openPoll", "poll": {"kind": "choice", "question": "Which planet is largest?",
                                     "choices": ["Mars", "Jupiter", "Venus"], "multiple": False, "correct": [1],
                                     "showResults": False}}


def big_screen_url(code):
    """The session's big-screen page, when the server has one (another part of #36 builds it)."""
    request = urllib.request.Request(f"{SERVER.base}/s/{code}/screen", method="GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return f"{SERVER.base}/s/{code}/screen" if response.status == 200 else None
    except OSError:
        return None


class LivePages(HealthTest):
    """A live session as its people see it: the viewer (a phone or whatever the size is), the
    presenter's console, and the big screen; presenting, poll open, results on screen, ended;
    then the report."""

    def open_people(self, size):
        width, height = SIZES[size]
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        host = self.driver(width, height)
        self.sign_in_with_cookie(host)
        self.open_console(host, code)
        viewer = self.driver(width, height)
        self.join_as_viewer(viewer, code, name="Ines")
        screen = None
        url = big_screen_url(code)
        if url is None:
            self.notes.append(f"no big-screen page at /s/{code}/screen yet: not swept")
        else:
            screen = self.driver(width, height)
            self.sign_in_with_cookie(screen)
            screen.get(url)
            self.ready(screen, "the big screen")
        people = [("viewer", viewer), ("console", host)] + ([("screen", screen)] if screen else [])
        return code, host, viewer, people

    def check_all(self, people, state, size):
        for page, driver in people:
            self.check(driver, page, state, size)

    def command(self, host, code, message):
        answer = socket_command(host, code, {"type": "hello", "role": "presenter"}, message)
        self.assertEqual(answer.get("type"), "ack", answer)
        return answer

    def presenting_and_poll_open(self, size):
        code, host, viewer, people = self.open_people(size)
        for _, driver in people:
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "a slide on show")
            harness.wait_settled(driver)
        self.check_all(people, "presenting", size)
        self.command(host, code, POLL)
        wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] .poll-option'), "the poll on the viewer")
        wait_for(host, lambda d: test_screens.attr(d, "#active-poll", "data-poll-status") == "open", "the poll on the console")
        self.check_all(people, "poll-open", size)
        self.done()

    def results_on_screen(self, size):
        """A poll answered and closed, its chart on screen."""
        code, host, viewer, people = self.open_people(size)
        self.command(host, code, POLL)
        wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] .poll-option'), "the poll on the viewer")
        viewer.find_element(By.CSS_SELECTOR, '#poll-sheet .poll-option[data-index="1"]').click()
        viewer.find_element(By.CSS_SELECTOR, '[data-action="submit-answer"]').click()
        wait_for(viewer, lambda d: test_screens.attr(d, "#poll-sheet", "data-answered") == "true", "the answer held")
        poll_id = wait_for(host, lambda d: test_screens.attr(d, "#active-poll", "data-poll-id"), "the poll's id on the console")
        self.command(host, code, {"type": "closePoll", "pollId": int(poll_id)})
        self.command(host, code, {"type": "spotlight", "spotlight": {"kind": "pollResults", "pollId": int(poll_id)}})
        for _, driver in people:
            wait_for(driver, lambda d: d.execute_script(
                "return document.querySelectorAll('.spot-bar, #active-poll .bar-row').length > 0"), "the results on show")
        self.check_all(people, "results-on-screen", size)
        self.done()

    def ended(self, size):
        """A session ended while a poll was open."""
        code, host, viewer, people = self.open_people(size)
        self.command(host, code, POLL)
        wait_for(viewer, lambda d: visible(d, '#poll-sheet[data-poll-status="open"] .poll-option'), "the poll on the viewer")
        status, _ = SERVER.api("POST", f"/api/v1/sessions/{code}/end")
        self.assertIn(status, (200, 204))
        wait_for(viewer, lambda d: text_of(d, "#status-text") == "Session ended", "the viewer told the session ended")
        wait_for(host, lambda d: visible(d, "#ended-overlay"), "the console's ended notice")
        self.check_all(people, "ended", size)
        self.done()

    def report(self, size):
        """The report of a session that ended with a poll in it."""
        width, height = SIZES[size]
        code = SERVER.start_session(DEMO_DECK["id"])["code"]
        host = self.driver(width, height)
        self.sign_in_with_cookie(host)
        host.get(SERVER.base + "/healthz")
        self.command(host, code, POLL)
        self.command(host, code, {"type": "closePoll", "pollId": 1})
        status, _ = SERVER.api("POST", f"/api/v1/sessions/{code}/end")
        self.assertIn(status, (200, 204))
        host.get(f"{SERVER.base}/report.html?code={code}")
        wait_for(host, lambda d: test_screens.attr(d, "main#report", "data-state") == "ready", "the report")
        wait_for(host, lambda d: d.find_elements(By.CSS_SELECTOR, ".report-poll .bar-row"), "the poll's chart in the report")
        self.check(host, "report", None, size)
        self.done()


class RoomPages(HealthTest):
    """A room: the moderator's console, the projector (idle, then a deck on the stage), a
    presenter's gate and page."""

    def sweep(self, size, presenting):
        """Idle (the moderator, the projector's join screen, a presenter's gate), or presenting
        (a deck on the stage: the moderator, the projector and a presenter who joined)."""
        width, height = SIZES[size]
        status, room = SERVER.api("POST", "/api/v1/rooms", {"title": "Health room"})
        self.assertEqual(status, 201, room)
        code = room["code"]
        moderator = self.driver(width, height)
        self.sign_in_with_cookie(moderator)
        moderator.get(f"{SERVER.base}/r/{code}/moderate")
        wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the room console")
        self.ready(moderator, "the room console's script")
        projector = self.driver(width, height)
        self.sign_in_with_cookie(projector)
        projector.get(f"{SERVER.base}/r/{code}/projector")
        wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
        if not presenting:
            self.check(moderator, "room-moderator", "idle", size)
            self.check(projector, "room-projector", "idle", size)

        presenter = self.driver(width, height)
        presenter.get(f"{SERVER.base}/r/{code}")
        wait_for(presenter, lambda d: visible(d, "#gate-form"), "the presenter's gate")
        self.ready(presenter, "the presenter's gate's script")
        if not presenting:
            self.check(presenter, "room-presenter", "gate", size)
            self.done()
            return
        presenter.find_element(By.ID, "presenter-name").send_keys("Ann")
        presenter.find_element(By.ID, "join-button").click()
        wait_for(presenter, lambda d: d.execute_script("return document.body.dataset.connection") == "live"
                 and d.execute_script("return document.body.dataset.presenterId"), "Ann in the room")

        # The moderator puts a deck of the library on the stage.
        status, added = SERVER.api("POST", f"/api/v1/sessions/{code}/decks", {"deckId": DEMO_DECK["id"]})
        self.assertEqual(status, 201, added)
        answer = socket_command(moderator, code, {"type": "hello", "role": "moderator"},
                                {"type": "showDeck", "deckId": added["deckId"]})
        self.assertEqual(answer.get("type"), "ack", answer)
        for driver in (projector, moderator, presenter):
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "podium-stage img.current"), "the deck on the stage")
            harness.wait_settled(driver)
        self.check(moderator, "room-moderator", "presenting", size)
        self.check(projector, "room-projector", "presenting", size)
        self.check(presenter, "room-presenter", "joined", size)
        self.done()


CHANNEL = {}


def seed_channel():
    """A short clip (free) in a category, a station of one short tone, two places and two quizzes:
    made once per server, as cheaply as the pages allow (a 3 s clip at 320x180)."""
    if CHANNEL.get("base") == SERVER.base:
        return CHANNEL
    with tempfile.TemporaryDirectory() as scratch:
        clip = Path(scratch) / "clip.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=10:duration=3",
             "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:v", "libx264", "-preset", "ultrafast",
             "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(clip)], check=True)
        status, video = SERVER.request("POST", "/api/v1/videos?title=Health", token=SERVER.token,
                                       raw=clip.read_bytes(), content_type="video/mp4")
        assert status == 201, (status, video)
        tone = Path(scratch) / "tone.mp3"
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=4",
                        "-c:a", "libmp3lame", str(tone)], check=True)
        status, radio = SERVER.api("POST", "/api/v1/channel/radios", {"name": "Folk Radio", "description": "Polkas and waltzes"})
        assert status == 201, (status, radio)
        status, track = SERVER.request(
            "POST", f"/api/v1/channel/radios/{radio['id']}/tracks?title=Polka%20in%20A&artist=The%20Band",
            token=SERVER.token, raw=tone.read_bytes(), content_type="audio/mpeg")
        assert status == 201, (status, track)
    status, category = SERVER.api("POST", "/api/v1/channel/pois/categories", {"name": "Sights"})
    assert status == 201, (status, category)
    places = []
    for name, lat, lon in (("Pražský hrad", 50.0911, 14.4016), ("Špilberk", 49.1946, 16.5994)):
        status, place = SERVER.api("POST", "/api/v1/channel/pois", {
            "name": name, "latitude": lat, "longitude": lon, "address": "Hradčany, 119 08 Praha 1",
            "categoryId": category["id"], "published": True, "openingHours": "Daily 9–17"})
        assert status == 201, (status, place)
        places.append(place["id"])
    for name in ("Czech towns", "Prague"):
        status, quiz = SERVER.api("POST", "/api/v1/channel/quizzes", {
            "name": name, "description": "Questions about " + name, "published": True,
            "questions": [{"text": "Capital of Czechia?", "answers": [{"text": "Brno", "correct": False}, {"text": "Praha", "correct": True}]},
                          {"text": "A river of Prague?", "answers": [{"text": "Vltava", "correct": True}, {"text": "Dunaj", "correct": False}]}],
        })
        assert status == 201, (status, quiz)
    # A signed-out person takes only the newest quiz: the server says which (two published in the
    # same instant are ordered by id).
    status, listed = SERVER.api("GET", "/api/v1/channel/quizzes")
    assert status == 200 and len(listed) == 2, (status, listed)
    deadline = time.monotonic() + 120
    while True:  # the clip and the track packaged
        _, packaged = SERVER.api("GET", f"/api/v1/videos/{video['id']}")
        _, tracks = SERVER.api("GET", f"/api/v1/channel/radios/{radio['id']}/tracks")
        if packaged["status"] in ("ready", "failed") and all(t["status"] in ("ready", "failed") for t in tracks):
            assert packaged["status"] == "ready" and all(t["status"] == "ready" for t in tracks), (packaged, tracks)
            break
        assert time.monotonic() < deadline, (packaged, tracks)
        time.sleep(0.25)
    status, video_category = SERVER.api("POST", "/api/v1/channel/videos/categories", {"name": "Czech kitchen"})
    assert status == 201, (status, video_category)
    status, published = SERVER.api("POST", "/api/v1/channel/videos", {
        "videoId": video["id"], "categoryId": video_category["id"], "title": "Dumplings for everyone",
        "description": "Bread dumplings.", "published": True, "free": True,
        "chapters": [{"start": 0, "title": "Dough"}, {"start": 2, "title": "Boiling"}]})
    assert status == 201, (status, published)
    status, _ = SERVER.api("PATCH", f"/api/v1/channel/radios/{radio['id']}", {"published": True})
    assert status == 200
    CHANNEL.clear()
    CHANNEL.update(base=SERVER.base, video=published["id"], radio=radio["id"], places=places, quiz=listed[0]["id"])
    return CHANNEL


def channel_ready(driver):
    return driver.execute_script("return document.body.dataset.ready") == "true"


class ChannelPages(HealthTest):
    """The channel signed out and as a member (the admin is one): its videos, a video's page, the
    radio, places, quizzes and a quiz being taken; and the channel's admin, every section."""

    def open(self, driver, hash_, condition, what):
        driver.get(f"{SERVER.base}/channel#{hash_}")
        driver.refresh()  # the same page with another hash is not loaded again by get()
        wait_for(driver, channel_ready, "the channel page")
        harness.wait_translated(driver)
        wait_for(driver, condition, what)

    def audience(self, size, member, part):
        """`media`: the videos, a video's page, a station; `places`: the places (list and map), a
        place, the quizzes and a quiz being taken."""
        seed = seed_channel()
        width, height = SIZES[size]
        driver = self.driver(width, height)
        state = "member" if member else "signed-out"
        if member:
            self.sign_in_with_cookie(driver)
        if part == "places":
            self.open(driver, "places", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#places-list .place-name")) == 2, "the places")
            self.check(driver, "channel-places", state, size)
            tab = visible(driver, ".places-tab[data-view=map]")
            if tab:  # (a wide screen shows the list and the map side by side)
                tab.click()
            wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#places-map .leaflet-marker-icon")) == 2
                     and d.find_elements(By.CSS_SELECTOR, "#places-map img.leaflet-tile-loaded"), "the map with its markers")
            self.check(driver, "channel-places", "map-" + state, size)
            self.open(driver, "places/" + seed["places"][0], lambda d: visible(d, "#section-places h1, #section-places h2"),
                      "a place's page")
            self.check(driver, "channel-place", state, size)
            self.open(driver, "quizzes", lambda d: visible(d, ".quiz-current"), "the quizzes")
            self.check(driver, "channel-quizzes", state, size)
            self.open(driver, "quizzes/" + seed["quiz"], lambda d: visible(d, ".quiz-answer"), "a quiz's first question")
            self.check(driver, "channel-quiz", state, size)
            self.done()
            return
        self.open(driver, "videos", lambda d: visible(d, "#section-videos a[href*='#videos/']"), "the videos")
        self.check(driver, "channel-videos", state, size)
        self.open(driver, "videos/" + seed["video"],
                  lambda d: visible(d, f'[data-role=video-detail][data-id="{seed["video"]}"] .cv-title')
                  and d.find_elements(By.CSS_SELECTOR, "[data-role=video-player] video"), "the video's page")
        self.check(driver, "channel-video", state, size)
        self.open(driver, "radio/" + seed["radio"], lambda d: "Polka" in (text_of(d, "[data-role=radio-title]") or ""),
                  "the station playing")
        self.check(driver, "channel-radio", state, size)
        self.done()

    def admin(self, size, sections):
        seed_channel()
        width, height = SIZES[size]
        driver = self.driver(width, height)
        self.sign_in_with_cookie(driver)
        for section in sections:
            driver.get(f"{SERVER.base}/channel/admin#{section}")
            driver.refresh()
            wait_for(driver, channel_ready, "the channel admin")
            harness.wait_translated(driver)
            wait_for(driver, lambda d: visible(d, f"#admin-{section}") and d.execute_script(
                "return document.getElementById(arguments[0]).children.length > 0", f"admin-{section}"), f"the admin's {section}")
            wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f"#admin-{section} .loading, #admin-{section} [aria-busy=true]"),
                     f"the admin's {section} loaded")
            self.check(driver, "channel-admin", section, size)
            if section == "videos":  # a video's editor (a modal dialog) over it
                driver.find_element(By.CSS_SELECTOR, "#admin-videos tr[data-id] [data-role=edit]").click()
                wait_for(driver, lambda d: visible(d, "dialog[open]"), "the video's editor")
                self.check(driver, "channel-admin", "video-editor", size)
                driver.execute_script("document.querySelector('dialog[open]').close()")
        self.done()


class EntryHealthTests(EntryPages):
    """Home (signed out and in), sign-in, the join gate and a mistyped code's dead end; and the
    sweep's own test."""

    def test_health_0_the_sweep_finds_what_a_person_would(self):
        """The sweep's own checks on a page built for them: a button under a banner, a canvas of
        zero size, a chart row under a card and a page too wide are found; a skip link, visually
        hidden text, a closed drawer, a button below the fold, a button under a panel the person
        opened (aria-expanded) and a covered page behind a modal dialog are not."""
        driver = self.driver(390, 844)
        driver.get(SERVER.base + "/login")
        self.ready(driver, "a page of the server's (its stylesheet)")
        driver.execute_script(BUILD_TEST_PAGE)
        found = page_findings(driver)
        self.assertEqual(sorted(found), sorted([
            'button#covered "Covered" is covered by div#banner "A banner"',
            "canvas#flat shows at zero size (120x0)",
            "video#flat-video shows at zero size (390x0)",
            "the results chart's div#row.bar-row \"Tea 3\" is covered by div#card \"Vote now\"",
        ]), found)
        # With a modal dialog open, only what is in it counts.
        driver.execute_script("document.getElementById('modal').showModal();")
        self.assertEqual(page_findings(driver), [])
        # Something wider than the screen.
        driver.execute_script("document.getElementById('modal').close();"
                              "const w = document.createElement('div'); w.style.width = '600px'; w.style.height = '10px'; document.body.append(w);")
        self.assertIn("the page scrolls sideways: 210px wider than the screen", page_findings(driver))

    def test_health_entry_phone(self):
        self.entry("phone")

    def test_health_entry_tablet(self):
        self.entry("tablet")

    def test_health_entry_laptop(self):
        self.entry("laptop")

    def test_health_entry_projector(self):
        self.entry("projector")


class LibraryHealthTests(EntryPages):
    """The library, its go-live dialog, rehearsal and the storyboards."""

    def test_health_library_phone(self):
        self.library("phone")

    def test_health_library_tablet(self):
        self.library("tablet")

    def test_health_library_laptop(self):
        self.library("laptop")

    def test_health_library_projector(self):
        self.library("projector")


class LivePresentingHealthTests(LivePages):
    """A live session presenting, then with a poll open."""

    def test_health_live_presenting_phone(self):
        self.presenting_and_poll_open("phone")

    def test_health_live_presenting_tablet(self):
        self.presenting_and_poll_open("tablet")

    def test_health_live_presenting_laptop(self):
        self.presenting_and_poll_open("laptop")

    def test_health_live_presenting_projector(self):
        self.presenting_and_poll_open("projector")


class LiveResultsHealthTests(LivePages):
    """A live session with results on screen, one ended; and a report."""

    def test_health_live_results_phone(self):
        self.results_on_screen("phone")

    def test_health_live_ended_phone(self):
        self.ended("phone")

    def test_health_live_results_tablet(self):
        self.results_on_screen("tablet")

    def test_health_live_ended_tablet(self):
        self.ended("tablet")

    def test_health_live_results_laptop(self):
        self.results_on_screen("laptop")

    def test_health_live_ended_laptop(self):
        self.ended("laptop")

    def test_health_live_results_projector(self):
        self.results_on_screen("projector")

    def test_health_live_ended_projector(self):
        self.ended("projector")

    def test_health_report_phone(self):
        self.report("phone")

    def test_health_report_tablet(self):
        self.report("tablet")

    def test_health_report_laptop(self):
        self.report("laptop")

    def test_health_report_projector(self):
        self.report("projector")


class RoomHealthTests(RoomPages):
    """A room, idle and then presenting."""

    def test_health_room_idle_phone(self):
        self.sweep("phone", presenting=False)

    def test_health_room_idle_tablet(self):
        self.sweep("tablet", presenting=False)

    def test_health_room_idle_laptop(self):
        self.sweep("laptop", presenting=False)

    def test_health_room_idle_projector(self):
        self.sweep("projector", presenting=False)

    def test_health_room_presenting_phone(self):
        self.sweep("phone", presenting=True)

    def test_health_room_presenting_tablet(self):
        self.sweep("tablet", presenting=True)

    def test_health_room_presenting_laptop(self):
        self.sweep("laptop", presenting=True)

    def test_health_room_presenting_projector(self):
        self.sweep("projector", presenting=True)


class ChannelVisitorHealthTests(ChannelPages):
    """The channel signed out."""

    def test_health_channel_signed_out_media_phone(self):
        self.audience("phone", member=False, part="media")

    def test_health_channel_signed_out_media_tablet(self):
        self.audience("tablet", member=False, part="media")

    def test_health_channel_signed_out_media_laptop(self):
        self.audience("laptop", member=False, part="media")

    def test_health_channel_signed_out_media_projector(self):
        self.audience("projector", member=False, part="media")

    def test_health_channel_signed_out_places_phone(self):
        self.audience("phone", member=False, part="places")

    def test_health_channel_signed_out_places_tablet(self):
        self.audience("tablet", member=False, part="places")

    def test_health_channel_signed_out_places_laptop(self):
        self.audience("laptop", member=False, part="places")

    def test_health_channel_signed_out_places_projector(self):
        self.audience("projector", member=False, part="places")


class ChannelMemberHealthTests(ChannelPages):
    """The channel as a member (the admin is one)."""

    def test_health_channel_member_media_phone(self):
        self.audience("phone", member=True, part="media")

    def test_health_channel_member_media_tablet(self):
        self.audience("tablet", member=True, part="media")

    def test_health_channel_member_media_laptop(self):
        self.audience("laptop", member=True, part="media")

    def test_health_channel_member_media_projector(self):
        self.audience("projector", member=True, part="media")

    def test_health_channel_member_places_phone(self):
        self.audience("phone", member=True, part="places")

    def test_health_channel_member_places_tablet(self):
        self.audience("tablet", member=True, part="places")

    def test_health_channel_member_places_laptop(self):
        self.audience("laptop", member=True, part="places")

    def test_health_channel_member_places_projector(self):
        self.audience("projector", member=True, part="places")


class ChannelAdminHealthTests(ChannelPages):
    """The channel's admin, every section."""

    def test_health_channel_admin_media_phone(self):
        self.admin("phone", ("videos", "categories", "radio"))

    def test_health_channel_admin_media_tablet(self):
        self.admin("tablet", ("videos", "categories", "radio"))

    def test_health_channel_admin_media_laptop(self):
        self.admin("laptop", ("videos", "categories", "radio"))

    def test_health_channel_admin_media_projector(self):
        self.admin("projector", ("videos", "categories", "radio"))

    def test_health_channel_admin_more_phone(self):
        self.admin("phone", ("places", "quizzes", "members", "lti"))

    def test_health_channel_admin_more_tablet(self):
        self.admin("tablet", ("places", "quizzes", "members", "lti"))

    def test_health_channel_admin_more_laptop(self):
        self.admin("laptop", ("places", "quizzes", "members", "lti"))

    def test_health_channel_admin_more_projector(self):
        self.admin("projector", ("places", "quizzes", "members", "lti"))
