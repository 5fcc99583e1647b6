#!/usr/bin/python3
"""Video sync: how closely every screen of a room plays a clip at the moment the reference says.

Issue #18's benchmark: a release `podium serve` on a throwaway data directory, a 90 s clip made
with ffmpeg (testsrc2 640x360 30 fps and a sine tone, H.264/AAC) uploaded and packaged by the
server, a room whose moderator console, projector and N viewers are each a headless Chromium of
their own on this machine. The moderator shows the clip from the console's library picker and
drives a scripted minute with the player's own controls:

    0 s play · 15 s pause · 18 s play · 28 s seek to 40 s (playing) · 38 s seek back to 10 s ·
    play on until 60 s

Every screen samples itself every 100 ms (`#video-screen`'s `sample()`: where its <video> is,
where the reference says it should be by the screen's own estimate of the server's clock), each
sample stamped with the machine's clock. The sampling runs inside each page: a WebDriver round
trip per sample would stamp it tens of milliseconds away from the moment it describes, on a
machine this busy.

Reported (all in ms):
- |drift| p50/p95/p99/max per role and overall, over the samples of a playing clip taken 2 s or
  more after the last play or seek ("converged"); drift is the page's own (actual − target);
- the same against the machine's clock (the server runs on the same clock, so this adds each
  screen's clock-estimate error: what an observer in the room would see between screens);
- for each play and seek, the time from the command to the first moment every screen is within
  100 ms of the new reference and stays so for 1 s; and the same counting only a <video> that
  plays ("moving": a play or seek is anchored 0.5 s ahead, and a screen waiting for it at the
  right frame is already where the reference says).

Goal (issue #18): p99 drift under 100 ms once converged; converge within 2 s of a seek. Missing
it is a result, not an error: the exit status is non-zero only when the run itself fails.

Usage: python3 Benchmarks/video-sync.py [--viewers 3] [--json] [--samples FILE]
Needs: swift build -c release --product podium; scripts/setup --test (ffmpeg, Chromium, its
driver, Selenium, Video.js).
"""

import argparse
import json
import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

try:
    import selenium  # noqa: F401
except ImportError:  # a pyenv or venv python: use Debian's package
    sys.path.append("/usr/lib/python3/dist-packages")

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")

CLIP_SECONDS = 90
# The scripted minute: (seconds after the first play, action, seek position).
SCRIPT = (
    (0.0, "play", None),
    (15.0, "pause", None),
    (18.0, "play", None),
    (28.0, "seek", 40.0),
    (38.0, "seek", 10.0),
)
MINUTE = 60.0
SETTLE = 2.0  # samples this long after a play or seek count as converged
WITHIN = 0.100  # "in sync" for the convergence time
STAY = 1.0  # ... and staying so this long
GOAL_P99 = 100.0  # ms
GOAL_CONVERGE = 2.0  # s

# Installed in every page: one sample every 100 ms into window.__syncSamples, stamped with
# Date.now() (the machine's clock, which the server's clock is too).
SAMPLER = """
if (!window.__syncTimer) {
  window.__syncSamples = [];
  window.__syncTimer = setInterval(() => {
    const screen = document.getElementById('video-screen');
    if (!screen || screen.hidden || !screen.sample) return;
    const s = screen.sample();
    if (!s) return;
    const v = screen.querySelector('video');
    window.__syncSamples.push([Date.now(), s.actual, s.target, s.now, s.state,
      v ? v.paused : null, v ? v.readyState : null, v ? v.playbackRate : null, v ? v.seeking : null]);
  }, 100);
}
"""
FIELDS = ("wall", "actual", "target", "now", "state", "paused", "readyState", "rate", "seeking")


class Failure(RuntimeError):
    """The run could not be carried out (not a missed goal)."""


# ---------------------------------------------------------------- the server


class Server:
    def __init__(self, binary):
        self.binary = binary
        self.password = "pw-" + secrets.token_hex(8)
        self.data_dir = tempfile.mkdtemp(prefix="podium-sync-")
        self.log = open(Path(self.data_dir) / "server.log", "wb")
        self.proc = None
        self.token = None

    def start(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD=self.password)
        env.pop("PODIUM_PUBLIC_URL", None)
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir],
            cwd=str(REPO), env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise Failure(f"the server exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, socket.timeout):
                pass
            if time.monotonic() > deadline:
                raise Failure("the server did not answer /healthz within 60 s")
            time.sleep(0.2)
        status, body = self.request("POST", "/api/v1/auth/login", {"email": "admin", "password": self.password})
        if status != 200:
            raise Failure(f"sign-in answered {status}: {body}")
        self.token = body["token"]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(timeout=5)
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def request(self, method, path, body=None, raw=None, content_type=None):
        headers = {"Accept": "application/json"}
        data = None
        if raw is not None:
            data, headers["Content-Type"] = raw, content_type
        elif body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                payload, status = response.read(), response.status
        except urllib.error.HTTPError as error:
            payload, status = error.read(), error.code
        try:
            return status, json.loads(payload) if payload else None
        except ValueError:
            return status, None


def upload_clip(server, scratch):
    """The 90 s clip, made, uploaded and packaged; its id."""
    path = Path(scratch) / "clip.mp4"
    subprocess.run(
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", f"testsrc2=size=640x360:rate=30:duration={CLIP_SECONDS}",
         "-f", "lavfi", "-i", f"sine=frequency=440:duration={CLIP_SECONDS}", "-c:v", "libx264", "-preset", "veryfast",
         "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(path)],
        check=True)
    status, video = server.request("POST", "/api/v1/videos?title=Sync%20benchmark", raw=path.read_bytes(), content_type="video/mp4")
    if status != 201:
        raise Failure(f"the upload answered {status}: {video}")
    deadline = time.monotonic() + 600
    while True:
        status, video = server.request("GET", f"/api/v1/videos/{video['id']}")
        if status == 200 and video["status"] in ("ready", "failed"):
            break
        if time.monotonic() > deadline:
            raise Failure(f"the clip is still packaging after 600 s: {video}")
        time.sleep(0.5)
    if video["status"] != "ready":
        raise Failure(f"packaging failed: {video}")
    return video["id"]


# ---------------------------------------------------------------- browsers


def launch(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        f"--window-size={width},{height}", "--no-first-run", "--disable-extensions", "--mute-audio",
        "--password-store=basic", "--lang=en-US",
        # The projector has the sound: without a gesture Chromium would refuse to start it.
        "--autoplay-policy=no-user-gesture-required",
        # A real screen is in front: its timers and renderer are not throttled as a background tab's.
        "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    return driver


def wait_for(driver, condition, what, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition(driver)
        except Exception:  # a page between two states: ask again
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"waited {timeout} s for {what}")
        time.sleep(0.1)


def visible(driver, css):
    for element in driver.find_elements(By.CSS_SELECTOR, css):
        if element.is_displayed():
            return element
    return None


def screen_state(driver):
    return driver.execute_script(
        "const s = document.getElementById('video-screen'); if (!s || s.hidden) return null;"
        "const v = s.querySelector('video'); const x = s.sample();"
        "return {video: s.dataset.video, state: s.dataset.state, sample: x, ready: v ? v.readyState : 0};")


class Screen:
    def __init__(self, name, role, driver):
        self.name, self.role, self.driver = name, role, driver


def open_screens(server, code, viewers):
    """Moderator console, projector and viewers, each in its own browser (its own cookies)."""
    screens = []
    moderator = launch(1280, 800)
    screens.append(Screen("moderator", "moderator", moderator))
    sign_in(server, moderator)
    moderator.get(f"{server.base}/r/{code}/moderate")
    wait_for(moderator, lambda d: d.execute_script("return document.body.dataset.connection") == "live", "the moderator console")
    projector = launch(960, 540)
    screens.append(Screen("projector", "projector", projector))
    sign_in(server, projector)
    projector.get(f"{server.base}/r/{code}/projector")
    wait_for(projector, lambda d: visible(d, "#idle"), "the projector's join screen")
    for i in range(viewers):
        viewer = launch(390, 700)
        screens.append(Screen(f"viewer {i + 1}", "viewer", viewer))
        viewer.get(f"{server.base}/s/{code}")
        wait_for(viewer, lambda d: visible(d, "#gate-form"), "the join gate")
        viewer.find_element(By.ID, "join-button").click()
        wait_for(viewer, lambda d: visible(d, "#watch"), f"viewer {i + 1}'s page")
    return screens


def sign_in(server, driver):
    driver.get(server.base + "/healthz")
    driver.add_cookie({"name": "podium_auth", "value": server.token, "path": "/"})


def show_clip(moderator, video_id):
    """The console's "Show a video": the library's ready clips in a dialog."""
    moderator.find_element(By.CSS_SELECTOR, '[data-action="show-video"]').click()
    choice = wait_for(moderator, lambda d: visible(d, "dialog[open] select"), "the video picker")
    Select(choice).select_by_value(video_id)
    moderator.find_element(By.CSS_SELECTOR, 'dialog[open] button[value="ok"]').click()


def command(moderator, action, position=None):
    """One press of the player's controls on the console; the machine's time of it (s)."""
    if action == "seek":
        stamp = moderator.execute_script(
            "const bar = document.querySelector('[data-role=video-seek]'); const t = Date.now();"
            "bar.value = String(arguments[0]); bar.dispatchEvent(new Event('change', {bubbles: true})); return t;", position)
    else:
        stamp = moderator.execute_script(
            "const t = Date.now(); document.querySelector('#video-screen [data-role=video-play]').click(); return t;")
    return stamp / 1000


# ---------------------------------------------------------------- the run


def cpu_times():
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]
    return sum(parts), idle


def own_cpu():
    """CPU seconds used so far by this run's processes (the server, the drivers, every Chromium
    process): the rest of the machine's busy time is someone else's."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append((int(entry), int(fields[11]) + int(fields[12])))
    ticks, todo = 0, [os.getpid()]
    while todo:
        for pid, used in children.get(todo.pop(), []):
            ticks += used
            todo.append(pid)
    return ticks / os.sysconf("SC_CLK_TCK")


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run(args):
    binary = args.bin if os.path.isabs(args.bin) else str(REPO / args.bin)
    if not os.access(binary, os.X_OK):
        raise Failure(f"no podium binary at {binary} (swift build -c release --product podium, or --bin)")
    server = Server(binary)
    screens = []
    try:
        server.start()
        log("server up; making and packaging the clip")
        with tempfile.TemporaryDirectory() as scratch:
            video_id = upload_clip(server, scratch)
        status, room = server.request("POST", "/api/v1/rooms", {"title": "Sync benchmark"})
        if status != 201:
            raise Failure(f"POST /api/v1/rooms answered {status}: {room}")
        log(f"clip ready; opening the moderator, the projector and {args.viewers} viewers")
        screens = open_screens(server, room["code"], args.viewers)
        moderator = screens[0].driver
        show_clip(moderator, video_id)
        for screen in screens:
            wait_for(screen.driver, lambda d: (lambda s: s and s["video"] == video_id and s["state"] == "stopped" and s["ready"] >= 2
                                               and s["sample"] and abs(s["sample"]["actual"]) < 0.1)(screen_state(d)),
                     f"the clip loaded on the {screen.name}'s screen")
        for screen in screens:
            screen.driver.execute_script(SAMPLER)
        log("every screen has the clip; the scripted minute starts")
        load_before = loadavg()
        cpu_before = cpu_times()
        own_before = own_cpu()
        commands = []
        start = time.monotonic()
        for at, action, position in SCRIPT:
            time.sleep(max(0.0, start + at - time.monotonic()))
            commands.append({"at": at, "action": action, "position": position, "wall": command(moderator, action, position)})
        time.sleep(max(0.0, start + MINUTE - time.monotonic()))
        cpu_after = cpu_times()
        own = own_cpu() - own_before
        load_after = loadavg()
        samples = {}
        for screen in screens:
            rows = screen.driver.execute_script("clearInterval(window.__syncTimer); return window.__syncSamples;")
            samples[screen.name] = [dict(zip(FIELDS, row)) for row in rows]
            for s in samples[screen.name]:
                s["wall"] /= 1000
        total = cpu_after[0] - cpu_before[0]
        busy = 1 - (cpu_after[1] - cpu_before[1]) / total if total else 0.0
        machine = {
            "cores": os.cpu_count(), "cpu": cpu_model(),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "load_before": load_before, "load_after": load_after, "cpu_busy": busy,
            # of the machine's cores over the minute (1.0 = one core the whole minute)
            "cpu_own": own / MINUTE, "cpu_others": max(0.0, busy * (os.cpu_count() or 1) - own / MINUTE),
        }
        return machine, commands, samples, {s.name: s.role for s in screens}
    finally:
        for screen in screens:
            try:
                screen.driver.quit()
            except Exception:
                pass
        server.stop()


# ---------------------------------------------------------------- the numbers


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    rank = p / 100 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(values):
    values = [abs(v) * 1000 for v in values]
    return {"samples": len(values), "p50": percentile(values, 50), "p95": percentile(values, 95),
            "p99": percentile(values, 99), "max": max(values) if values else None}


def last_command(commands, wall):
    before = [c for c in commands if c["wall"] <= wall and c["action"] in ("play", "seek")]
    return before[-1] if before else None


def converged(commands, sample):
    """A sample of a playing clip SETTLE or more after the last play or seek."""
    last = last_command(commands, sample["wall"])
    return sample["state"] == "playing" and last is not None and sample["wall"] >= last["wall"] + SETTLE


def fresh(cmd, sample):
    """Whether the screen follows the reference this command made (not the one before it)."""
    if sample["state"] != "playing":
        return False
    if cmd["action"] == "seek":
        elapsed = sample["wall"] - cmd["wall"]
        return cmd["position"] - 0.05 <= sample["target"] <= cmd["position"] + max(0.0, elapsed) + 0.2
    return True


def convergence(commands, samples, cmd, until, moving=False):
    """Seconds from `cmd` to the first moment every screen is fresh and within WITHIN of the
    reference and stays so for STAY (None when that never happens before `until`), with the
    last screen to get there. A screen waiting at a seek's position for its anchor is where the
    reference says; with `moving`, only a <video> that plays counts."""
    events = []
    for name, rows in samples.items():
        for s in rows:
            if cmd["wall"] <= s["wall"] < until:
                good = fresh(cmd, s) and abs(s["actual"] - s["target"]) < WITHIN and not (moving and s["paused"])
                events.append((s["wall"], name, good))
    events.sort()
    ok = {name: False for name in samples}
    since = {name: None for name in samples}  # when each screen became ok (and stayed)
    candidate = None
    for wall, name, good in events:
        if good and not ok[name]:
            since[name] = wall
        ok[name] = good
        if not good:
            since[name] = None
            candidate = None
        elif candidate is None and all(ok.values()):
            candidate = wall
        if candidate is not None and wall - candidate >= STAY:
            last = max(since, key=lambda n: since[n])
            return candidate - cmd["wall"], last
    return None, None


def server_commands(commands, samples):
    """Pauses and plays nobody scripted: in a room the server pauses the clip for everyone while
    the projector buffers, and plays it on (anchored ahead) when it can play. Seen as the
    moderator's reference changing state with no command of ours in the second before."""
    found, last = [], None
    for s in samples.get("moderator", []):
        if last is not None and s["state"] != last:
            ours = [c for c in commands if c["wall"] <= s["wall"] < c["wall"] + 1.0]
            if not ours and s["state"] in ("playing", "paused"):
                found.append({"at": None, "action": "play" if s["state"] == "playing" else "pause", "position": None,
                              "wall": s["wall"], "server": True})
        last = s["state"]
    return found


def analyse(machine, commands, samples, roles):
    result = {"machine": machine, "viewers": sum(1 for r in roles.values() if r == "viewer"), "commands": [], "drift": {},
              "drift_machine_clock": {}, "clock_error": {}}
    # The server's own pauses and plays count as commands: a play restarts the settling time.
    first = commands[0]["wall"] if commands else 0
    extra = server_commands(commands, samples)
    for c in extra:
        c["at"] = c["wall"] - first
    commands = sorted(commands + extra, key=lambda c: c["wall"])
    result["server_pauses"] = sum(1 for c in extra if c["action"] == "pause")
    groups = {"moderator": [], "projector": [], "viewer": [], "all": []}
    machine_groups = {k: [] for k in groups}
    clock_groups = {k: [] for k in groups}
    for name, rows in samples.items():
        role = roles[name]
        for s in rows:
            error = s["now"] - s["wall"]  # the page's estimate of the server's clock, less the machine's
            clock_groups[role].append(error)
            clock_groups["all"].append(error)
            if not converged(commands, s):
                continue
            drift = s["actual"] - s["target"]
            groups[role].append(drift)
            groups["all"].append(drift)
            machine_groups[role].append(drift + error)
            machine_groups["all"].append(drift + error)
    for key in groups:
        result["drift"][key] = summary(groups[key])
        result["drift_machine_clock"][key] = summary(machine_groups[key])
        result["clock_error"][key] = summary(clock_groups[key])
    end = max((s["wall"] for rows in samples.values() for s in rows), default=0)
    for i, cmd in enumerate(commands):
        entry = {"action": cmd["action"], "at": cmd["at"], "position": cmd["position"], "by_server": cmd.get("server", False)}
        if cmd["action"] in ("play", "seek"):
            until = commands[i + 1]["wall"] if i + 1 < len(commands) else end + 1
            seconds, last = convergence(commands, samples, cmd, until)
            entry.update(converge=seconds, last_screen=last, converge_moving=convergence(commands, samples, cmd, until, moving=True)[0])
            # Where the drift was: while settling (the first SETTLE s, on the new reference) and
            # after (the converged samples up to the next command), the worst of every screen.
            settling = [abs(s["actual"] - s["target"]) * 1000 for rows in samples.values() for s in rows
                        if cmd["wall"] <= s["wall"] < min(until, cmd["wall"] + SETTLE) and fresh(cmd, s)]
            after = [abs(s["actual"] - s["target"]) * 1000 for rows in samples.values() for s in rows
                     if cmd["wall"] + SETTLE <= s["wall"] < until and converged(commands, s)]
            entry.update(worst_settling=max(settling, default=None), worst_after=max(after, default=None),
                         over_100ms_after=sum(1 for v in after if v >= 100), samples_after=len(after))
        result["commands"].append(entry)
    # The longest time each screen's <video> stayed `seeking` (a seek that never lands leaves the
    # follower waiting for it, correcting nothing).
    result["longest_seek"] = {}
    for name, rows in samples.items():
        longest, since = 0.0, None
        for s in rows:
            if s["seeking"]:
                since = s["wall"] if since is None else since
                longest = max(longest, s["wall"] - since)
            else:
                since = None
        result["longest_seek"][name] = longest
    seeks = [c["converge_moving"] for c in result["commands"] if c["action"] == "seek"]  # the stricter of the two
    p99 = result["drift"]["all"]["p99"]
    result["goal"] = {
        "p99_under_100ms": p99 is not None and p99 < GOAL_P99,
        "seeks_converge_within_2s": all(s is not None and s <= GOAL_CONVERGE for s in seeks),
    }
    return result


def fmt(value, digits=0):
    return "—" if value is None else f"{value:.{digits}f}"


def print_table(result):
    m = result["machine"]
    print(f"Video sync: moderator, projector and {result['viewers']} viewers, headless Chromium each; {m['date']}")
    print(f"machine: {m['cores']} cores, {m['cpu']}; load {m['load_before'][0]:.2f} before, {m['load_after'][0]:.2f} after;"
          f" CPU {m['cpu_busy'] * 100:.0f} % busy during the minute: {m['cpu_own']:.2f} cores this run's"
          f" (server and browsers), {m['cpu_others']:.2f} others'")
    for title, key in (("|drift| once converged (ms), each screen against its own clock estimate", "drift"),
                       ("|drift| once converged (ms), against the machine's (the server's) clock", "drift_machine_clock"),
                       ("|clock estimate − machine clock| (ms), every sample", "clock_error")):
        print()
        print(title)
        print(f"  {'role':<10} {'samples':>7} {'p50':>6} {'p95':>6} {'p99':>6} {'max':>6}")
        for role in ("moderator", "projector", "viewer", "all"):
            s = result[key][role]
            print(f"  {role:<10} {s['samples']:>7} {fmt(s['p50'], 1):>6} {fmt(s['p95'], 1):>6} {fmt(s['p99'], 1):>6} {fmt(s['max'], 1):>6}")
    print()
    print(f"each command: converged = every screen within {WITHIN * 1000:.0f} ms of the new reference, staying {STAY:.0f} s"
          f" (s after the command; 'moving': and every <video> playing, not waiting for the anchor);"
          f" worst |drift| (ms) of any screen in the first {SETTLE:.0f} s and after them")
    print(f"  {'at':>7}  {'command':<14} {'converged':>9} {'moving':>7}  {'last screen':<11} {'settling':>8} {'after':>6} {'≥100 ms after':>14}")
    for c in result["commands"]:
        what = c["action"] + (f" to {c['position']:.0f} s" if c["position"] is not None else "") + (" (server)" if c["by_server"] else "")
        line = f"  {c['at']:>5.1f} s  {what:<14}"
        if "converge" in c:
            converged_in = "never" if c["converge"] is None else f"{c['converge']:.2f} s"
            moving = "never" if c["converge_moving"] is None else f"{c['converge_moving']:.2f} s"
            line += (f" {converged_in:>9} {moving:>7}  {c['last_screen'] or '':<11} {fmt(c['worst_settling']):>8} {fmt(c['worst_after']):>6}"
                     f" {c['over_100ms_after']:>5} of {c['samples_after']:<5}")
        print(line)
    stuck = {name: t for name, t in result["longest_seek"].items() if t >= 2.0}
    if stuck:
        print("  stuck seeking (s): " + ", ".join(f"{name} {t:.1f}" for name, t in stuck.items()))
    if result["server_pauses"]:
        print(f"  (server): the server paused the clip for everyone {result['server_pauses']} time(s) while the projector buffered")
    g = result["goal"]
    print()
    print(f"goal: p99 < {GOAL_P99:.0f} ms once converged: {'met' if g['p99_under_100ms'] else 'missed'};"
          f" every seek converged (moving) within {GOAL_CONVERGE:.0f} s: {'met' if g['seeks_converge_within_2s'] else 'missed'}")


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description="Video sync benchmark (issue #18).")
    parser.add_argument("--viewers", type=int, default=3, help="viewer browsers (default 3)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--samples", help="also write every raw sample and command to this JSON file")
    parser.add_argument("--bin", default=os.environ.get("PODIUM_BIN", ".build/release/podium"),
                        help="the podium binary (default .build/release/podium, or $PODIUM_BIN)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up (browsers, server) when stopped
    try:
        machine, commands, samples, roles = run(args)
    except Failure as error:
        print(f"video-sync: {error}", file=sys.stderr)
        return 1
    if args.samples:
        with open(args.samples, "w") as f:
            json.dump({"commands": commands, "roles": roles, "samples": samples}, f)
    result = analyse(machine, commands, samples, roles)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
