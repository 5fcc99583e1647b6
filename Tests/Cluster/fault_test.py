#!/usr/bin/env python3
"""Faults in a cluster: three `podium serve` nodes on one PostgreSQL behind HAProxy, a presenter
(and a second one on another node, deciding commands for the same session at the same time) and
a few hundred viewers spread over them, durable commands and pointer moves flowing, while
the test kills a node holding viewers (kill -9), kills the presenter's node, terminates a node's
listening connection (pg_terminate_backend) and restarts PostgreSQL. Afterwards every viewer must
have applied seq s0+1..N exactly once and in order (s0: the seq at its first welcome), N the
session's head in the `session_events` table, which holds 1..N without a gap; every acknowledged
command must be in the table exactly once, at the seq of its ack. Only ephemeral frames (the
pointer) may be lost.

Viewers and the presenter behave as the protocol tells a client to (docs/protocol.md): on a lost
socket they reconnect through the load balancer, to whichever node it picks, with `lastSeq`; the
presenter sends its unacknowledged commands again with the same ids.

Each phase waits on a condition (events seen by every viewer, /readyz), never a fixed time.
With a podium that has no PostgreSQL store (no `--database` option) it runs what exists: one
SQLite node behind HAProxy, killed with -9 and restarted; the PostgreSQL faults are skipped.

Settings (environment): PODIUM_BIN (.build/debug/podium), CLUSTER_VIEWERS (300),
CLUSTER_COMMAND_RATE (durable commands a second, 10), CLUSTER_POINTER_RATE (10),
CLUSTER_PORT (HAProxy; nodes on the next three, 18090), CLUSTER_PG_PORT (25434),
CLUSTER_PHASE_TIMEOUT (seconds one phase may take, 20), CLUSTER_KEEP=1 keeps the logs.
Exit status 0 when every check holds, 1 otherwise (with what was lost or repeated).
"""

import asyncio
import base64
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.abspath(os.path.join(ROOT, os.environ.get("PODIUM_BIN", ".build/debug/podium")))
VIEWERS = int(os.environ.get("CLUSTER_VIEWERS", "300"))
COMMAND_RATE = float(os.environ.get("CLUSTER_COMMAND_RATE", "10"))
POINTER_RATE = float(os.environ.get("CLUSTER_POINTER_RATE", "10"))
PORT = int(os.environ.get("CLUSTER_PORT", "18090"))
PG_PORT = int(os.environ.get("CLUSTER_PG_PORT", "25434"))
PHASE_TIMEOUT = float(os.environ.get("CLUSTER_PHASE_TIMEOUT", "20"))
KEEP = os.environ.get("CLUSTER_KEEP") == "1"
# Commands in flight at once (the presenter does not wait for each ack before the next).
WINDOW = 4
STARTED = time.monotonic()


def log(message):
    print(f"[{time.monotonic() - STARTED:5.1f} s] {message}", flush=True)


class Failure(Exception):
    pass


# MARK: WebSocket client (RFC 6455, client side, text frames only)


class Socket:
    """One WebSocket connection through the load balancer; `node` is the node that took it."""

    def __init__(self, reader, writer, node):
        self.reader, self.writer, self.node = reader, writer, node

    @staticmethod
    async def open(path, port=None):
        """Through the load balancer, or straight to the node on `port` (the other cluster tests)."""
        port = port or PORT
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0]:
            writer.close()
            raise ConnectionError(f"upgrade refused: {lines[0]}")
        node = next((l.split(":", 1)[1].strip() for l in lines if l.lower().startswith("x-podium-node:")), str(port))
        return Socket(reader, writer, node)

    def send(self, message):
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x81])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(header + mask + masked)

    async def receive(self):
        """The next text message (bytes); answers pings; raises ConnectionError when the socket ends."""
        message = b""
        while True:
            first, second = await self.reader.readexactly(2)
            n = second & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
            payload = await self.reader.readexactly(n)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("closed by the server")
            if opcode == 0x9:
                mask = os.urandom(4)
                self.writer.write(bytes([0x8A, 0x80 | n]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
                continue
            if opcode in (0x1, 0x0):
                message += payload
                if first & 0x80:
                    return message

    def close(self):
        try:
            self.writer.close()
        except Exception:
            pass


async def backoff(attempt):
    await asyncio.sleep(min(0.1 * 2**attempt, 2.0) * (0.5 + random.random()))


# MARK: Viewers and presenter


class Viewer:
    def __init__(self, number, path, port=None):
        self.number, self.path, self.port = number, path, port
        self.first_seq = None  # seq of the first welcome
        self.last = None  # last seq applied
        self.applied = []  # every durable seq applied, in order
        self.violations = []  # what a correct server never does
        self.pointers = 0
        self.pointers_by_node = {}  # HAProxy server name -> pointer frames received there
        self.welcomes = 0
        self.node = None
        self.connected = asyncio.Event()
        self.stopping = False

    def apply(self, seq, where):
        if seq != self.last + 1:
            kind = "duplicate" if seq <= self.last else "gap"
            self.violations.append(f"{kind}: seq {seq} after {self.last} ({where}, node {self.node})")
            if seq <= self.last:
                return
        self.applied.append(seq)
        self.last = seq

    async def run(self):
        attempt = 0
        while not self.stopping:
            socket = None
            try:
                socket = await Socket.open(self.path, self.port)
                hello = {"type": "hello", "role": "viewer"}
                if self.last is not None:
                    hello["lastSeq"] = self.last
                socket.send(hello)
                welcome = json.loads(await socket.receive())
                if welcome.get("type") != "welcome":
                    raise ConnectionError(f"hello answered {welcome}")
                self.node = socket.node
                self.welcomes += 1
                attempt = 0
                if self.last is None:
                    self.first_seq = self.last = welcome["seq"]
                elif "events" not in welcome:
                    self.violations.append(f"welcome after lastSeq {self.last} without events (seq {welcome['seq']})")
                    self.last = welcome["seq"]
                else:
                    for event in welcome["events"]:
                        self.apply(event["seq"], "welcome")
                self.connected.set()
                while True:
                    text = await socket.receive()
                    if b'"type":"pointer"' in text:
                        self.pointers += 1
                        self.pointers_by_node[self.node] = self.pointers_by_node.get(self.node, 0) + 1
                        continue
                    message = json.loads(text)
                    if "seq" in message and message.get("type") not in ("ack", "welcome", "error"):
                        self.apply(message["seq"], "live")
                    elif message.get("type") == "reconnect":
                        break
            except (ConnectionError, OSError, asyncio.IncompleteReadError, json.JSONDecodeError):
                pass
            finally:
                self.connected.clear()
                if socket:
                    socket.close()
            if not self.stopping:
                await backoff(attempt)
                attempt += 1


class Presenter:
    """Sends zoom commands (each a different viewport, so each makes exactly one event) with ids,
    a few in flight; sends the unacknowledged ones again after a reconnect; moves the pointer.
    Two of them (ids `c…` and `b…`, on two nodes) decide commands for the session at once."""

    def __init__(self, path, token, prefix="c", y=0.25, pointer=True):
        self.path, self.token, self.prefix, self.y, self.pointer = path, token, prefix, y, pointer
        self.sent = 0  # commands c1..c<sent> made
        self.acked = {}  # id -> seq of its ack
        self.unavailable = 0
        self.node = None
        self.sending = True
        self.stopping = False
        self.socket = None
        self.connected = asyncio.Event()

    def command(self, n):
        x = 0.1 + (n % 1000) / 10000
        return {"type": "zoom", "id": f"{self.prefix}{n}", "viewport": {"x": x, "y": self.y, "w": 0.5, "h": 0.5}}

    def unacked(self):
        return [n for n in range(1, self.sent + 1) if f"{self.prefix}{n}" not in self.acked]

    async def run(self):
        attempt = 0
        while not self.stopping:
            socket = None
            try:
                socket = await Socket.open(self.path)
                socket.send({"type": "hello", "role": "presenter", "token": self.token})
                welcome = json.loads(await socket.receive())
                if welcome.get("type") != "welcome":
                    raise ConnectionError(f"presenter hello answered {welcome}")
                self.node, self.socket, attempt = socket.node, socket, 0
                for n in self.unacked():
                    socket.send(self.command(n))
                self.connected.set()
                while True:
                    message = json.loads(await socket.receive())
                    if message.get("type") == "ack" and message.get("id", "").startswith(self.prefix):
                        self.acked[message["id"]] = message["seq"]
                    elif message.get("type") == "error" and message.get("id"):
                        if message.get("code") != "unavailable":
                            raise Failure(f"command refused: {message}")
                        # Nothing was stored: the same command again, a moment later.
                        self.unavailable += 1
                        asyncio.get_running_loop().call_later(0.2, self.resend, int(message["id"][len(self.prefix):]))
                    elif message.get("type") == "reconnect":
                        break
            except (ConnectionError, OSError, asyncio.IncompleteReadError, json.JSONDecodeError):
                pass
            finally:
                self.connected.clear()
                self.socket = None
                if socket:
                    socket.close()
            if not self.stopping:
                await backoff(attempt)
                attempt += 1

    def resend(self, n):
        if self.socket and f"{self.prefix}{n}" not in self.acked:
            self.socket.send(self.command(n))

    async def publish(self):
        """New commands at COMMAND_RATE (at most WINDOW unanswered) and the pointer at POINTER_RATE."""
        next_command = next_pointer = time.monotonic()
        moves = 0
        while not self.stopping:
            now = time.monotonic()
            if self.socket:
                if self.sending and now >= next_command and len(self.unacked()) < WINDOW:
                    self.sent += 1
                    self.socket.send(self.command(self.sent))
                    next_command = now + 1 / COMMAND_RATE
                if self.pointer and POINTER_RATE > 0 and now >= next_pointer:
                    moves += 1
                    self.socket.send({"type": "pointer", "x": (moves % 100) / 100, "y": 0.5})
                    next_pointer = now + 1 / POINTER_RATE
            await asyncio.sleep(0.01)


# MARK: The cluster


class Cluster:
    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="podium-faults.")
        os.chmod(self.work, 0o755)
        self.nodes = {}  # name -> Popen
        self.ports = {}
        self.haproxy = None
        self.database = None
        self.postgres = os.path.join(self.work, "postgres")
        help_text = subprocess.run([BIN, "serve", "--help"], capture_output=True, text=True).stdout
        self.on_postgres = "--database" in help_text
        self.count = 3 if self.on_postgres else 1

    def start(self):
        if self.on_postgres:
            # The port is in the kernel's range of ephemeral ports: another program's outgoing
            # connection may hold it for a moment, so the next few ports are tried too.
            for port in range(PG_PORT, PG_PORT + 6):
                try:
                    self.database = self.start_postgres(port)
                    self.pg_port = port
                    break
                except Failure as error:
                    log(f"PostgreSQL on port {port}: {error}")
            else:
                raise Failure("PostgreSQL did not start")
        os.makedirs(os.path.join(self.work, "blobs"), exist_ok=True)
        for i in range(1, self.count + 1):
            self.ports[f"node{i}"] = PORT + i
        # Together, on an empty database: one node migrates and creates the admin account, the
        # others wait for the migrations' lock and find it.
        for name in self.ports:
            self.start_node(name)
        for name in self.nodes:
            self.wait_ready(name)
        config = os.path.join(self.work, "haproxy.cfg")
        with open(os.path.join(ROOT, "deploy/haproxy.cfg")) as source, open(config, "w") as target:
            text = source.read()
            if not self.on_postgres:
                text = text.replace("GET /readyz", "GET /healthz")
            # Faster checks than production's, so a phase waits less for a restarted node.
            target.write(text.replace("inter 1s fall 2 rise 2", "inter 500ms fall 2 rise 1"))
        names = list(self.ports)
        env = dict(
            os.environ, PODIUM_LISTEN=f"127.0.0.1:{PORT}", PODIUM_MAXCONN="4000",
            **{f"PODIUM_NODE{i}": f"127.0.0.1:{self.ports[names[(i - 1) % len(names)]]}" for i in (1, 2, 3)},
        )
        out = open(os.path.join(self.work, "haproxy.log"), "w")
        self.haproxy = subprocess.Popen([shutil.which("haproxy") or "/usr/sbin/haproxy", "-db", "-f", config],
                                        env=env, stdout=out, stderr=subprocess.STDOUT)
        self.wait_http(f"http://127.0.0.1:{PORT}/healthz", 20)

    def start_postgres(self, port):
        started = subprocess.run([os.path.join(ROOT, "scripts/postgres"), "start", self.postgres, str(port)],
                                 capture_output=True, text=True)
        if started.returncode != 0:
            lines = [l for l in started.stderr.splitlines() if "FATAL" in l or "could not" in l]
            raise Failure("; ".join(lines[-2:]) or started.stderr.strip()[-300:])
        return started.stdout.strip()

    def restart_postgres(self):
        subprocess.run([os.path.join(ROOT, "scripts/postgres"), "stop", self.postgres], check=True, capture_output=True)
        deadline = time.monotonic() + 10
        while True:
            try:
                return self.start_postgres(self.pg_port)
            except Failure:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def start_node(self, name):
        options = [BIN, "serve", "--host", "127.0.0.1", "--port", str(self.ports[name]), "--log-level", os.environ.get("CLUSTER_LOG_LEVEL", "notice"),
                   "--data-dir", os.path.join(self.work, name), "--socket-message-rate", "1000"]
        if self.on_postgres:
            # A smaller pool than production's 20 (three nodes and the test share one small
            # PostgreSQL), and the periodic check every 2 s: a lost hint costs a phase less wait.
            options += ["--database", self.database, "--blob-dir", os.path.join(self.work, "blobs"),
                        "--database-connections", "10", "--bus-check-seconds", "2"]
        out = open(os.path.join(self.work, f"{name}.log"), "a")
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD="faults")
        self.nodes[name] = subprocess.Popen(options, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)

    def wait_http(self, url, seconds):
        deadline = time.monotonic() + seconds
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        return
            except Exception:
                pass
            if time.monotonic() > deadline:
                raise Failure(f"no 200 from {url} within {seconds} s")
            time.sleep(0.1)

    def wait_ready(self, name):
        base = f"http://127.0.0.1:{self.ports[name]}"
        self.wait_http(base + "/healthz", 60)
        if self.on_postgres:
            self.wait_http(base + "/readyz", 30)

    def process_of(self, server):
        """The node behind one of HAProxy's server names (several names share one node when there is one)."""
        names = list(self.ports)
        return names[(int(server.removeprefix("node")) - 1) % len(names)]

    def kill(self, name):
        self.nodes[name].send_signal(signal.SIGKILL)
        self.nodes[name].wait()

    def psql(self, sql):
        return subprocess.run(["psql", self.database, "-XAt", "-c", sql], check=True, capture_output=True,
                              text=True).stdout

    def listener(self, avoid):
        """(backend pid, node) of a node's listening connection, not `avoid`'s when another is found.
        The bus's own connection is the one whose last statement is its LISTEN or a pg_notify; its
        node is the process at the other end of the backend's client port."""
        rows = self.psql(
            "SELECT pid, client_port FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
            "AND (query ILIKE 'LISTEN%' OR query ILIKE '%pg_notify(%')").split()
        if not rows:
            raise Failure("no connection is listening (no LISTEN or pg_notify in pg_stat_activity)")
        node_of_port = {}
        sockets = subprocess.run(["ss", "-tnpH"], capture_output=True, text=True).stdout
        for line in sockets.splitlines():
            fields = line.split()
            if len(fields) >= 6 and fields[4].endswith(f":{self.pg_port}") and "pid=" in fields[5]:
                pid = int(fields[5].split("pid=")[1].split(",")[0])
                node_of_port[fields[3].rsplit(":", 1)[1]] = pid
        pids = {process.pid: name for name, process in self.nodes.items()}
        found = [(backend, pids.get(node_of_port.get(port), "an unknown node"))
                 for backend, port in (row.split("|") for row in rows)]
        return next(((b, n) for b, n in found if n != avoid), found[0])

    def events(self, session_id):
        """(seq, command_id) of every stored event of the session, in seq order."""
        query = f"SELECT seq, coalesce(command_id, '') FROM session_events WHERE session_id = '{session_id}' ORDER BY seq"
        if self.on_postgres:
            text = self.psql(query)
        else:
            text = subprocess.run(["sqlite3", os.path.join(self.work, "node1", "podium.sqlite"), query],
                                  check=True, capture_output=True, text=True).stdout
        return [(int(line.split("|")[0]), line.split("|", 1)[1]) for line in text.splitlines() if line]

    def stop(self):
        for process in list(self.nodes.values()) + [self.haproxy]:
            if process and process.poll() is None:
                process.terminate()
        for process in list(self.nodes.values()) + [self.haproxy]:
            if process:
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        if self.on_postgres:
            subprocess.run([os.path.join(ROOT, "scripts/postgres"), "stop", self.postgres], capture_output=True)

    def tail_logs(self):
        for name in sorted(os.listdir(self.work)):
            if name.endswith(".log"):
                with open(os.path.join(self.work, name), errors="replace") as f:
                    lines = f.readlines()[-8:]
                print(f"--- {name}\n" + "".join(lines), file=sys.stderr)


def request(method, path, body=None, token=None, content_type="application/json"):
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, method=method)
    req.add_header("Content-Type", content_type)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=20) as response:
        return json.loads(response.read())


def make_session():
    token = request("POST", "/api/v1/auth/login", {"email": "admin", "password": "faults"})["token"]
    with open(os.path.join(ROOT, "Tests/Fixtures/pdf/ghostscript-a4.pdf"), "rb") as f:
        deck = request("POST", "/api/v1/decks?title=faults", f.read(), token, "application/pdf")["id"]
    deadline = time.monotonic() + 60
    while request("GET", f"/api/v1/decks/{deck}", token=token).get("status") != "ready":
        if time.monotonic() > deadline:
            raise Failure("the deck was not processed within 60 s")
        time.sleep(0.2)
    session = request("POST", "/api/v1/sessions", {"deckId": deck}, token)
    return token, session["id"], session["code"]


# MARK: Checks


def pointer_problems(viewers, cluster):
    """The pointer may lose frames, but it should cross nodes: viewers on every node see it move."""
    by_node = {name: 0 for name in cluster.nodes}
    for viewer in viewers:
        for server, count in viewer.pointers_by_node.items():
            by_node[cluster.process_of(server)] += count
    log(f"pointer frames by node: {by_node}")
    return [f"no pointer frame reached the viewers on {name}" for name, count in by_node.items() if count == 0]


def verify(viewers, presenters, stored):
    """Every way the run can have lost or repeated something, as a list of sentences (empty: all held)."""
    problems = []
    seqs = [seq for seq, _ in stored]
    head = seqs[-1] if seqs else 0
    if seqs != list(range(1, head + 1)):
        problems.append(f"the table's seqs are not 1..{head} without a gap: {summarize(seqs)}")
    by_command = {}
    for seq, command in stored:
        if command:
            by_command.setdefault(command, []).append(seq)
    for presenter in presenters:
        for command, seq in presenter.acked.items():
            found = by_command.get(command, [])
            if found != [seq]:
                problems.append(f"command {command} acked with seq {seq} is stored at {found}")
        for n in presenter.unacked():
            problems.append(f"command {presenter.prefix}{n} never acknowledged")
    for viewer in viewers:
        expected = list(range(viewer.first_seq + 1, head + 1)) if viewer.first_seq is not None else None
        if viewer.violations:
            problems.append(f"viewer {viewer.number}: " + "; ".join(viewer.violations[:3]))
        elif viewer.applied != expected:
            problems.append(
                f"viewer {viewer.number} applied {summarize(viewer.applied)}, the table has {viewer.first_seq}+1..{head}")
    return problems


def summarize(seqs):
    if len(seqs) <= 12:
        return str(seqs)
    return f"{len(seqs)} seqs from {seqs[0]} to {seqs[-1]}"


def check_the_checker(viewers, presenters, stored):
    """The checks must see a lost event, a repeated one and a command stored twice."""
    import copy

    lost = copy.copy(viewers[0])
    lost.applied = viewers[0].applied[:3] + viewers[0].applied[4:]
    repeated = copy.copy(viewers[-1])
    repeated.violations = [f"duplicate: seq {viewers[-1].applied[2]}"]
    twice = stored + [(stored[-1][0] + 1, next(iter(presenters[0].acked)))]
    for name, problems in [
        ("a lost event", verify([lost], presenters, stored)),
        ("a repeated event", verify([repeated], presenters, stored)),
        ("a command stored twice", verify([], presenters, twice)),
    ]:
        if not problems:
            raise Failure(f"the checks did not notice {name}")


# MARK: The run


async def main():
    cluster = Cluster()
    failed = True
    try:
        log(f"{cluster.count} node(s) ({'PostgreSQL' if cluster.on_postgres else 'SQLite: no --database in this podium'}), "
            f"HAProxy on {PORT}, files in {cluster.work}")
        cluster.start()
        token, session_id, code = await asyncio.to_thread(make_session)
        path = f"/api/v1/sessions/{code}/live"
        presenter = Presenter(path, token)
        viewers = [Viewer(i, path) for i in range(VIEWERS)]
        # The second presenter connects next, so round robin puts it on another node.
        second = Presenter(path, token, prefix="b", y=0.3, pointer=False)
        presenters = [presenter, second]
        tasks = [asyncio.create_task(presenter.run())]
        await asyncio.wait_for(presenter.connected.wait(), 20)
        tasks.append(asyncio.create_task(second.run()))
        await asyncio.wait_for(second.connected.wait(), 20)
        tasks += [asyncio.create_task(v.run()) for v in viewers]
        await asyncio.wait_for(asyncio.gather(*(v.connected.wait() for v in viewers)), 60)
        spread = {}
        for v in viewers:
            node = cluster.process_of(v.node)
            spread[node] = spread.get(node, 0) + 1
        log(f"session {code}: presenters on {cluster.process_of(presenter.node)} and {cluster.process_of(second.node)}, {VIEWERS} viewers on {dict(sorted(spread.items()))}")
        tasks += [asyncio.create_task(p.publish()) for p in presenters]

        async def progress(what, events=5):
            """Waits until every viewer has applied `events` more durable events than the newest ack now."""
            target = max((seq for p in presenters for seq in p.acked.values()), default=0) + events
            deadline = time.monotonic() + PHASE_TIMEOUT
            while min((v.last or 0) for v in viewers) < target:
                if any(t.done() and t.exception() for t in tasks):
                    for t in tasks:
                        if t.done() and t.exception():
                            raise t.exception()
                if time.monotonic() > deadline:
                    behind = [v for v in viewers if (v.last or 0) < target]
                    raise Failure(
                        f"{what}: {len(behind)} viewers below seq {target} after {PHASE_TIMEOUT:.0f} s "
                        f"(e.g. viewer {behind[0].number} at {behind[0].last} on {behind[0].node}, "
                        f"connected: {behind[0].connected.is_set()}); presenters acked {sum(len(p.acked) for p in presenters)}, "
                        f"{sum(len(p.unacked()) for p in presenters)} unacked")
                await asyncio.sleep(0.05)
            log(f"{what}: every viewer has seq {target}")

        await progress("steady")

        async def kill(victim, what):
            """kill -9, progress on the other nodes, then the node back (one node: back at once)."""
            log(f"kill -9 {victim} ({what})")
            cluster.kill(victim)
            if cluster.count == 1:
                cluster.start_node(victim)
            await progress(f"after killing {victim}")
            if cluster.count > 1:
                cluster.start_node(victim)
                await asyncio.to_thread(cluster.wait_ready, victim)

        # 1. A node holding viewers (not the presenter's); 2. the presenter's node.
        presenter_node = cluster.process_of(presenter.node)
        victim = next((n for n in cluster.nodes if n != presenter_node and spread.get(n)), presenter_node)
        await kill(victim, f"{spread.get(victim, 0)} viewers")
        presenter_node = cluster.process_of(presenter.node)
        await kill(presenter_node, f"the presenter's node, {sum(1 for v in viewers if cluster.process_of(v.node) == presenter_node)} viewers")

        if cluster.on_postgres:
            # 3. A node's listening connection: preferably one that receives the presenter's hints.
            backend, node = cluster.listener(avoid=cluster.process_of(presenter.node))
            cluster.psql(f"SELECT pg_terminate_backend({backend})")
            log(f"pg_terminate_backend of {node}'s listening connection")
            await progress(f"after terminating {node}'s listening connection")

        # 4. PostgreSQL restarts.
        if cluster.on_postgres:
            log("restarting PostgreSQL")
            await asyncio.to_thread(cluster.restart_postgres)
            for name in cluster.nodes:
                await asyncio.to_thread(cluster.wait_ready, name)
            await progress("after restarting PostgreSQL")
        else:
            log("skipped (no PostgreSQL store): terminating a listening connection, restarting PostgreSQL")

        # Stop new commands; wait for every ack and for every viewer to reach the head.
        for p in presenters:
            p.sending = False
        deadline = time.monotonic() + PHASE_TIMEOUT
        while any(p.unacked() for p in presenters) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        head = max((seq for p in presenters for seq in p.acked.values()), default=0)
        while min((v.last or 0) for v in viewers) < head and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for p in presenters:
            p.stopping = True
        for v in viewers:
            v.stopping = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

        stored = await asyncio.to_thread(cluster.events, session_id)
        problems = verify(viewers, presenters, stored)
        # The pointer may lose frames (it is ephemeral), so a node whose viewers saw none is
        # reported, not failed: one run in four saw none on the presenter's first node.
        for warning in pointer_problems(viewers, cluster):
            log(f"warning: {warning}")
        check_the_checker(viewers, presenters, stored)
        reconnects = sum(v.welcomes - 1 for v in viewers)
        pointers = sum(v.pointers for v in viewers)
        log(f"{sum(len(p.acked) for p in presenters)} commands acked ({sum(p.unavailable for p in presenters)} answered unavailable and sent again), "
            f"{len(stored)} events stored, {reconnects} viewer reconnects, {pointers} pointer frames delivered")
        if problems:
            for problem in problems[:20]:
                print("FAIL: " + problem, file=sys.stderr)
            print(f"FAIL: {len(problems)} problem(s)", file=sys.stderr)
            return 1
        log(f"PASS: every viewer has every event exactly once, in order; every command once ({time.monotonic() - STARTED:.1f} s)")
        failed = False
        return 0
    except Failure as error:
        print(f"FAIL: {error}", file=sys.stderr)
        return 1
    finally:
        if failed:
            cluster.tail_logs()
        cluster.stop()
        if KEEP or failed:
            print(f"logs kept in {cluster.work}", file=sys.stderr)
        else:
            shutil.rmtree(cluster.work, ignore_errors=True)


if __name__ == "__main__":
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    sys.exit(asyncio.run(main()))
