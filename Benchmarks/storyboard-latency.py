#!/usr/bin/python3
"""Stroke latency between two collaborators' browsers: a point drawn in A to the point shown in B.

Issue #19's first storyboard benchmark. A release `podium serve` on a throwaway data directory, one
project, and two headless Chromium windows (A and B) with the shot editor (/sketch.html) open on the
same shot, signed in as the same account (two editors of the project; the server relays strokes
per connection, so it does not matter whose). A draws: the page itself dispatches PointerEvents on
the canvas on a timer (a pen at `--interval` ms a point, 16 ms: a 60 Hz pointer), STROKES strokes
of POINTS points each with a pause between them, and stamps every point with the machine's clock
(`performance.timeOrigin + performance.now()`) as the editor takes it. B stamps each `drawing`
frame (the stroke in progress, ephemeral) and each `edited` addStrokes (the committed stroke) as it
arrives, and again when its renderer has drawn the frame showing it (the renderer's `draw` wrapped
from outside; both pages run on this machine, so their clocks are one clock).

No hook is added to the editor: the benchmark imports the editor's own modules into the page
(`import('/app/storyboard/sketch-context.js')` returns the instance the page runs, with `state`
and `renderer`).

Reported (ms):
- in progress: for every point but a stroke's first, from the moment A took it to the moment B
  drew a frame holding it (and to the moment the frame arrived); the editor sends a stroke in
  progress at most every 33 ms (newest wins), so up to 33 ms of this is by design;
- committed: from the pointer's release in A to B drawing the committed stroke (and to A's own
  `edited`, its confirmation).

Usage: python3 Benchmarks/storyboard-latency.py [--strokes 30] [--points 40] [--interval 16] [--json]
Needs: swift build -c release --product podium; scripts/setup --test (Chromium, its driver, Selenium).
"""

import argparse
import json
import signal
import sys
import time

from storyboard_common import (
    Failure, Machine, Server, binary_path, command_line, common_arguments, launch, line, log, quit_all,
    sign_in, summary, wait_for,
)

GOAL = None  # the issue asks for p50/p99; it sets no figure

# In both pages: the editor's own state and renderer, and a wrapper round the renderer's draw that
# stamps what was waiting to be shown (its arrival came before, and asked for this frame).
INSTRUMENT = """
const done = arguments[arguments.length - 1];
(async () => {
  const ctx = await import('/app/storyboard/sketch-context.js');
  const clock = () => performance.timeOrigin + performance.now();
  const b = window.__bench = {frames: [], commits: [], draws: 0};
  const waiting = [];
  const draw = ctx.renderer.draw;
  ctx.renderer.draw = function () {
    const had = this.dirty;
    draw.call(this);
    if (!had) return;
    const t = clock();
    b.draws += 1;
    for (const rec of waiting.splice(0)) rec.drawn = t;
  };
  ctx.state.doc.addEventListener('drawing', (event) => {
    const d = event.detail;
    if (!d.stroke || !d.stroke.points.length || String(d.editor) === String(ctx.state.doc.you.editor)) return;
    const rec = {at: clock(), n: d.stroke.points.length, first: d.stroke.points[0], drawn: null};
    b.frames.push(rec);
    waiting.push(rec);
  });
  ctx.state.doc.addEventListener('change', (event) => {
    const d = event.detail;
    if (d.source !== 'server' || !d.edit || d.edit.op !== 'addStrokes') return;
    const t = clock();
    const ids = d.edit.strokes.map((s) => s.id);
    const rec = {at: t, ids, drawn: null};
    b.commits.push(rec);
    waiting.push(rec);
  });
  done(true);
})().catch((e) => done('error: ' + e));
"""

# In A: the strokes, drawn by PointerEvents dispatched on the canvas on a timer.
DRAW = """
const [strokes, points, interval, pause] = arguments;
const clock = () => performance.timeOrigin + performance.now();
const a = window.__draw = {strokes: [], done: false, error: null};
(async () => {
  const ctx = await import('/app/storyboard/sketch-context.js');
  const canvas = document.getElementById('sketch-canvas');
  const stage = document.getElementById('stage');
  const rect = canvas.getBoundingClientRect();
  const [L, T, W, H] = stage.dataset.shotRect.split(',').map(Number);
  const make = (type, x, y) => new PointerEvent(type, {
    pointerId: 1, pointerType: 'mouse', isPrimary: true, bubbles: true, cancelable: true, composed: true,
    clientX: rect.left + L + x * W, clientY: rect.top + T + y * H,
    button: type === 'pointermove' ? -1 : 0, buttons: type === 'pointerup' ? 0 : 1, pressure: type === 'pointerup' ? 0 : 0.5,
  });
  const until = (t) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - performance.now())));
  let next = performance.now() + 50;
  for (let k = 0; k < strokes; k += 1) {
    const y0 = 0.06 + 0.88 * ((k * 7) % strokes) / strokes;
    const rec = {id: null, first: null, taken: [], up: null};
    for (let j = 0; j < points; j += 1) {
      await until(next);
      const x = 0.05 + 0.9 * j / (points - 1);
      const y = y0 + 0.03 * Math.sin(j / 3);
      const t = clock();
      canvas.dispatchEvent(make(j === 0 ? 'pointerdown' : 'pointermove', x, y));
      const live = ctx.state.localLive;
      const s = live && live.strokes[0];
      if (!s) throw new Error('the editor took no stroke (pointerdown ignored?)');
      if (j === 0) { rec.id = s.id; rec.first = s.points[0]; }
      rec.taken.push([t, s.points.length]);
      next += interval;
    }
    await until(next);
    rec.up = clock();
    canvas.dispatchEvent(make('pointerup', 0.95, 0.5));
    a.strokes.push(rec);
    next += pause;
  }
  await until(next + 1500);
  a.done = true;
})().catch((e) => { a.error = String(e && e.stack || e); a.done = true; });
return true;
"""


def open_editor(server, driver, storyboard_id, shot_id):
    sign_in(server, driver)
    driver.get(f"{server.base}/sketch.html?id={storyboard_id}&shot={shot_id}")
    wait_for(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "true", "the editor to connect")
    wait_for(driver, lambda d: d.execute_script(
        "const s = document.getElementById('stage'); return s.dataset.shotRect && s.dataset.shot === arguments[0];", shot_id),
        "the shot on the canvas")
    ok = driver.execute_async_script(INSTRUMENT)
    if ok is not True:
        raise Failure(f"instrumenting the editor: {ok}")


def run(args):
    server = Server(binary_path(args.bin))
    drivers = []
    try:
        server.start()
        project = server.new_storyboard("Latency benchmark")
        shot = project["content"]["scenes"][0]["shots"][0]["id"]
        log(f"server up; opening A and B on shot {shot}")
        a, b = launch(), launch()
        drivers += [a, b]
        open_editor(server, a, project["id"], shot)
        open_editor(server, b, project["id"], shot)
        wait_for(a, lambda d: d.execute_script("return document.querySelectorAll('#editors .sb-editor-dot, #editors > *').length") >= 2,
                 "A to see B", timeout=20)
        machine = Machine()
        machine.begin()
        log(f"A draws {args.strokes} strokes of {args.points} points, a point every {args.interval} ms")
        a.execute_script(DRAW, args.strokes, args.points, args.interval, args.pause)
        expected = args.strokes * (args.points * args.interval + args.pause) / 1000 + 5
        drawn = wait_for(a, lambda d: d.execute_script("return window.__draw.done && window.__draw"), "A's strokes",
                         timeout=expected + 60)
        machine.end()
        if drawn.get("error"):
            raise Failure(f"drawing in A: {drawn['error']}")
        time.sleep(0.5)
        seen_b = b.execute_script("return window.__bench")
        seen_a = a.execute_script("return window.__bench")
        return machine.result, drawn["strokes"], seen_a, seen_b
    finally:
        quit_all(drivers)
        server.stop()


def analyse(machine, strokes, seen_a, seen_b, args):
    progress_drawn, progress_arrived, committed_drawn, committed_arrived, confirmed = [], [], [], [], []
    any_drawn = []  # every point: by a drawing frame, or else by the committed stroke
    missing_points = 0
    with_commit = 0
    missing_commits = 0
    commits_by_id = {}
    for rec in seen_b["commits"]:
        for stroke_id in rec["ids"]:
            commits_by_id.setdefault(stroke_id, rec)
    own = {}
    for rec in seen_a["commits"]:
        for stroke_id in rec["ids"]:
            own.setdefault(stroke_id, rec)
    for s in strokes:
        # When A took each point: the first event after which the stroke held more than i points.
        taken = {}
        for t, n in s["taken"]:
            for i in range(len(taken), n):
                taken[i] = t
        frames = sorted((f for f in seen_b["frames"] if f["first"] == s["first"]), key=lambda f: f["at"])
        c = commits_by_id.get(s["id"])
        for i in range(1, len(taken)):
            shown = next((f for f in frames if f["n"] > i), None)
            if shown is None or shown["drawn"] is None:
                # The stroke's last points: the drawing frame holding them was overtaken by the
                # stroke's end (newest wins), and they show with the committed stroke.
                if c is not None and c["drawn"] is not None:
                    with_commit += 1
                    any_drawn.append(c["drawn"] - taken[i])
                else:
                    missing_points += 1
                continue
            progress_arrived.append(shown["at"] - taken[i])
            progress_drawn.append(shown["drawn"] - taken[i])
            any_drawn.append(shown["drawn"] - taken[i])
        if c is None or c["drawn"] is None:
            missing_commits += 1
        else:
            committed_arrived.append(c["at"] - s["up"])
            committed_drawn.append(c["drawn"] - s["up"])
        if s["id"] in own:
            confirmed.append(own[s["id"]]["at"] - s["up"])
    return {
        "machine": machine,
        "command": command_line(),
        "setup": {"strokes": args.strokes, "points": args.points, "interval_ms": args.interval, "pause_ms": args.pause},
        "in_progress_drawn": summary(progress_drawn),
        "in_progress_arrived": summary(progress_arrived),
        "committed_drawn": summary(committed_drawn),
        "committed_arrived": summary(committed_arrived),
        "committed_confirmed_in_a": summary(confirmed),
        "any_point_drawn": summary(any_drawn),
        "points_shown_only_committed": with_commit,
        "points_never_shown": missing_points,
        "commits_never_shown": missing_commits,
        "b_frames": len(seen_b["frames"]),
        "b_draws": seen_b["draws"],
    }


def print_table(r):
    s = r["setup"]
    print(f"Stroke latency, two editors in headless Chromium on one shot: {s['strokes']} strokes of {s['points']} points,"
          f" a point every {s['interval_ms']} ms, {s['pause_ms']} ms between strokes")
    print(f"command: {r['command']}")
    print(Machine.describe(r["machine"]))
    print()
    print("in progress (ephemeral `drawing`): point taken in A → ")
    print(line("frame drawn in B (shown)", r["in_progress_drawn"]))
    print(line("frame arrived in B", r["in_progress_arrived"]))
    print(line("point shown in B either way (*)", r["any_point_drawn"]))
    print("committed (`edited` addStrokes): pointer released in A → ")
    print(line("committed stroke drawn in B", r["committed_drawn"]))
    print(line("arrived in B", r["committed_arrived"]))
    print(line("A's own `edited` back (saved)", r["committed_confirmed_in_a"]))
    print()
    print(f"(*) {r['points_shown_only_committed']} points (a stroke's last ones) never came in a drawing frame: the frame"
          " holding them was overtaken by the stroke's end (newest wins); they showed with the committed stroke")
    print(f"B received {r['b_frames']} drawing frames and drew {r['b_draws']} frames; points never shown in B:"
          f" {r['points_never_shown']}; committed strokes never shown: {r['commits_never_shown']}")


def main():
    parser = argparse.ArgumentParser(description="Storyboard stroke latency between two browsers (issue #19).")
    parser.add_argument("--strokes", type=int, default=30, help="strokes A draws (default 30)")
    parser.add_argument("--points", type=int, default=40, help="points a stroke (default 40)")
    parser.add_argument("--interval", type=float, default=16, help="ms between two points (default 16: 60 Hz)")
    parser.add_argument("--pause", type=float, default=250, help="ms between two strokes (default 250)")
    common_arguments(parser)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        machine, strokes, seen_a, seen_b = run(args)
    except Failure as error:
        print(f"storyboard-latency: {error}", file=sys.stderr)
        return 1
    result = analyse(machine, strokes, seen_a, seen_b, args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
