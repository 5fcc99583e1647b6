#!/usr/bin/env python3
"""A database outage under a presenter. Two `podium serve` nodes on one PostgreSQL, at the
documented socket message rate (no --socket-message-rate); a presenter on node 1 changes page
5 times a second (`goto`, each a durable command with its id) and moves the pointer 20 times a
second; viewers on node 1 (and a few on node 2) follow, straight to their nodes. PostgreSQL then
goes away twice for CLUSTER_OUTAGE_SECONDS: stopped as in a crash (`pg_ctl stop -m immediate`)
and started again, then frozen (every PostgreSQL process SIGSTOPped: connections stay open and
nothing answers) and thawed.

During each outage:
- the viewers on node 1 keep receiving pointer frames: in most whole seconds (80 %), every one of
  them gets at least one;
- nothing is answered `rate_limited` (25 messages a second is under the documented 100);
- every page change sent is answered `unavailable` within CLUSTER_UNAVAILABLE_WITHIN seconds.
After each: page changes are acknowledged again, and at the end every viewer has applied every
event of the `session_events` table after its first welcome, exactly once and in order.
The figures (pointer frames a second, answer times) are printed whatever the outcome.

Settings (environment): PODIUM_BIN (.build/debug/podium), CLUSTER_PORT (nodes on the next two,
18130), CLUSTER_PG_PORT (25456), CLUSTER_VIEWERS (viewers on node 1, 30; a fifth of that on node 2),
CLUSTER_OUTAGE_SECONDS (10), CLUSTER_UNAVAILABLE_WITHIN (5), CLUSTER_PHASE_TIMEOUT (20),
CLUSTER_OUTAGES (stop,freeze), CLUSTER_KEEP=1 keeps the logs.
Exit status 0 when every check holds, 1 otherwise.
"""

import asyncio
import json
import os
import statistics
import sys
import time

from nodes import Failure, Nodes, api, clean_up, ft, log, nofile_limit, sign_in, verdict

PORT = int(os.environ.get("CLUSTER_PORT", "18130"))
PG_PORT = int(os.environ.get("CLUSTER_PG_PORT", "25456"))
VIEWERS = int(os.environ.get("CLUSTER_VIEWERS", "30"))
OUTAGE = float(os.environ.get("CLUSTER_OUTAGE_SECONDS", "10"))
UNAVAILABLE_WITHIN = float(os.environ.get("CLUSTER_UNAVAILABLE_WITHIN", "5"))
PHASE_TIMEOUT = float(os.environ.get("CLUSTER_PHASE_TIMEOUT", "20"))
OUTAGES = os.environ.get("CLUSTER_OUTAGES", "stop,freeze").split(",")
PAGE_RATE, POINTER_RATE = 5.0, 20.0
FLOWING = 0.8  # the share of an outage's seconds in which every viewer on node 1 must see the pointer


class Presenter:
    """Page changes with ids (never sent again: the next one supersedes it) and pointer moves,
    on one socket to one node; every answer with the moment it came. Each page change asks for
    the page the presenter is not on (as the events say), so none is a no-op the server could
    acknowledge without storing it."""

    def __init__(self, port, path, token):
        self.port, self.path, self.token = port, path, token
        self.sent = {}  # id -> moment sent
        self.answers = {}  # id -> (moment, "ack" or the error's code)
        self.errors = []  # (moment, message) of every error
        self.count = 0
        self.sending = True
        self.stopping = False
        self.socket = None
        self.connected = asyncio.Event()
        self.welcomes = 0
        self.page = 1

    async def run(self):
        attempt = 0
        while not self.stopping:
            socket = None
            try:
                socket = await ft.Socket.open(self.path, self.port)
                socket.send({"type": "hello", "role": "presenter", "token": self.token})
                welcome = json.loads(await socket.receive())
                if welcome.get("type") != "welcome":
                    raise ConnectionError(f"presenter hello answered {welcome}")
                self.welcomes += 1
                self.page = welcome.get("snapshot", {}).get("page", self.page)
                self.socket, attempt = socket, 0
                self.connected.set()
                while True:
                    message = json.loads(await socket.receive())
                    now = time.monotonic()
                    if message.get("type") == "page":
                        self.page = message["page"]
                    elif message.get("type") == "ack" and message.get("id") in self.sent:
                        self.answers.setdefault(message["id"], (now, "ack"))
                    elif message.get("type") == "error":
                        self.errors.append((now, message))
                        if message.get("id") in self.sent:
                            self.answers.setdefault(message["id"], (now, message.get("code")))
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

    async def publish(self):
        next_page = next_pointer = time.monotonic()
        moves = 0
        while not self.stopping:
            now = time.monotonic()
            if self.socket:
                if self.sending and now >= next_page:
                    self.count += 1
                    id = f"p{self.count}"
                    self.sent[id] = now
                    self.socket.send({"type": "goto", "id": id, "page": 2 if self.page == 1 else 1})
                    next_page += 1 / PAGE_RATE
                if now >= next_pointer:
                    moves += 1
                    self.socket.send({"type": "pointer", "x": (moves % 100) / 100, "y": 0.5})
                    next_pointer += 1 / POINTER_RATE
            await asyncio.sleep(0.005)

    def rate_limited(self):
        return [m for _, m in self.errors if m.get("code") == "rate_limited"]


class PointerClock:
    """The pointer frames each viewer had, read every 0.1 s: frames per viewer per second."""

    def __init__(self, viewers):
        self.viewers, self.readings = viewers, []

    async def run(self):
        while True:
            self.readings.append((time.monotonic(), [v.pointers for v in self.viewers]))
            await asyncio.sleep(0.1)

    def at(self, moment):
        return next((counts for t, counts in self.readings if t >= moment), self.readings[-1][1])

    def seconds(self, start, end):
        """[per-viewer frame counts] for each whole second from start to end."""
        out = []
        t = start
        while t + 1 <= end:
            before, after = self.at(t), self.at(t + 1)
            out.append([b - a for a, b in zip(before, after)])
            t += 1
        return out


async def main():
    cluster = Nodes(2, PORT, PG_PORT)
    failed, problems, tasks, figures = True, [], [], []
    try:
        log(f"2 nodes on PostgreSQL (ports {PORT + 1}, {PORT + 2}), files in {cluster.work}")
        cluster.start()
        one, two = cluster.ports["node1"], cluster.ports["node2"]
        token = (await asyncio.to_thread(sign_in, one))["token"]
        with open(os.path.join(ft.ROOT, "Tests/Fixtures/pdf/ghostscript-a4.pdf"), "rb") as f:
            deck = (await asyncio.to_thread(api, one, "POST", "/api/v1/decks?title=outage", f.read(), token,
                                            "application/pdf"))["id"]
        deadline = time.monotonic() + 60
        while (await asyncio.to_thread(api, one, "GET", f"/api/v1/decks/{deck}", None, token)).get("status") != "ready":
            if time.monotonic() > deadline:
                raise Failure("the deck was not processed within 60 s")
            await asyncio.sleep(0.2)
        session = await asyncio.to_thread(api, one, "POST", "/api/v1/sessions", {"deckId": deck}, token)
        path = f"/api/v1/sessions/{session['code']}/live"
        presenter = Presenter(one, path, token)
        here = [ft.Viewer(i, path, one) for i in range(VIEWERS)]
        there = [ft.Viewer(VIEWERS + i, path, two) for i in range(max(1, VIEWERS // 5))]
        viewers = here + there
        tasks.append(asyncio.create_task(presenter.run()))
        await asyncio.wait_for(presenter.connected.wait(), 20)
        tasks += [asyncio.create_task(v.run()) for v in viewers]
        await asyncio.wait_for(asyncio.gather(*(v.connected.wait() for v in viewers)), 30)
        clock = PointerClock(here)
        tasks += [asyncio.create_task(presenter.publish()), asyncio.create_task(clock.run())]
        log(f"session {session['code']}: the presenter and {len(here)} viewers on node 1, {len(there)} on node 2")

        def fail(problem):
            log(f"FAIL: {problem}")
            problems.append(problem)

        async def until(what, condition, describe):
            deadline = time.monotonic() + PHASE_TIMEOUT
            while not condition():
                for t in tasks:
                    if t.done() and not t.cancelled() and t.exception():
                        raise t.exception()
                if time.monotonic() > deadline:
                    fail(f"{what}: not within {PHASE_TIMEOUT:.0f} s: {describe()}")
                    return False
                await asyncio.sleep(0.05)
            log(f"{what}: {describe()}")
            return True

        def acked_since(moment):
            return [id for id, (t, answer) in presenter.answers.items() if answer == "ack" and presenter.sent[id] >= moment]

        def newest_ack():
            return max((t for t, answer in presenter.answers.values() if answer == "ack"), default=0)

        async def following(what):
            """Page changes acknowledged, and every viewer has the events of the ones sent until now."""
            since = time.monotonic()
            await until(f"{what}: page changes acknowledged", lambda: len(acked_since(since)) >= 5,
                        lambda: f"{len(acked_since(since))} acknowledged since")
            target = max(v.last or 0 for v in viewers)
            await until(f"{what}: every viewer follows", lambda: min(v.last or 0 for v in viewers) >= target,
                        lambda: f"every viewer at seq {target} or later "
                                f"(slowest {min(v.last or 0 for v in viewers)})")

        await following("steady")
        await until("steady: the pointer reaches every viewer on node 1", lambda: min(v.pointers for v in here) >= 10,
                    lambda: f"at least {min(v.pointers for v in here)} pointer frames each")

        for kind in OUTAGES:
            limited_before = len(presenter.rate_limited())
            if kind == "stop":
                await asyncio.to_thread(cluster.stop_postgres_immediately)
                what = "PostgreSQL stopped (immediate)"
            elif kind == "freeze":
                frozen = cluster.freeze_postgres()
                what = "PostgreSQL frozen (SIGSTOP)"
            else:
                raise Failure(f"unknown outage {kind} in CLUSTER_OUTAGES")
            start = time.monotonic()
            log(f"{what} for {OUTAGE:.0f} s")
            # The fault lasts a set time: what is measured is how the node behaves meanwhile.
            await asyncio.sleep(OUTAGE)
            end = time.monotonic()
            if kind == "stop":
                await asyncio.to_thread(cluster.start_postgres_again)
            else:
                cluster.thaw_postgres(frozen)
            back = time.monotonic()
            log(f"PostgreSQL back ({kind})")
            await following(f"after the {kind}")
            first_ack = min((presenter.answers[id][0] for id in acked_since(back)), default=None)

            # The figures of this outage.
            seconds = clock.seconds(start, end)
            flowing = sum(1 for counts in seconds if min(counts) > 0)
            per_second = [sum(counts) / len(counts) for counts in seconds]
            during = [id for id, t in presenter.sent.items() if start <= t < end]
            answered = {id: presenter.answers.get(id) for id in during}
            waits = [answer[0] - presenter.sent[id] for id, answer in answered.items() if answer]
            codes = {}
            for answer in answered.values():
                codes[answer[1] if answer else "no answer"] = codes.get(answer[1] if answer else "no answer", 0) + 1
            limited = presenter.rate_limited()[limited_before:]
            figure = (f"{kind}: {len(seconds)} s; pointer frames a second per viewer on node 1: "
                      f"{' '.join(f'{n:.0f}' for n in per_second)} (every viewer had one in {flowing} of {len(seconds)} s); "
                      f"{len(during)} page changes sent: {codes}; answer time max {max(waits, default=0):.2f} s, "
                      f"median {statistics.median(waits) if waits else 0:.2f} s; {len(limited)} rate_limited; "
                      f"first ack {first_ack - back if first_ack else float('nan'):.2f} s after PostgreSQL was back")
            log(figure)
            figures.append(figure)
            if flowing < FLOWING * len(seconds):
                fail(f"{kind}: the pointer reached every viewer on node 1 in only {flowing} of {len(seconds)} seconds")
            if limited:
                fail(f"{kind}: {len(limited)} messages answered rate_limited, e.g. {limited[0]}")
            late = [(id, answer) for id, answer in answered.items()
                    if not answer or answer[1] != "unavailable" or answer[0] - presenter.sent[id] > UNAVAILABLE_WITHIN]
            if late:
                id, answer = late[0]
                fail(f"{kind}: {len(late)} of {len(during)} page changes sent during the outage were not answered "
                     f"unavailable within {UNAVAILABLE_WITHIN:.0f} s (e.g. {id}: "
                     f"{f'{answer[1]} after {answer[0] - presenter.sent[id]:.1f} s' if answer else 'no answer'})")

        # The end: no new page changes; every viewer at the table's head.
        presenter.sending = False
        await until("end: every page change answered", lambda: len(presenter.answers) == len(presenter.sent),
                    lambda: f"{len(presenter.answers)} of {len(presenter.sent)} answered")
        stored = await asyncio.to_thread(cluster.events, session["id"])
        head = stored[-1][0] if stored else 0
        await until("end: every viewer at the table's head", lambda: min(v.last or 0 for v in viewers) >= head,
                    lambda: f"table head {head}, slowest viewer at {min(v.last or 0 for v in viewers)}")
        presenter.stopping = True
        for v in viewers:
            v.stopping = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        problems += ft.verify(viewers, [], stored)
        commands = [command for _, command in stored if command]
        if len(set(commands)) != len(commands):
            problems.append(f"{len(commands) - len(set(commands))} page changes are stored twice")
        reconnects = sum(v.welcomes - 1 for v in viewers)
        log(f"{sum(1 for _, a in presenter.answers.values() if a == 'ack')} page changes acknowledged of "
            f"{len(presenter.sent)}, {len(stored)} events stored, {reconnects} viewer reconnects, "
            f"{presenter.welcomes - 1} presenter reconnects, errors: "
            f"{sorted({m.get('code') for _, m in presenter.errors})}")
        for figure in figures:
            print("FIGURES " + figure, flush=True)
        failed = verdict(problems, "the presenter's node kept the pointer flowing, refused nothing as rate_limited and answered "
                                   f"unavailable within {UNAVAILABLE_WITHIN:.0f} s; every viewer has the table's events") != 0
        return int(failed)
    except Failure as error:
        print(f"FAIL: {error}", file=sys.stderr)
        return 1
    finally:
        clean_up(cluster, failed, tasks)


if __name__ == "__main__":
    nofile_limit()
    sys.exit(asyncio.run(main()))
