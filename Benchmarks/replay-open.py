#!/usr/bin/python3
"""Opening the replay of a session of ~5,000 events (issue #44: "a replay of a session with
thousands of events opens in about a second").

A `podium serve` on a throwaway data directory (SQLite, or --database for PostgreSQL); the demo
deck; a session recorded from its start (`recording` on) and driven through its live socket by
a presenter and VIEWERS viewers: page changes, zooms, ink strokes (each drawn with `inking`
messages first), the laser pointer, polls the viewers answer, public questions, until it holds
EVENTS durable events; then ended. Then `GET /api/v1/sessions/{code}/replay` as its host, RUNS
times: the time to the whole answer (the server reads the events, the audience's records and the
pointer's side log, replays them through the session state for the views, and encodes it all),
and its size. The first request is the session's first read after it ended.

The session is driven as fast as the server answers (the socket's message rate raised for it,
PODIUM_SOCKET_MESSAGE_RATE), so its pointer side log is short: a real hour's is ~18,000 samples.

Usage: python3 Benchmarks/replay-open.py [--events 5000] [--viewers 20] [--runs 5] [--bin .build/debug/podium] [--json]
"""

import argparse
import json
import random
import sys
import time
import urllib.request

sys.path.insert(0, __import__("os").path.dirname(__file__))
from storyboard_common import (  # noqa: E402
    REPO, Failure, Machine, Server, WebSocket, binary_path, command_line, fmt, log, summary,
)


def upload_deck(server):
    data = (REPO / "Public/demo/podium-demo.pdf").read_bytes()
    request = urllib.request.Request(
        server.base + "/api/v1/decks", data=data, method="POST",
        headers={"Content-Type": "application/pdf", "Authorization": "Bearer " + server.token})
    with urllib.request.urlopen(request, timeout=120) as response:
        deck = json.loads(response.read())
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        status, body = server.request("GET", f"/api/v1/decks/{deck['id']}")
        if body and body.get("status") == "ready":
            return body
        if body and body.get("status") == "failed":
            raise Failure(f"the deck failed: {body}")
        time.sleep(0.2)
    raise Failure("the deck was not ready within 180 s")


class Live:
    """One participant's socket, commands answered in order."""

    def __init__(self, server, code, hello):
        self.ws = WebSocket(f"ws://127.0.0.1:{server.port}/api/v1/sessions/{code}/live")
        self.ws.send_json(dict(hello, type="hello"))
        welcome = self.next_of("welcome")
        self.welcome = welcome
        self.count = 0

    def next_of(self, kind):
        while True:
            message = self.ws.recv_json()
            if message is None:
                raise Failure(f"the socket closed waiting for {kind}")
            if message.get("type") == kind:
                return message
            if message.get("type") == "error" and kind == "welcome":
                raise Failure(f"hello refused: {message}")

    def send(self, command):
        self.count += 1
        command = dict(command, id=f"b{self.count}")
        self.ws.send_json(command)
        return command["id"]

    def acked(self, ids):
        """Reads until every id is answered; returns the answers' seqs."""
        waiting, last = set(ids), 0
        while waiting:
            message = self.ws.recv_json()
            if message is None:
                raise Failure("the socket closed before every command was answered")
            if message.get("type") == "ack" and message.get("id") in waiting:
                waiting.discard(message["id"])
                last = max(last, message.get("seq", 0))
            elif message.get("type") == "error" and message.get("id") in waiting:
                raise Failure(f"refused: {message}")
        return last


def drive(server, code, pages, events, viewers):
    presenter = Live(server, code, {"role": "presenter", "token": server.token})
    # Each viewer's socket is a new identity (no cookie): the server gives it one.
    audience = [Live(server, code, {"role": "viewer", "name": f"Viewer {n}"}) for n in range(viewers)]
    rng = random.Random(44)
    seq = presenter.acked([presenter.send({"type": "recording", "on": True})])
    presenter.acked([presenter.send({"type": "setQuestionMode", "questions": {"public": True, "approval": False}})])
    stroke = 0
    while seq < events - 2:
        batch = []
        for step in range(50):
            roll = rng.random()
            if roll < 0.45:
                batch.append(presenter.send({"type": "goto", "page": rng.randint(1, pages)}))
            elif roll < 0.6:
                w = rng.uniform(0.3, 0.8)
                batch.append(presenter.send({"type": "zoom", "viewport": {"x": rng.uniform(0, 1 - w), "y": rng.uniform(0, 1 - w), "w": w, "h": w}}))
            else:
                points = [[round(rng.random(), 4), round(rng.random(), 4), 0.5] for _ in range(30)]
                for n in (5, 15, 30):
                    presenter.ws.send_json({"type": "inking", "page": 1, "tool": "pen", "color": "#e53935", "width": 0.004, "points": points[:n]})
                stroke += 1
                batch.append(presenter.send({"type": "stroke", "stroke": {"page": 1, "tool": "pen", "color": "#e53935", "width": 0.004, "points": points}}))
                presenter.ws.send_json({"type": "inking", "done": True})
            presenter.ws.send_json({"type": "pointer", "x": round(rng.random(), 4), "y": round(rng.random(), 4)})
        seq = presenter.acked(batch)
        if seq // 250 != (seq - 50) // 250:
            # A poll every ~250 events, answered by every viewer; a question now and then.
            opened = presenter.acked([presenter.send({"type": "openPoll", "poll": {
                "kind": "choice", "question": f"Poll {seq}", "choices": ["A", "B", "C"], "showResults": True}})])
            for viewer in audience:
                viewer.acked([viewer.send({"type": "answer", "pollId": opened, "choices": [rng.randint(0, 2)]})])
            if audience:
                audience[seq % len(audience)].acked([audience[seq % len(audience)].send(
                    {"type": "ask", "text": f"Question at {seq}?", "anonymous": False})])
            seq = presenter.acked([presenter.send({"type": "closePoll", "pollId": opened})])
    seq = presenter.acked([presenter.send({"type": "end"})])
    for socket in [presenter] + audience:
        socket.ws.close()
    return seq, stroke


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--viewers", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--database", help="a PostgreSQL URL (default: SQLite in the data directory)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--bin", default=__import__("os").environ.get("PODIUM_BIN", ".build/release/podium"))
    args = parser.parse_args()
    __import__("os").environ["PODIUM_SOCKET_MESSAGE_RATE"] = "100000"
    server = Server(binary_path(args.bin), database=args.database)
    machine = Machine()
    try:
        server.start()
        deck = upload_deck(server)
        status, session = server.request("POST", "/api/v1/sessions", {"deckId": deck["id"]})
        if status != 201:
            raise Failure(f"POST /api/v1/sessions answered {status}: {session}")
        code = session["code"]
        log(f"driving session {code} to {args.events} events with {args.viewers} viewers")
        started = time.monotonic()
        seq, strokes = drive(server, code, deck["pageCount"], args.events, args.viewers)
        log(f"{seq} events ({strokes} strokes) in {time.monotonic() - started:.1f} s")
        machine.begin()
        times, size, timeline = [], 0, None
        for _ in range(args.runs):
            request = urllib.request.Request(server.base + f"/api/v1/sessions/{code}/replay",
                                             headers={"Authorization": "Bearer " + server.token})
            t0 = time.monotonic()
            with urllib.request.urlopen(request, timeout=120) as response:
                body = response.read()
            times.append((time.monotonic() - t0) * 1000)
            size = len(body)
            timeline = json.loads(body)
        result = {
            "command": command_line(), "binary": args.bin, "database": "postgres" if args.database else "sqlite",
            "events": len(timeline["events"]), "views": len(timeline["views"]), "pointer": len(timeline["pointer"]),
            "drawn": len(timeline["drawn"]), "bytes": size, "first_ms": times[0], "ms": summary(times[1:] or times),
            "machine": machine.end(),
        }
    finally:
        server.stop()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        s = result["ms"]
        print(f"replay of {result['events']} events ({result['views']} views, {result['pointer']} pointer samples,"
              f" {result['drawn']} strokes drawn), {result['bytes'] / 1e6:.2f} MB, {result['database']}, {args.bin}:")
        print(f"  first GET {fmt(result['first_ms'])} ms; then median {fmt(s['p50'])} ms, p90 {fmt(s['p90'])} ms,"
              f" max {fmt(s['max'])} ms over {len(times) - 1 or 1} runs")
        print("  " + Machine.describe(result["machine"]))


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        log(f"failed: {failure}")
        sys.exit(1)
