#!/usr/bin/python3
"""Browser tests of the channel's expiring stream URLs (#37 defect 7): a video plays on past the
time its stream URL works, and the radio listens on, without the person doing anything and
without an error.

A server of this module's own gives out stream URLs that work for 3 s
(``PODIUM_STREAM_LINK_MINUTES=0.05``); a 14 s clip (4 s segments) is made with ffmpeg and published
free. The page's HLS engine is told to buffer only 2 s ahead (``GOAL_BUFFER_LENGTH``), so it asks
for segments all through playback, as it does on a long film, instead of fetching the short clip at
once. Without renewal the third segment (asked for about 6 s in) is refused with 410 and playback
stops. A station of two tones of 1 s and 2 s (AAC in MPEG-TS, as the radio's test makes it)
refreshes its live playlist every two seconds or so: without renewal the refresh after 3 s is
refused.
Alone: python3 Tests/Browser/run_browser_tests.py stream_links
"""

import os
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

BrowserTest = harness.BrowserTest
SERVER = harness.SERVER
DEMO_DECK = harness.DEMO_DECK
wait_for = harness.wait_for
visible = harness.visible
screenshot = harness.screenshot

LIFETIME = 3  # seconds a stream URL works on this module's server
SETTINGS = {"PODIUM_STREAM_LINK_MINUTES": str(LIFETIME / 60)}
CLIP_SECONDS = 14
CATALOGUE = {}


def setUpModule():
    # A server of this module's own, started with the short stream URLs above.
    if SERVER.proc and SERVER.proc.poll() is None:
        harness.tearDownModule()
    DEMO_DECK.clear()
    os.environ.update(SETTINGS)
    harness.setUpModule()
    CATALOGUE.clear()
    # The station first: its live window fills with the wall clock (about 7 s for five segments of
    # its 1 s and 2 s tones), while the clip is made and packaged meanwhile.
    CATALOGUE["radio"] = publish_station()
    CATALOGUE["free"] = publish_clip()
    started = time.monotonic()
    wait_for_whole_window(CATALOGUE["radio"])
    harness.profiled("(the station's first whole window on air)", started)


def tearDownModule():
    harness.tearDownModule()
    for name in SETTINGS:
        os.environ.pop(name, None)


def publish_clip():
    """A 14 s clip uploaded, packaged and published free; its channel id."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "clip.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
             f"testsrc2=size=480x270:rate=15:duration={CLIP_SECONDS}", "-f", "lavfi", "-i",
             f"sine=frequency=440:duration={CLIP_SECONDS}", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
             "-c:a", "aac", "-shortest", str(path)],
            check=True)
        status, video = SERVER.request(
            "POST", "/api/v1/videos?title=Long", token=SERVER.token, raw=path.read_bytes(), content_type="video/mp4")
    assert status == 201, video
    deadline = time.monotonic() + 120
    while True:
        status, video = SERVER.api("GET", f"/api/v1/videos/{video['id']}")
        if status == 200 and video["status"] in ("ready", "failed"):
            assert video["status"] == "ready", video
            break
        assert time.monotonic() < deadline, f"still packaging after 120 s: {video}"
        time.sleep(0.25)
    status, category = SERVER.api("POST", "/api/v1/channel/videos/categories", {"name": "Films"})
    assert status == 201, category
    status, published = SERVER.api("POST", "/api/v1/channel/videos", {
        "videoId": video["id"], "categoryId": category["id"], "title": "A film longer than its link", "description": "", "published": True, "free": True})
    assert status == 201, published
    return published["id"]


def publish_station():
    """A published station of two short tones, on air (its whole window: wait_for_whole_window); its id."""
    status, radio = SERVER.api("POST", "/api/v1/channel/radios", {"name": "Short links radio", "description": ""})
    assert status == 201, radio
    with tempfile.TemporaryDirectory() as scratch:
        for seconds, frequency in ((1, 440), (2, 660)):
            path = Path(scratch) / f"{frequency}.mp3"
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                            f"sine=frequency={frequency}:duration={seconds}", "-c:a", "libmp3lame", str(path)], check=True)
            status, track = SERVER.request("POST", f"/api/v1/channel/radios/{radio['id']}/tracks?title=Tone%20{frequency}",
                                           token=SERVER.token, raw=path.read_bytes(), content_type="audio/mpeg")
            assert status == 201, track
    deadline = time.monotonic() + 60
    while True:
        status, tracks = SERVER.api("GET", f"/api/v1/channel/radios/{radio['id']}/tracks")
        if len(tracks) == 2 and all(t["status"] == "ready" for t in tracks):
            break
        assert time.monotonic() < deadline, tracks
        time.sleep(0.3)
    status, _ = SERVER.api("PATCH", f"/api/v1/channel/radios/{radio['id']}", {"published": True})
    assert status == 200
    return radio["id"]


def wait_for_whole_window(radio_id):
    """Until the live playlist lists a whole window (five segments), so a player has some to start
    on (a new URL each time: each works 3 s)."""
    deadline = time.monotonic() + 60
    while True:
        status, stream = SERVER.api("GET", f"/api/v1/channel/radios/{radio_id}/stream")
        assert status == 200, stream
        request = urllib.request.Request(SERVER.base + stream["url"], headers={"Authorization": "Bearer " + SERVER.token})
        with urllib.request.urlopen(request, timeout=30) as response:
            if response.read().decode().count("#EXTINF") >= 5:
                return
        assert time.monotonic() < deadline, "the station's playlist has no whole window"
        time.sleep(0.25)


BUFFER_2S = """
const done = arguments[arguments.length - 1];
import('/app/media/video-stage.js').then((m) => m.loadPlayerLibrary()).then((videojs) => {
  videojs.Hls.GOAL_BUFFER_LENGTH = 2; videojs.Hls.MAX_GOAL_BUFFER_LENGTH = 2; done(true);
});
"""
PLAYER = """
const v = document.querySelector('[data-role=video-player] video');
const box = document.querySelector('[data-role=video-player] .video-js');
const shown = (e) => Boolean(e && e.getClientRects().length && getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden');
return v ? {time: v.currentTime, paused: v.paused, ready: v.readyState,
            error: Boolean(box && box.classList.contains('vjs-error')),
            overlay: shown(document.querySelector('[data-role=video-player] .vjs-error-display')),
            failed: document.querySelector('[data-role=video-player]').dataset.failed || null} : null;
"""


class ChannelStreamLinkTests(BrowserTest):
    def test_a_video_plays_on_past_its_links_expiry(self):
        video_id = CATALOGUE["free"]
        phone = self.driver(390, 844)
        phone.get(f"{SERVER.base}/channel#videos")
        wait_for(phone, lambda d: visible(d, f'[data-role=video-card][data-id="{video_id}"]'), "the video's card")
        # The HLS engine buffers 2 s ahead (its default is 30 s: it would fetch this clip at once).
        phone.execute_async_script(BUFFER_2S)
        status, stream = SERVER.request("GET", f"/api/v1/channel/videos/{video_id}/stream")
        self.assertEqual(status, 200, stream)
        phone.find_element(By.CSS_SELECTOR, f'[data-role=video-card][data-id="{video_id}"] a').click()
        wait_for(phone, lambda d: (d.execute_script(PLAYER) or {}).get("ready", 0) >= 1, "the player")
        phone.execute_script("const p = videojs(document.querySelector('[data-role=video-player] video')); p.muted(true); p.play();")
        started = time.monotonic()
        wait_for(phone, lambda d: (d.execute_script(PLAYER) or {}).get("time", 0) > 0.2, "playback to start")
        state = wait_for(phone, lambda d: (lambda s: s if s and (s["time"] > 3 * LIFETIME + 0.5 or s["error"] or s["failed"]) else None)(
            d.execute_script(PLAYER)), f"playback past {3 * LIFETIME + 0.5} s", timeout=40)
        self.assertFalse(state["error"], f"the player stopped on an error: {state}")
        self.assertFalse(state["overlay"], f"an error shown: {state}")
        self.assertIsNone(state["failed"], state)
        self.assertGreater(state["time"], 3 * LIFETIME + 0.5)
        self.assertGreater(time.monotonic() - started, LIFETIME, "played longer than a link works")
        # A URL given out before playback started no longer works: the player is on newer ones.
        self.assertEqual(SERVER.request("GET", stream["url"])[0], 410, "the first URL given out has expired")
        screenshot(phone, "channel-video-past-its-link")

    def test_the_radio_plays_on_past_its_links_expiry(self):
        laptop = self.driver(1280, 800)
        self.sign_in_with_cookie(laptop)  # the admin: a member, no allowance to run out
        laptop.get(f"{SERVER.base}/channel#radio/{CATALOGUE['radio']}")
        wait_for(laptop, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the channel")
        play = wait_for(laptop, lambda d: visible(d, "[data-role=radio-play]"), "the station's play button")
        # 2 s ahead at most, as for the video: it asks for each 6 s segment as it goes.
        laptop.execute_async_script(BUFFER_2S)
        play.click()
        listened = """
            const v = document.querySelector('[data-role=radio-player] video.radio-engine, [data-role=radio-player] .radio-engine video');
            const p = document.querySelector('[data-role=radio-player]');
            return {time: v ? v.currentTime : 0, state: p.dataset.state,
                    status: p.querySelector('.radio-status').textContent};"""
        wait_for(laptop, lambda d: d.execute_script(listened)["state"] == "playing", "the station playing")
        state = wait_for(laptop, lambda d: (lambda s: s if s["time"] > 3 * LIFETIME + 0.5 or s["state"] != "playing" else None)(
            d.execute_script(listened)), f"listening past {3 * LIFETIME + 0.5} s", timeout=40)
        self.assertEqual(state["state"], "playing", state)
        self.assertEqual(state["status"], "", state)
        self.assertGreater(state["time"], 3 * LIFETIME + 0.5)
        screenshot(laptop, "channel-radio-past-its-link")

    def test_the_renewal_rules(self):
        """stream-renewal.js's rules on a stand-in player, with a clock of the test's own: when it
        renews, the requests it rewrites, a 410 answered by a renewal at once, a stopped player
        reloaded where it was, and onFailed only when renewing fails or fails again at once."""
        driver = self.driver(800, 600)
        driver.get(SERVER.base + "/login")
        result = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            Promise.all([import('/app/media/stream-renewal.js'), import('/app/media/video-stage.js').then((m) => m.loadPlayerLibrary())])
              .then(async ([r, videojs]) => {
                let clock = Date.parse('2026-01-01T00:00:00Z');
                const now = () => clock;
                const at = (seconds) => new Date(clock + seconds * 1000).toISOString();
                const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
                const player = () => {
                  const handlers = {};
                  const p = { calls: [], time: 42, playing: true, err: null,
                    on(name, fn) { (handlers[name] = handlers[name] || []).push(fn); },
                    one(name, fn) { p.calls.push('one:' + name); fn(); },
                    fire(name) { (handlers[name] || []).forEach((fn) => fn()); },
                    error(value) { if (value === undefined) return p.err; p.err = value; p.calls.push('error:' + (value && value.code)); },
                    src(s) { p.calls.push('src:' + s.src); }, play() { p.calls.push('play'); return Promise.resolve(); },
                    currentTime(t) { if (t === undefined) return p.time; p.calls.push('seek:' + t); },
                    hasStarted: () => true, paused: () => !p.playing, addClass() {}, removeClass() {}, el: () => ({}) };
                  return p;
                };
                const hook = (uri) => videojs.Hls.xhr.beforeRequest({ uri });
                let renewals = 0;
                const fresh = (n) => ({ url: `/stream/T${n}/master.m3u8`, expiresAt: at(3) });
                const a = player();
                const keeper = r.keepStreamFresh(a, { url: '/stream/T0/master.m3u8', expiresAt: at(3), now,
                  renew: async () => fresh(++renewals), onFailed: (e) => a.calls.push('failed') });
                const before = hook('/stream/T0/seg1.m4s').uri;
                // A 410 on a request with the newest token: a new one at once, later requests carry it.
                const options = hook('/stream/T0/seg2.m4s');
                const xhr = new EventTarget(); xhr.readyState = 2; xhr.status = 410;
                options.beforeSend(xhr); xhr.dispatchEvent(new Event('readystatechange'));
                await tick(); await tick();
                const after410 = hook('/stream/T0/seg2.m4s').uri;
                // The player stops on an error: a new URL, loaded at the same place, playing on.
                a.fire('error'); await tick(); await tick();
                const reloaded = a.calls.slice();
                // An error again at once: no loop of reloads, the person is told.
                a.fire('error'); await tick();
                const failedAgain = a.calls.includes('failed');
                keeper.stop();
                const stoppedUri = hook('/stream/T0/seg3.m4s').uri;
                // Renewal refused (the allowance spent): onFailed with its error.
                const b = player();
                let told = null;
                r.keepStreamFresh(b, { url: '/stream/U0/live.m3u8', expiresAt: at(3), now,
                  renew: async () => { throw Object.assign(new Error('no'), { code: 'membership_required' }); },
                  onFailed: (e) => { told = e && e.code; } });
                b.fire('error'); await tick(); await tick();
                done({ delays: [r.renewalDelay(3000), r.renewalDelay(6 * 3600 * 1000), r.renewalDelay(100), r.renewalDelay(NaN)],
                       before, after410, renewals, reloaded, failedAgain, stoppedUri, told,
                       token: r.streamToken('/stream/abc.def/x.m3u8') });
              }).catch((error) => done({ error: String(error && error.stack || error) }));
        """)
        self.assertNotIn("error", result, result.get("error"))
        self.assertEqual(result["delays"], [1500, 6 * 3600 * 1000 - 60000, 250, None])
        self.assertEqual(result["token"], "abc.def")
        self.assertEqual(result["before"], "/stream/T0/seg1.m4s")
        self.assertEqual(result["after410"], "/stream/T1/seg2.m4s", "after a 410 the next request carries the new token")
        self.assertEqual(result["reloaded"], ["error:null", "src:/stream/T2/master.m3u8", "one:loadedmetadata", "seek:42", "play"])
        self.assertEqual(result["renewals"], 2)
        self.assertTrue(result["failedAgain"], "a second error at once is told, not reloaded again")
        self.assertEqual(result["stoppedUri"], "/stream/T0/seg3.m4s", "a stopped keeper rewrites nothing")
        self.assertEqual(result["told"], "membership_required")
