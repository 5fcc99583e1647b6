#!/usr/bin/env python3
"""Two storyboard editors on two nodes, through faults. Two `podium serve` nodes on one
PostgreSQL; the admin makes a storyboard over REST and invites a second account; editor A
(the admin) holds a socket to node 1, editor B (the invited editor) one to node 2, straight to
the nodes (no load balancer: a client whose node is gone tries the other). Each draws strokes
(one `addStrokes` edit each, a few in flight), sends again with the same id every edit that has
no `ack` after a reconnect or an `error` `retry` (or `unavailable`), reconnects with `lastSeq`
and applies `missed` (or takes `storyboard` whole when the welcome has no `missed`), and applies
every `edited` in seq order (docs/protocol.md, "The storyboard socket").

Phases, each waiting on a condition with a timeout (CLUSTER_PHASE_TIMEOUT):
1. steady: A draws, B only listens: every edit of A's that is acknowledged reaches B live;
2. concurrent: both draw: every edit is stored, none answered `unavailable`;
3. kill -9 of node 2: B reconnects to node 1 and both go on; node 2 starts again and B moves
   back to it (its socket closed by the test, a resume with `lastSeq` on a fresh node);
4. pg_terminate_backend of node 1's listening connection: B, on node 2, still gets A's edits;
5. PostgreSQL restarts (edits answered `unavailable` meanwhile are sent again).
Afterwards: the `storyboard_edits` table holds seqs without a gap, every acknowledged edit once at
the seq of its ack, and both editors' layers and `GET /api/v1/storyboards/{id}` on each node have
exactly the table's strokes, in its order; each editor applied every seq once, in order.

Settings (environment): PODIUM_BIN (.build/debug/podium), CLUSTER_PORT (nodes on the next two,
18120), CLUSTER_PG_PORT (25450), CLUSTER_EDIT_RATE (edits a second per editor, 10),
CLUSTER_PHASE_TIMEOUT (seconds one phase may take, 20), CLUSTER_KEEP=1 keeps the logs.
Exit status 0 when every check holds, 1 otherwise (with what was lost, repeated or refused).
"""

import asyncio
import json
import os
import sys
import time

from nodes import Failure, Nodes, api, clean_up, ft, log, nofile_limit, sign_in, verdict

PORT = int(os.environ.get("CLUSTER_PORT", "18120"))
PG_PORT = int(os.environ.get("CLUSTER_PG_PORT", "25450"))
EDIT_RATE = float(os.environ.get("CLUSTER_EDIT_RATE", "10"))
PHASE_TIMEOUT = float(os.environ.get("CLUSTER_PHASE_TIMEOUT", "20"))
WINDOW = 4  # edits in flight at once per editor
PHASE_EDITS = 20  # new acknowledged edits per editor that end a phase


class Editor:
    """One person drawing on the storyboard's first layer, over one socket at a time."""

    def __init__(self, name, prefix, token, user_id, storyboard, ports):
        self.name, self.prefix, self.token, self.user_id = name, prefix, token, user_id
        self.path = f"/api/v1/storyboards/{storyboard}/live"
        self.ports = ports  # the preferred node first
        self.shot = self.layer = None
        self.strokes = []  # the layer's stroke ids as confirmed by the server, in order
        self.first_seq = None
        self.last = None
        self.applied = []  # (seq, how) of every edit applied
        self.live = set()  # seqs applied from an `edited` on an open socket
        self.violations = []
        self.sent = 0
        self.acked = {}  # edit id -> seq
        self.refused = {}  # edit id -> error code (an edit refused for good)
        self.errors = {}  # (phase, code) -> count
        self.phase = "start"
        self.drawing = False
        self.stopping = False
        self.socket = None
        self.port = None
        self.connected = asyncio.Event()
        self.welcomes = self.resumed = self.whole = 0

    def edit(self, n):
        x, y = 0.1 + (n % 80) / 100, 0.1 + (n % 7) / 10
        stroke = {"id": f"s{self.prefix}{n}", "tool": "pen", "color": "#222222", "width": 0.004,
                  "points": [[x, y, 0.5], [x + 0.05, y + 0.05, 0.6]]}
        return {"type": "edit", "id": f"{self.prefix}{n}",
                "edit": {"op": "addStrokes", "shot": self.shot, "layer": self.layer, "strokes": [stroke]}}

    def unacked(self):
        return [n for n in range(1, self.sent + 1)
                if f"{self.prefix}{n}" not in self.acked and f"{self.prefix}{n}" not in self.refused]

    def apply(self, message, how):
        seq = message["seq"]
        if seq != self.last + 1:
            kind = "duplicate" if seq <= self.last else "gap"
            self.violations.append(f"{kind}: seq {seq} after {self.last} ({how}, port {self.port})")
            if seq <= self.last:
                return
        edit = message.get("edit", {})
        if edit.get("op") != "addStrokes" or edit.get("layer") != self.layer:
            self.violations.append(f"seq {seq}: an edit this test never made: {json.dumps(edit)[:120]}")
        else:
            self.strokes += [s["id"] for s in edit["strokes"]]
        self.applied.append((seq, how))
        self.last = seq
        if how == "live":
            self.live.add(seq)

    @staticmethod
    def layer_strokes(storyboard):
        return [s["id"] for s in storyboard["scenes"][0]["shots"][0]["layers"][0]["strokes"]]

    def welcomed(self, welcome):
        self.welcomes += 1
        storyboard = welcome["storyboard"]
        if self.last is None:
            shot = storyboard["scenes"][0]["shots"][0]
            self.shot, self.layer = shot["id"], shot["layers"][0]["id"]
            self.first_seq = self.last = welcome["seq"]
            self.strokes = self.layer_strokes(storyboard)
        elif "missed" in welcome:
            self.resumed += 1
            for message in welcome["missed"]:
                self.apply(message, "missed")
            if welcome["seq"] != self.last:
                self.violations.append(f"welcome at seq {welcome['seq']} after missed up to {self.last}")
            if self.layer_strokes(storyboard) != self.strokes:
                self.violations.append(f"welcome at seq {welcome['seq']}: its storyboard differs from lastSeq + missed")
        else:
            # No `missed`: the protocol says to take the content whole.
            self.whole += 1
            if welcome["seq"] < self.last:
                self.violations.append(f"welcome at seq {welcome['seq']}, older than lastSeq {self.last}")
            self.applied.append((welcome["seq"], "whole"))
            self.last = welcome["seq"]
            self.strokes = self.layer_strokes(storyboard)

    async def connect(self):
        last_error = None
        for port in self.ports:
            try:
                return await ft.Socket.open(self.path, port), port
            except (ConnectionError, OSError) as error:
                last_error = error
        raise ConnectionError(f"no node took the socket: {last_error}")

    async def run(self):
        attempt = 0
        while not self.stopping:
            socket = None
            try:
                socket, port = await self.connect()
                hello = {"type": "hello", "token": self.token}
                if self.last is not None:
                    hello["lastSeq"] = self.last
                socket.send(hello)
                welcome = json.loads(await socket.receive())
                if welcome.get("type") != "welcome":
                    self.count("hello", welcome.get("code", welcome.get("type")))
                    raise ConnectionError(f"hello answered {welcome}")
                self.port, attempt = port, 0
                self.welcomed(welcome)
                self.socket = socket
                for n in self.unacked():
                    socket.send(self.edit(n))
                self.connected.set()
                while True:
                    message = json.loads(await socket.receive())
                    kind = message.get("type")
                    if kind == "edited":
                        self.apply(message, "live")
                    elif kind == "ack" and message.get("id", "").startswith(self.prefix):
                        self.acked[message["id"]] = message["seq"]
                    elif kind == "error":
                        self.error(message)
            except (ConnectionError, OSError, asyncio.IncompleteReadError, json.JSONDecodeError):
                pass
            finally:
                self.connected.clear()
                self.socket = None
                if socket:
                    socket.close()
            if not self.stopping:
                await ft.backoff(attempt)
                attempt += 1

    def count(self, phase, code):
        self.errors[(phase, code)] = self.errors.get((phase, code), 0) + 1

    def error(self, message):
        code, id = message.get("code"), message.get("id")
        self.count(self.phase, code)
        if not id or not id.startswith(self.prefix):
            self.violations.append(f"error without an edit's id: {message}")
        elif code in ("retry", "unavailable"):
            # Nothing changed: the same edit again, a moment later.
            asyncio.get_running_loop().call_later(0.2, self.resend, int(id[len(self.prefix):]))
        elif id not in self.acked:
            self.refused[id] = code

    def resend(self, n):
        if self.socket and f"{self.prefix}{n}" not in self.acked:
            self.socket.send(self.edit(n))

    async def draw(self):
        """New edits at EDIT_RATE while `drawing`, at most WINDOW unacknowledged."""
        next_edit = time.monotonic()
        while not self.stopping:
            now = time.monotonic()
            if self.drawing and self.socket and now >= next_edit and len(self.unacked()) < WINDOW:
                self.sent += 1
                self.socket.send(self.edit(self.sent))
                next_edit = now + 1 / EDIT_RATE
            await asyncio.sleep(0.01)

    def summary(self):
        errors = ", ".join(f"{code} x{n} ({phase})" for (phase, code), n in sorted(self.errors.items())) or "none"
        return (f"editor {self.name}: {len(self.acked)} edits acknowledged, {len(self.strokes)} strokes, "
                f"{self.welcomes} welcomes ({self.resumed} resumed with missed, {self.whole} whole), errors: {errors}")


# MARK: Checks


def verify(editors, stored, served):
    """Every way the run can have lost, repeated or refused something (empty: all held).
    `stored`: [(seq, command key, stroke ids)] from the table; `served`: node -> (seq, stroke ids)."""
    problems = []
    seqs = [seq for seq, _, _ in stored]
    if seqs and seqs != list(range(seqs[0], seqs[-1] + 1)):
        problems.append(f"the table's seqs have a gap: {ft.summarize(seqs)}")
    head = seqs[-1] if seqs else 0
    strokes = [s for _, _, ids in stored for s in ids]
    if len(set(strokes)) != len(strokes):
        problems.append(f"the table holds a stroke twice ({len(strokes) - len(set(strokes))} repeated)")
    by_key = {}
    for seq, key, _ in stored:
        by_key.setdefault(key, []).append(seq)
    for key, at in by_key.items():
        if key and len(at) > 1:
            problems.append(f"edit {key} is stored {len(at)} times, at {at}")
    for editor in editors:
        for id, seq in editor.acked.items():
            found = by_key.get(f"{editor.user_id}:{id}", [])
            if found != [seq]:
                problems.append(f"editor {editor.name}: edit {id} acknowledged with seq {seq} is stored at {found}")
        for id, code in editor.refused.items():
            problems.append(f"editor {editor.name}: edit {id} refused with {code}")
        for n in editor.unacked():
            problems.append(f"editor {editor.name}: edit {editor.prefix}{n} never acknowledged")
        if editor.violations:
            problems.append(f"editor {editor.name}: " + "; ".join(editor.violations[:3]))
        if editor.last != head:
            problems.append(f"editor {editor.name} ended at seq {editor.last}, the table at {head}")
        if editor.strokes != strokes:
            problems.append(f"editor {editor.name} has {len(editor.strokes)} strokes, the table {len(strokes)}"
                            f"{' (the same, in another order)' if sorted(editor.strokes) == sorted(strokes) else ''}")
    for node, (seq, ids) in served.items():
        if seq != head or ids != strokes:
            problems.append(f"GET on {node}: seq {seq} with {len(ids)} strokes, the table: seq {head}, {len(strokes)} strokes")
    return problems


def check_the_checker(editors, stored, served):
    """The checks must see a lost stroke, an edit stored twice and a node serving a stale copy."""
    import copy

    lost = copy.copy(editors[0])
    lost.strokes = editors[0].strokes[1:]
    acked = next(iter(editors[0].acked.items()))
    twice = stored + [(stored[-1][0] + 1, f"{editors[0].user_id}:{acked[0]}", ["s-again"])]
    stale = {"node1": (served["node1"][0] - 1, served["node1"][1][:-1])}
    for name, problems in [("a lost stroke", verify([lost], stored, {})),
                           ("an edit stored twice", verify([], twice, {})),
                           ("a stale copy", verify([], stored, stale))]:
        if not problems:
            raise Failure(f"the checks did not notice {name}")


# MARK: The run


async def main():
    cluster = Nodes(2, PORT, PG_PORT)
    failed, problems, tasks = True, [], []
    try:
        log(f"2 nodes on PostgreSQL (ports {PORT + 1}, {PORT + 2}), files in {cluster.work}")
        cluster.start()
        one, two = cluster.ports["node1"], cluster.ports["node2"]
        admin = await asyncio.to_thread(sign_in, one)
        await asyncio.to_thread(api, one, "POST", "/api/v1/users",
                                {"email": "grace@example.org", "name": "Grace", "password": "faults-grace"}, admin["token"])
        storyboard = (await asyncio.to_thread(api, one, "POST", "/api/v1/storyboards", {"title": "faults"}, admin["token"]))["id"]
        await asyncio.to_thread(api, one, "POST", f"/api/v1/storyboards/{storyboard}/editors",
                                {"email": "grace@example.org"}, admin["token"])
        grace = await asyncio.to_thread(sign_in, two, "grace@example.org", "faults-grace")
        a = Editor("A", "ea", admin["token"], admin["user"]["id"], storyboard, [one, two])
        b = Editor("B", "eb", grace["token"], grace["user"]["id"], storyboard, [two, one])
        editors = [a, b]
        for editor in editors:
            tasks.append(asyncio.create_task(editor.run()))
            await asyncio.wait_for(editor.connected.wait(), 20)
        tasks += [asyncio.create_task(e.draw()) for e in editors]
        log(f"storyboard {storyboard}: A on {a.port}, B on {b.port}")

        def fail(problem):
            log(f"FAIL: {problem}")
            problems.append(problem)

        async def until(what, condition, describe):
            """Waits for `condition`; a timeout is a problem, and the run goes on to the next phase."""
            deadline = time.monotonic() + PHASE_TIMEOUT
            while not condition():
                for t in tasks:
                    if t.done() and t.exception():
                        raise t.exception()
                if time.monotonic() > deadline:
                    fail(f"{what}: not within {PHASE_TIMEOUT:.0f} s: {describe()}")
                    return False
                await asyncio.sleep(0.05)
            log(f"{what}: {describe()}")
            return True

        def phase(name, drawing):
            for editor in editors:
                editor.phase = name
                editor.drawing = editor in drawing

        def head():
            return max((seq for e in editors for seq in e.acked.values()), default=0)

        async def progress(what, edits=PHASE_EDITS):
            """Each drawing editor has `edits` more edits acknowledged, and both editors have
            applied every acknowledged edit."""
            goal = {e: len(e.acked) + edits for e in editors if e.drawing}
            await until(what, lambda: all(len(e.acked) >= n for e, n in goal.items())
                        and all(e.last >= head() for e in editors),
                        lambda: ", ".join(f"{e.name} on {e.port}: {len(e.acked)} acked, at seq {e.last}" for e in editors)
                        + f"; newest ack {head()}")

        # 1. A draws, B listens.
        phase("steady", [a])
        await until("steady: A draws", lambda: len(a.acked) >= PHASE_EDITS, lambda: f"A has {len(a.acked)} acked")
        a.drawing = False
        a_seqs = lambda: set(a.acked.values())  # noqa: E731
        await until("steady: B, idle, sees A's strokes live", lambda: a_seqs() <= b.live,
                    lambda: f"B saw {len(a_seqs() & b.live)} of A's {len(a_seqs())} acknowledged edits live")

        # 2. Both draw.
        phase("concurrent", [a, b])
        await progress("concurrent: both draw")
        unavailable = sum(n for e in editors for (p, code), n in e.errors.items() if p == "concurrent" and code == "unavailable")
        if unavailable:
            fail(f"concurrent: {unavailable} edits answered unavailable (the database did not fail)")

        # 3. Node 2 killed: B goes to node 1; node 2 back, B back to it.
        phase("kill", [a, b])
        log("kill -9 node2 (B's node)")
        cluster.kill("node2")
        await until("kill: B reconnected to node 1", lambda: b.port == one and b.connected.is_set(),
                    lambda: f"B on {b.port}, connected: {b.connected.is_set()}")
        await progress("kill: both draw on node 1")
        cluster.start_node("node2")
        await asyncio.to_thread(cluster.wait_ready, "node2")
        if b.socket:
            b.socket.close()  # B's next try is its own node, with lastSeq
        await until("kill: B back on node 2 (restarted)", lambda: b.port == two and b.connected.is_set(),
                    lambda: f"B on {b.port}, connected: {b.connected.is_set()}")
        await progress("kill: A on node 1, B on node 2")

        # 4. Node 1's listening connection cut.
        phase("listener", [a, b])
        backend, node = await asyncio.to_thread(cluster.listener, "node2")
        if node != "node1":
            log(f"warning: the listening connection found is {node}'s, not node1's")
        cluster.psql(f"SELECT pg_terminate_backend({backend})")
        log(f"pg_terminate_backend of {node}'s listening connection")
        await progress(f"listener: after terminating {node}'s listening connection")

        # 5. PostgreSQL restarts.
        phase("restart", [a, b])
        log("restarting PostgreSQL")
        await asyncio.to_thread(cluster.restart_postgres)
        for name in cluster.nodes:
            await asyncio.to_thread(cluster.wait_ready, name)
        await progress("restart: after restarting PostgreSQL")

        # The end: no new edits, every one acknowledged, both editors at the newest.
        phase("end", [])
        await until("end: every edit acknowledged, both editors at the head",
                    lambda: not any(e.unacked() for e in editors) and all(e.last >= head() for e in editors),
                    lambda: ", ".join(f"{e.name}: {len(e.unacked())} unacked, at {e.last}" for e in editors)
                    + f"; newest ack {head()}")
        for e in editors:
            e.stopping = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

        rows = json.loads(cluster.psql(
            "SELECT coalesce(json_agg(json_build_object('seq', seq, 'key', command_key, 'edit', edit) ORDER BY seq), '[]') "
            f"FROM storyboard_edits WHERE storyboard_id = '{storyboard}'"))
        stored = [(r["seq"], r["key"] or "", [s["id"] for s in json.loads(r["edit"]).get("strokes", [])]) for r in rows]
        served = {}
        for name, port in cluster.ports.items():
            got = await asyncio.to_thread(api, port, "GET", f"/api/v1/storyboards/{storyboard}", None, admin["token"])
            served[name] = (got.get("seq"), Editor.layer_strokes(got["content"]))
        problems += verify(editors, stored, served)
        check_the_checker(editors, stored, served)
        for e in editors:
            log(e.summary())
        log(f"{len(stored)} edits stored (seq {stored[0][0] if stored else '-'} to {stored[-1][0] if stored else '-'}), "
            + ", ".join(f"GET on {n}: seq {s}, {len(ids)} strokes" for n, (s, ids) in served.items()))
        failed = verdict(problems, "both editors and both nodes have exactly the table's strokes, every edit once, in order") != 0
        return int(failed)
    except Failure as error:
        print(f"FAIL: {error}", file=sys.stderr)
        return 1
    finally:
        clean_up(cluster, failed, tasks)


if __name__ == "__main__":
    nofile_limit()
    sys.exit(asyncio.run(main()))
