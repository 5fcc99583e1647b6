#!/usr/bin/python3
"""Confirmed-save latency under 20 strokes a second from five editors.

Issue #19's third storyboard benchmark. A release `podium serve` on a throwaway data directory,
on SQLite (the default) or on a throwaway PostgreSQL (`--store postgres`: scripts/postgres on
port 55497, which runs it with fsync off, as for the tests). One project with five shots; five
storyboard sockets (Python clients, storyboard_common.py), each an editor drawing on its own
shot: 4 `addStrokes` edits a second each (one pen stroke of 50 points, 4 decimals, as the editor
sends), 20 a second in all, evenly spread (an edit every 50 ms, the editors taking turns), for 30 s.

Reported (ms, on this machine's monotonic clock, one process):
- send → `ack` (the server has stored the edit: "saved" in the editor), p50/p90/p99/max;
- send → `edited` at every other editor (the last of the four), the committed stroke reaching the
  collaborators;
- that every edit was acknowledged exactly once and refused never, that every editor received
  every `edited` once, with seqs 1… without a gap, and that the project holds every stroke after.

Goal (issue #19): "a change is durable within one second" (the ack comes only after the store
has it).

With `--shots 500` the project is first built as storyboard-open.py builds it (500 shots of 20
strokes of 50 points), and the editors draw on its first five shots: every 200 edits the server
writes a snapshot of the whole project, which is then 12 MB.

Usage: python3 Benchmarks/storyboard-saves.py [--store sqlite|postgres] [--seconds 30] [--editors 5] [--rate 4]
       [--shots 500] [--json]
Needs: swift build -c release --product podium; for --store postgres, scripts/setup --test (PostgreSQL).
"""

import argparse
import json
import signal
import sys
import threading
import time

from storyboard_common import (
    Failure, Machine, Postgres, Server, binary_path, build, command_line, common_arguments, line, log, stroke,
    storyboard_socket, summary,
)

GOAL_MS = 1000.0  # durable within one second
POSTGRES_PORT = 55497


class Editor:
    def __init__(self, server, storyboard_id, number, shot, layer):
        self.number, self.shot, self.layer = number, shot, layer
        self.ws, self.welcome = storyboard_socket(server, storyboard_id)
        self.sent = {}  # id -> perf_counter at send
        self.acks = {}  # id -> [perf_counter of each ack]
        self.seqs = {}  # id -> seq
        self.edited = {}  # by (id) -> perf_counter of arrival here
        self.edited_count = 0
        self.edited_seqs = []
        self.errors = []
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        while True:
            message = self.ws.recv_json()
            t = time.perf_counter()
            if message is None:
                return
            kind = message.get("type")
            if kind == "ack":
                self.acks.setdefault(message["id"], []).append(t)
                self.seqs[message["id"]] = message["seq"]
            elif kind == "edited":
                self.edited_count += 1
                self.edited_seqs.append(message["seq"])
                if message.get("by"):
                    self.edited.setdefault(message["by"], t)
            elif kind == "error":
                self.errors.append(message)

    def send(self, k, points):
        edit_id = f"e{self.number}-{k}"
        message = {"type": "edit", "id": edit_id, "edit": {
            "op": "addStrokes", "shot": self.shot, "layer": self.layer,
            "strokes": [stroke(f"k{self.number}-{k}", points, seed=self.number * 1000 + k)]}}
        text = json.dumps(message, separators=(",", ":"))
        self.sent[edit_id] = time.perf_counter()
        self.ws.send_text(text)


def run(args):
    postgres = None
    database = None
    try:
        if args.store == "postgres":
            postgres = Postgres(POSTGRES_PORT)
            database = postgres.start()
            log(f"PostgreSQL on port {POSTGRES_PORT}")
        server = Server(binary_path(args.bin), database=database)
        editors = []
        try:
            server.start()
            if args.shots > args.editors:
                # A big project (as storyboard-open.py builds it): its snapshots are big too.
                log(f"building {args.shots} shots of 20 strokes of 50 points first")
                project, _ = build(server, args.shots, 20, 50)
            else:
                project = server.new_storyboard("Saves benchmark")
                scene = project["content"]["scenes"][0]["id"]
                setup, _ = storyboard_socket(server, project["id"])
                for i in range(1, args.editors):
                    setup.send_json({"type": "edit", "id": f"setup-{i}", "edit": {"op": "addShot", "scene": scene, "shot": {
                        "id": f"shot{i}", "number": "", "duration": 2, "dialogue": "", "action": "", "notes": "", "background": "#ffffff",
                        "layers": [{"id": f"layer{i}", "name": "Layer 1", "visible": True, "locked": False, "opacity": 1, "group": None,
                                    "transform": {"x": 0, "y": 0, "scale": 1, "rotation": 0}, "strokes": []}]}}})
                    while True:
                        message = setup.recv_json()
                        if message.get("type") == "ack":
                            break
                        if message.get("type") == "error":
                            raise Failure(f"setting up the shots: {message}")
                setup.close()
            content = server.content(project["id"])
            shots = [s for sc in content["scenes"] for s in sc["shots"]]
            for i in range(args.editors):
                editors.append(Editor(server, project["id"], i + 1, shots[i]["id"], shots[i]["layers"][0]["id"]))
            base_seq = editors[0].welcome["seq"]
            time.sleep(0.5)
            total = int(args.seconds * args.rate * args.editors)
            step = 1 / (args.rate * args.editors)
            log(f"{args.editors} editors, {args.rate} edits a second each ({total} edits in {args.seconds:.0f} s) on {args.store}")
            machine = Machine()
            machine.begin()
            start = time.perf_counter() + 0.1
            late = []
            for n in range(total):
                at = start + n * step
                wait = at - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                else:
                    late.append(-wait)
                editors[n % args.editors].send(n // args.editors, args.points)
            deadline = time.perf_counter() + 10
            while time.perf_counter() < deadline and any(len(e.acks) < len(e.sent) or e.edited_count < total for e in editors):
                time.sleep(0.05)
            machine.end()
            time.sleep(0.3)
            content = server.content(project["id"])
            strokes = sum(len(layer["strokes"]) for sc in content["scenes"] for s in sc["shots"] for layer in s["layers"])
            return analyse(args, machine.result, editors, total, base_seq, strokes, late)
        finally:
            for e in editors:
                e.ws.close()
            server.stop()
    finally:
        if postgres:
            postgres.stop()


def analyse(args, machine, editors, total, base_seq, strokes, late):
    ack_ms, fanout_ms = [], []
    acked_once = acked_twice = unacked = 0
    seqs = []
    for e in editors:
        for edit_id, sent in e.sent.items():
            acks = e.acks.get(edit_id, [])
            if not acks:
                unacked += 1
                continue
            acked_once += len(acks) == 1
            acked_twice += len(acks) > 1
            ack_ms.append((acks[0] - sent) * 1000)
            seqs.append(e.seqs[edit_id])
            others = [o.edited.get(edit_id) for o in editors if o is not e]
            if all(t is not None for t in others):
                fanout_ms.append((max(others) - sent) * 1000)
    edited_ok = all(sorted(e.edited_seqs) == list(range(base_seq + 1, base_seq + total + 1)) for e in editors)
    worst = summary(ack_ms)["max"]
    return {
        "command": command_line(), "machine": machine, "store": args.store,
        "setup": {"editors": args.editors, "rate_each": args.rate, "seconds": args.seconds, "points": args.points,
                  "shots": max(args.shots, args.editors)},
        "edits": total, "acked_once": acked_once, "acked_more_than_once": acked_twice, "never_acked": unacked,
        "errors": sum(len(e.errors) for e in editors), "error_codes": sorted({m.get("code") for e in editors for m in e.errors}),
        "seqs_unique_and_contiguous": sorted(seqs) == list(range(base_seq + 1, base_seq + total + 1)),
        "every_editor_got_every_edited_once": edited_ok,
        "strokes_stored": strokes,
        "ack": summary(ack_ms), "edited_at_all_others": summary(fanout_ms),
        "sender_late_ms": summary([x * 1000 for x in late]),
        "goal_durable_within_1s": worst is not None and worst < GOAL_MS and unacked == 0,
    }


def print_table(r):
    s = r["setup"]
    print(f"Confirmed saves: {s['editors']} editors × {s['rate_each']} addStrokes/s (one stroke of {s['points']} points)"
          f" for {s['seconds']:.0f} s on {r['store']}, a project of {s['shots']} shots")
    print(f"command: {r['command']}")
    print(Machine.describe(r["machine"]))
    print()
    print(line("send → ack (stored, \"saved\")", r["ack"]))
    print(line("send → edited at all 4 others", r["edited_at_all_others"]))
    print()
    print(f"edits {r['edits']}: acknowledged once {r['acked_once']}, more than once {r['acked_more_than_once']},"
          f" never {r['never_acked']}; errors {r['errors']} {r['error_codes'] or ''}")
    print(f"seqs unique and without a gap: {r['seqs_unique_and_contiguous']}; every editor got every `edited` once:"
          f" {r['every_editor_got_every_edited_once']}; strokes in the project after: {r['strokes_stored']}")
    if r["sender_late_ms"]["n"]:
        print(f"(the sender was late for {r['sender_late_ms']['n']} sends, by {r['sender_late_ms']['max']:.0f} ms at most)")
    print(f"goal, durable within 1 s (every ack under 1,000 ms): {'met' if r['goal_durable_within_1s'] else 'missed'}")


def main():
    parser = argparse.ArgumentParser(description="Storyboard confirmed-save latency, five editors (issue #19).")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite", help="the database (default sqlite)")
    parser.add_argument("--seconds", type=float, default=30, help="how long (default 30)")
    parser.add_argument("--editors", type=int, default=5, help="editors (default 5)")
    parser.add_argument("--rate", type=float, default=4, help="edits a second each (default 4)")
    parser.add_argument("--points", type=int, default=50, help="points a stroke (default 50)")
    parser.add_argument("--shots", type=int, default=0,
                        help="a project of this many shots (20 strokes of 50 points each) instead of one shot an editor")
    common_arguments(parser)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        result = run(args)
    except Failure as error:
        print(f"storyboard-saves: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
