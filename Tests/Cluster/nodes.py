"""What the cluster tests beside fault_test.py share: nodes on one throwaway PostgreSQL reached
directly (no load balancer: each client chooses its node), REST calls to a chosen node, and
stopping or freezing PostgreSQL under them. The WebSocket client, the viewer and the cluster's
processes are fault_test.py's (imported from it)."""

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fault_test as ft  # noqa: E402

ROOT, BIN, log, Failure = ft.ROOT, ft.BIN, ft.log, ft.Failure
PASSWORD = "faults"  # the admin's (PODIUM_ADMIN_PASSWORD of every node)


class Nodes(ft.Cluster):
    """`count` nodes on ports base+1.., PostgreSQL on pg_port (or the next free few), no HAProxy.
    `options` are added to every node's `podium serve` (the documented defaults otherwise)."""

    def __init__(self, count, base_port, pg_port, options=()):
        super().__init__()
        if not self.on_postgres:
            raise Failure("this podium has no --database option (no PostgreSQL store)")
        self.count, self.base_port, self.first_pg_port, self.options = count, base_port, pg_port, list(options)
        # No metrics listener: every node would try the default address (and the tests read none).
        if "--metrics-address" in subprocess.run([BIN, "serve", "--help"], capture_output=True, text=True).stdout:
            self.options += ["--metrics-address", "off"]

    def start(self):
        for port in range(self.first_pg_port, self.first_pg_port + 6):
            try:
                self.database = self.start_postgres(port)
                self.pg_port = port
                break
            except Failure as error:
                log(f"PostgreSQL on port {port}: {error}")
        else:
            raise Failure("PostgreSQL did not start")
        # scripts/postgres runs with synchronous_commit off (fast tests), which a crash
        # (stop -m immediate) punishes by losing the last commits, events whose seq the nodes
        # had sent. Production commits synchronously: so do the nodes' connections here.
        self.psql("ALTER DATABASE postgres SET synchronous_commit = on")
        os.makedirs(os.path.join(self.work, "blobs"), exist_ok=True)
        for i in range(1, self.count + 1):
            self.ports[f"node{i}"] = self.base_port + i
        for name in self.ports:
            self.start_node(name)
        for name in self.nodes:
            self.wait_ready(name)

    def start_node(self, name):
        options = [BIN, "serve", "--host", "127.0.0.1", "--port", str(self.ports[name]),
                   "--log-level", os.environ.get("CLUSTER_LOG_LEVEL", "notice"),
                   "--data-dir", os.path.join(self.work, name),
                   "--database", self.database, "--blob-dir", os.path.join(self.work, "blobs"),
                   "--database-connections", "10", "--bus-check-seconds", "2"] + self.options
        out = open(os.path.join(self.work, f"{name}.log"), "a")
        env = dict(os.environ, PODIUM_ADMIN_PASSWORD=PASSWORD)
        self.nodes[name] = subprocess.Popen(options, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)

    # MARK: PostgreSQL away

    def pg_ctl(self, *arguments):
        pg_ctl = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]
        command = [pg_ctl, f"--pgdata={self.postgres}/data", *arguments]
        if os.getuid() == 0:
            command = ["runuser", "-u", "postgres", "--"] + command
        subprocess.run(command, check=True, capture_output=True)

    def stop_postgres_immediately(self):
        """As a crash: every backend killed, no checkpoint, connections cut."""
        self.pg_ctl("--mode=immediate", "--wait", "stop")

    def start_postgres_again(self):
        deadline = time.monotonic() + 15
        while True:
            try:
                return self.start_postgres(self.pg_port)
            except Failure:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def postgres_processes(self):
        with open(os.path.join(self.postgres, "data", "postmaster.pid")) as f:
            postmaster = int(f.readline())
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        return [postmaster] + [int(pid) for pid in children]

    def freeze_postgres(self):
        """Every PostgreSQL process stopped (SIGSTOP): connections stay open and nothing answers,
        as a database host that hangs or a network that drops packets. Returns what to thaw."""
        frozen = self.postgres_processes()
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        return frozen

    def thaw_postgres(self, frozen):
        for pid in reversed(frozen):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    def stop(self):
        # A frozen PostgreSQL would not stop: thaw whatever is still stopped first.
        try:
            self.thaw_postgres(self.postgres_processes())
        except (OSError, ValueError):
            pass
        super().stop()


def api(port, method, path, body=None, token=None, content_type="application/json"):
    """One REST call to the node on `port`; the answer's JSON (None when empty)."""
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    req.add_header("Content-Type", content_type)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=20) as response:
            text = response.read()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        raise Failure(f"{method} {path} on {port}: {error.code} {error.read()[:200]!r}") from None


def sign_in(port, email="admin", password=PASSWORD):
    return api(port, "POST", "/api/v1/auth/login", {"email": email, "password": password})


def nofile_limit():
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def verdict(problems, passed):
    """The test's end: each problem (the first 20) and their count as FAIL lines, exit status 1;
    or `passed` logged as PASS, exit status 0."""
    if problems:
        for problem in problems[:20]:
            print("FAIL: " + problem, file=sys.stderr)
        print(f"FAIL: {len(problems)} problem(s) ({time.monotonic() - ft.STARTED:.1f} s)", file=sys.stderr)
        return 1
    log(f"PASS: {passed} ({time.monotonic() - ft.STARTED:.1f} s)")
    return 0


def clean_up(cluster, failed, tasks=()):
    """Cancels the test's tasks, prints the nodes' last log lines if it failed, stops the cluster,
    and keeps its work directory (logs) if it failed or CLUSTER_KEEP=1, else removes it."""
    for task in tasks:
        task.cancel()
    if failed:
        cluster.tail_logs()
    cluster.stop()
    if os.environ.get("CLUSTER_KEEP") == "1" or failed:
        print(f"logs kept in {cluster.work}", file=sys.stderr)
    else:
        shutil.rmtree(cluster.work, ignore_errors=True)
