"""What the storyboard benchmarks share (issue #19, "Measured, in a benchmark"): a release
`podium serve` on a throwaway data directory (SQLite, or a PostgreSQL URL), a small WebSocket
client written with the standard library (Debian's Python has no WebSocket package and
`scripts/setup` installs none), the storyboard socket's hello and edits, headless Chromium, and
the machine's numbers (load, CPU) that go with every result.

Not a benchmark itself: storyboard-latency.py, storyboard-open.py and storyboard-saves.py use it.
"""

import base64
import json
import os
import platform
import secrets
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")


class Failure(RuntimeError):
    """The run could not be carried out (not a missed goal)."""


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the server


class Server:
    """`podium serve` on a free port and a temporary data directory, signed in as admin."""

    def __init__(self, binary, database=None):
        self.binary = binary
        self.database = database
        self.password = "pw-" + secrets.token_hex(8)
        self.data_dir = tempfile.mkdtemp(prefix="podium-sb-")
        self.log = open(Path(self.data_dir) / "server.log", "wb")
        self.proc = None
        self.token = None

    def start(self):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD=self.password)
        for name in ("PODIUM_PUBLIC_URL", "PODIUM_DATABASE_URL"):
            env.pop(name, None)
        command = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data-dir", self.data_dir]
        if self.database:
            command += ["--database", self.database]
        self.proc = subprocess.Popen(command, cwd=str(REPO), env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise Failure(f"the server exited with {self.proc.returncode} (log: {self.data_dir}/server.log)")
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

    def stop(self, keep_dir=False):
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
        if not keep_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def pid(self):
        return self.proc.pid if self.proc else None

    def request(self, method, path, body=None):
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
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

    def new_storyboard(self, title):
        status, body = self.request("POST", "/api/v1/storyboards", {"title": title, "aspectRatio": "16:9"})
        if status != 201:
            raise Failure(f"POST /api/v1/storyboards answered {status}: {body}")
        return body

    def content(self, storyboard_id):
        status, body = self.request("GET", f"/api/v1/storyboards/{storyboard_id}")
        if status != 200:
            raise Failure(f"GET /api/v1/storyboards/{storyboard_id} answered {status}: {body}")
        return body["content"]


class Postgres:
    """A throwaway PostgreSQL from scripts/postgres (tuned for tests: fsync off)."""

    def __init__(self, port):
        self.port = port
        self.dir = tempfile.mkdtemp(prefix="podium-sb-pg-")
        self.url = None

    def start(self):
        done = subprocess.run([str(REPO / "scripts/postgres"), "start", self.dir, str(self.port)],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise Failure(f"scripts/postgres start failed: {done.stderr.strip()}")
        self.url = done.stdout.strip().splitlines()[-1]
        return self.url

    def stop(self):
        subprocess.run([str(REPO / "scripts/postgres"), "stop", self.dir], capture_output=True, timeout=120)
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------- a WebSocket client (RFC 6455)


class WebSocket:
    """A blocking client: text frames out (masked), text frames in (fragments joined); answers
    pings; no extensions. Enough for the storyboard socket."""

    def __init__(self, url, timeout=30):
        assert url.startswith("ws://")
        rest = url[len("ws://"):]
        hostport, _, path = rest.partition("/")
        host, _, port = hostport.partition(":")
        self.sock = socket.create_connection((host, int(port or 80)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Failure("the socket closed during the upgrade")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise Failure(f"the upgrade answered {status.decode(errors='replace')}")
        self.send_lock = threading.Lock()
        self.closed = False

    def send_text(self, text):
        payload = text.encode()
        header = bytearray([0x81])
        n = len(payload)
        if n < 126:
            header.append(0x80 | n)
        elif n < 65536:
            header.append(0x80 | 126)
            header += struct.pack("!H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack("!Q", n)
        mask = os.urandom(4)
        header += mask
        # XOR with the mask, a machine word at a time.
        whole = (mask * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "little") ^ int.from_bytes(whole, "little")).to_bytes(n, "little") if n else b""
        with self.send_lock:
            self.sock.sendall(bytes(header) + masked)

    def send_json(self, message):
        self.send_text(json.dumps(message, separators=(",", ":")))

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise ConnectionError("the socket closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _frame(self):
        b0, b1 = self._read(2)
        opcode, n = b0 & 0x0F, b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read(8))[0]
        if b1 & 0x80:  # a server does not mask, but read it right if one did
            mask = self._read(4)
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(self._read(n)))
        else:
            data = self._read(n)
        return bool(b0 & 0x80), opcode, data

    def recv_text(self):
        """The next text message (None when the socket closed)."""
        parts = []
        while True:
            try:
                fin, opcode, data = self._frame()
            except (ConnectionError, OSError):
                self.closed = True
                return None
            if opcode == 0x9:  # ping
                with self.send_lock:
                    mask = os.urandom(4)
                    self.sock.sendall(bytes([0x8A, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
                continue
            if opcode == 0xA:
                continue
            if opcode == 0x8:
                self.closed = True
                return None
            parts.append(data)
            if fin:
                return b"".join(parts).decode()

    def recv_json(self):
        text = self.recv_text()
        return None if text is None else json.loads(text)

    def close(self):
        if self.closed:
            return
        self.closed = True
        try:
            with self.send_lock:
                self.sock.sendall(bytes([0x88, 0x80]) + os.urandom(4))
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


def storyboard_socket(server, storyboard_id):
    """A storyboard socket past its hello: (socket, welcome)."""
    ws = WebSocket(f"ws://127.0.0.1:{server.port}/api/v1/storyboards/{storyboard_id}/live")
    ws.sock.settimeout(None)
    ws.send_json({"type": "hello", "token": server.token})
    welcome = ws.recv_json()
    if not welcome or welcome.get("type") != "welcome":
        raise Failure(f"the storyboard socket answered the hello with {welcome}")
    return ws, welcome


def now_ms():
    """The machine's clock in ms: what a page's performance.timeOrigin + performance.now() says."""
    return time.time() * 1000


def stroke(stroke_id, points, seed=0, tool="pen", color="#222222", width=0.004):
    """A stroke of `points` points wandering across the shot (4 decimals, as the editor sends)."""
    import math
    out = []
    y0 = 0.1 + 0.8 * ((seed * 37) % 100) / 100
    for i in range(points):
        x = 0.05 + 0.9 * i / max(1, points - 1)
        y = y0 + 0.05 * math.sin(i / 4 + seed)
        out.append([round(x, 4), round(min(1.0, max(0.0, y)), 4), round(0.4 + 0.2 * math.sin(i / 3), 3)])
    return {"id": stroke_id, "tool": tool, "color": color, "width": width, "points": out}


# ---------------------------------------------------------------- a big project


class Builder:
    """Builds the project through the storyboard socket: a window of edits in flight, paced under
    the socket's message rate (100 a second)."""

    def __init__(self, server, storyboard_id, window=8, rate=80):
        self.ws, self.welcome = storyboard_socket(server, storyboard_id)
        self.window, self.rate = window, rate
        self.unacked = {}
        self.errors = []
        self.sent = 0
        self.next_at = time.monotonic()

    def _read_one(self):
        message = self.ws.recv_json()
        if message is None:
            raise Failure("the storyboard socket closed while building")
        if message.get("type") == "ack":
            self.unacked.pop(message["id"], None)
        elif message.get("type") == "error":
            if message.get("code") in ("rate_limited", "unavailable") and message.get("id") in self.unacked:
                time.sleep(0.5)
                self.ws.send_json(self.unacked[message["id"]])
            else:
                self.errors.append(message)
                self.unacked.pop(message.get("id"), None)

    def edit(self, edit_id, edit):
        while len(self.unacked) >= self.window:
            self._read_one()
        time.sleep(max(0.0, self.next_at - time.monotonic()))
        self.next_at = max(self.next_at + 1 / self.rate, time.monotonic())
        message = {"type": "edit", "id": edit_id, "edit": edit}
        self.unacked[edit_id] = message
        self.ws.send_json(message)
        self.sent += 1

    def finish(self):
        while self.unacked:
            self._read_one()
        self.ws.close()
        if self.errors:
            raise Failure(f"the server refused edits while building: {self.errors[:3]}")


def build(server, shots, strokes, points):
    project = server.new_storyboard(f"{shots} shots")
    first = project["content"]["scenes"][0]["shots"][0]
    scene = project["content"]["scenes"][0]["id"]
    builder = Builder(server, project["id"])
    started = time.monotonic()
    builder.edit("b-0", {"op": "addStrokes", "shot": first["id"], "layer": first["layers"][0]["id"],
                         "strokes": [stroke(f"k0-{j}", points, seed=j) for j in range(strokes)]})
    for i in range(1, shots):
        shot = {"id": f"s{i}", "number": "", "duration": 2, "dialogue": f"Line {i}", "action": "", "notes": "",
                "background": "#ffffff",
                "layers": [{"id": f"l{i}", "name": "Layer 1", "visible": True, "locked": False, "opacity": 1, "group": None,
                            "transform": {"x": 0, "y": 0, "scale": 1, "rotation": 0},
                            "strokes": [stroke(f"k{i}-{j}", points, seed=i * strokes + j) for j in range(strokes)]}]}
        builder.edit(f"b-{i}", {"op": "addShot", "scene": scene, "shot": shot})
    builder.finish()
    seconds = time.monotonic() - started
    return project, {"edits": builder.sent, "seconds": seconds}


# ---------------------------------------------------------------- browsers


def selenium_modules():
    try:
        import selenium  # noqa: F401
    except ImportError:  # a pyenv or venv python: use Debian's package
        sys.path.append("/usr/lib/python3/dist-packages")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    return webdriver, Service


def launch(width=1280, height=800):
    webdriver, Service = selenium_modules()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        f"--window-size={width},{height}", "--no-first-run", "--disable-extensions", "--mute-audio",
        "--password-store=basic", "--lang=en-US",
        # A real screen is in front: its timers and renderer are not throttled as a background tab's.
        "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(120)
    return driver


def sign_in(server, driver):
    driver.get(server.base + "/healthz")
    driver.add_cookie({"name": "podium_auth", "value": server.token, "path": "/"})


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
        time.sleep(0.05)


def quit_all(drivers):
    for driver in drivers:
        try:
            driver.quit()
        except Exception:
            pass


# ---------------------------------------------------------------- numbers and the machine


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    rank = p / 100 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(values):
    return {"n": len(values), "p50": percentile(values, 50), "p90": percentile(values, 90),
            "p99": percentile(values, 99), "max": max(values) if values else None, "min": min(values) if values else None}


def fmt(value, digits=1):
    return "—" if value is None else f"{value:.{digits}f}"


def line(name, s, unit="ms"):
    return (f"  {name:<34} n={s['n']:<5} p50 {fmt(s['p50'])} {unit}  p90 {fmt(s['p90'])}  p99 {fmt(s['p99'])}"
            f"  max {fmt(s['max'])}")


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def cpu_times():
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    return sum(parts), parts[3] + parts[4]


def own_cpu():
    """CPU seconds used so far by this run's processes (the server, the drivers, every Chromium
    process, and this script), read from /proc."""
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
    with open(f"/proc/{os.getpid()}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks, todo = int(fields[11]) + int(fields[12]), [os.getpid()]
    while todo:
        for pid, used in children.get(todo.pop(), []):
            ticks += used
            todo.append(pid)
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for row in f:
                if row.startswith("model name"):
                    return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


class Machine:
    """Load and CPU over a measured stretch: how much was ours and how much others'."""

    def begin(self):
        self.load_before = loadavg()
        self.cpu_before = cpu_times()
        self.own_before = own_cpu()
        self.t0 = time.monotonic()

    def end(self):
        seconds = time.monotonic() - self.t0
        cpu_after = cpu_times()
        own = own_cpu() - self.own_before
        total = cpu_after[0] - self.cpu_before[0]
        busy = 1 - (cpu_after[1] - self.cpu_before[1]) / total if total else 0.0
        cores = os.cpu_count() or 1
        self.result = {
            "cores": cores, "cpu": cpu_model(), "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "load_before": self.load_before, "load_after": loadavg(), "cpu_busy": busy, "seconds": seconds,
            "cpu_own": own / seconds if seconds else 0.0,
            "cpu_others": max(0.0, busy * cores - (own / seconds if seconds else 0.0)),
        }
        return self.result

    @staticmethod
    def describe(m):
        return (f"machine: {m['cores']} cores, {m['cpu']}; load {m['load_before'][0]:.2f} before, {m['load_after'][0]:.2f} after;"
                f" CPU {m['cpu_busy'] * 100:.0f} % busy over {m['seconds']:.0f} s: {m['cpu_own']:.2f} cores this run's"
                f" (server, browsers, this script), {m['cpu_others']:.2f} others'; {m['date']}")


def command_line():
    return " ".join([os.path.relpath(sys.argv[0], REPO) if os.path.isabs(sys.argv[0]) else sys.argv[0]] + sys.argv[1:])


def binary_path(arg):
    binary = arg if os.path.isabs(arg) else str(REPO / arg)
    if not os.access(binary, os.X_OK):
        raise Failure(f"no podium binary at {binary} (swift build -c release --product podium, or --bin)")
    return binary


def common_arguments(parser):
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--bin", default=os.environ.get("PODIUM_BIN", ".build/release/podium"),
                        help="the podium binary (default .build/release/podium, or $PODIUM_BIN)")
