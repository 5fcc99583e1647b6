#!/usr/bin/python3
"""Opening a project of 500 shots: the time to the first shot drawn and to all thumbnails drawn.

Issue #19's second storyboard benchmark. A release `podium serve` on a throwaway data directory;
a project built through the storyboard socket as editors build one (a Python client of this
directory's storyboard_common.py: `addStrokes` on the first shot, then `addShot` edits each
carrying a whole shot, one layer of STROKES strokes of POINTS points, 4 decimals as the editor
sends them); then, in headless Chromium signed in as the owner:

- the project page, /storyboard.html?id=…: the time from navigation to the welcome (the
  socket's first message: the whole project), to the page ready (body[data-ready]), to the first
  thumbnail drawn (the first card's canvas holds pixels, checked every frame: within a frame of
  it) and to every thumbnail drawn (body[data-thumbnails="drawn"], which the page sets when it has
  drawn the last one; it draws them a frame's worth at a time);
- the shot editor, /sketch.html?id=…&shot=… on a shot in the middle: the time to the welcome, to
  ready and to the shot drawn (the renderer's frame after #stage[data-strokes] first says the shot
  has strokes).

The page is measured by a script Chromium runs before the page's own (DevTools
`Page.addScriptToEvaluateOnNewDocument`): a MutationObserver on those attributes, and the
WebSocket's first message stamped as it arrives. Nothing is added to the pages. Times are ms
from the navigation's start (the page's `performance.now()`). Each page is opened RUNS times,
each time on a fresh tab state (about:blank between; the browser's cache of the page's modules
stays warm after the first). Every open is the project's first editor, so the server loads it
from the store (snapshot + edits) each time, as when someone opens it in the morning. Also
reported: the server alone, hello to welcome, from a Python client.

Usage: python3 Benchmarks/storyboard-open.py [--shots 500] [--strokes 20] [--points 50] [--runs 3] [--json]
Needs: swift build -c release --product podium; scripts/setup --test (Chromium, its driver, Selenium).
"""

import argparse
import json
import signal
import sys
import time

from storyboard_common import (
    Failure, Machine, Server, binary_path, build, command_line, common_arguments, fmt, launch, log, quit_all,
    sign_in, storyboard_socket, summary, wait_for,
)

# Runs in every document before the page's scripts.
PROBE = """
(() => {
  const b = window.__open = {marks: {}, welcomeBytes: 0};
  const mark = (name) => { if (!(name in b.marks)) b.marks[name] = performance.now(); };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      mark('socket');
      this.addEventListener('message', (event) => {
        if ('welcome' in b.marks) return;
        mark('welcome');
        b.welcomeBytes = event.data.length;
      });
    }
  };
  let polling = false;
  const pollFirst = () => {
    const c = document.querySelector('#scenes .sb-shot canvas');
    if (c && c.width) {
      const px = c.getContext('2d').getImageData(Math.floor(c.width / 2), Math.floor(c.height / 2), 1, 1).data;
      if (px[3] > 0) { mark('firstThumb'); return; }
    }
    requestAnimationFrame(pollFirst);
  };
  const check = () => {
    const body = document.body;
    if (!body) return;
    if (body.dataset.ready === 'true') {
      mark('ready');
      if (!polling && document.getElementById('scenes')) { polling = true; requestAnimationFrame(pollFirst); }
    }
    if (body.dataset.thumbnails === 'drawn') mark('allThumbs');
    const stage = document.getElementById('stage');
    if (stage && stage.dataset.shot && Number(stage.dataset.strokes) > 0 && !('shot' in b.marks)) {
      mark('shot');
      requestAnimationFrame(() => mark('shotFrame'));
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true,
    attributeFilter: ['data-ready', 'data-thumbnails', 'data-strokes', 'data-shot']});
})();
"""


def server_welcome(server, storyboard_id):
    """Hello to welcome on a Python socket (ms), and the welcome's size."""
    t0 = time.monotonic()
    ws, welcome = storyboard_socket(server, storyboard_id)
    ms = (time.monotonic() - t0) * 1000
    ws.close()
    shots = sum(len(s["shots"]) for s in welcome["storyboard"]["scenes"])
    return ms, shots


def open_page(driver, url, done_mark, timeout=120):
    driver.get("about:blank")
    driver.get(url)
    wait_for(driver, lambda d: d.execute_script("return window.__open && window.__open.marks[arguments[0]] !== undefined", done_mark),
             f"{done_mark} on {url}", timeout=timeout)
    time.sleep(0.1)
    data = driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "const rest = performance.getEntriesByType('resource').filter((e) => /\\/api\\/v1\\/storyboards\\/[^/]+$/.test(e.name));"
        "return {marks: window.__open.marks, welcomeBytes: window.__open.welcomeBytes,"
        " domContentLoaded: n ? n.domContentLoadedEventEnd : null,"
        " rest: rest.length ? rest[0].responseEnd : null, restBytes: rest.length ? rest[0].encodedBodySize : null};")
    data["marks"]["domContentLoaded"] = data.pop("domContentLoaded")
    data["marks"]["rest"] = data.pop("rest")
    return data


def run(args):
    server = Server(binary_path(args.bin))
    drivers = []
    try:
        server.start()
        log(f"server up; building {args.shots} shots of {args.strokes} strokes of {args.points} points through the socket")
        project, built = build(server, args.shots, args.strokes, args.points)
        log(f"built: {built['edits']} edits in {built['seconds']:.1f} s")
        time.sleep(1.0)  # the desk lets the project go (a snapshot) once its last editor left
        shots = [s for scene in server.content(project["id"])["scenes"] for s in scene["shots"]]
        if len(shots) != args.shots:
            raise Failure(f"the project has {len(shots)} shots, not {args.shots}")
        middle = shots[len(shots) // 2]["id"]
        machine = Machine()
        machine.begin()
        socket_ms = []
        for _ in range(args.runs):
            ms, count = server_welcome(server, project["id"])
            socket_ms.append(ms)
            time.sleep(0.3)
        driver = launch()
        drivers.append(driver)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        sign_in(server, driver)
        pages = {"project": [], "sketch": []}
        for i in range(args.runs):
            log(f"run {i + 1}: the project page")
            pages["project"].append(open_page(driver, f"{server.base}/storyboard.html?id={project['id']}", "allThumbs"))
            time.sleep(0.5)
            log(f"run {i + 1}: the shot editor")
            pages["sketch"].append(open_page(driver, f"{server.base}/sketch.html?id={project['id']}&shot={middle}", "shotFrame"))
            time.sleep(0.5)
        driver.get("about:blank")
        machine.end()
        return {"machine": machine.result, "built": built, "socket_welcome_ms": socket_ms, "pages": pages}
    finally:
        quit_all(drivers)
        server.stop()


MARKS = {
    "project": [("domContentLoaded", "DOM ready"), ("rest", "GET the project (REST)"), ("welcome", "welcome arrived"),
                ("ready", "page ready"), ("firstThumb", "first thumbnail drawn"), ("allThumbs", "all thumbnails drawn")],
    "sketch": [("domContentLoaded", "DOM ready"), ("rest", "GET the project (REST)"), ("welcome", "welcome arrived"),
               ("ready", "page ready"), ("shotFrame", "the shot drawn")],
}


def analyse(raw, args):
    result = {"command": command_line(), "machine": raw["machine"], "built": raw["built"],
              "setup": {"shots": args.shots, "strokes": args.strokes, "points": args.points, "runs": args.runs},
              "socket_welcome_ms": summary(raw["socket_welcome_ms"]), "pages": {}}
    for page, runs in raw["pages"].items():
        result["pages"][page] = {
            "runs": [r["marks"] for r in runs],
            "welcome_bytes": runs[0]["welcomeBytes"] if runs else None,
            "rest_bytes": runs[0]["restBytes"] if runs else None,
            "median": {key: summary([r["marks"][key] for r in runs if r["marks"].get(key) is not None])["p50"]
                       for key, _ in MARKS[page]},
        }
    return result


def print_table(r):
    s = r["setup"]
    print(f"Opening a storyboard of {s['shots']} shots ({s['strokes']} strokes of {s['points']} points each) in headless Chromium,"
          f" {s['runs']} runs")
    print(f"command: {r['command']}")
    print(Machine.describe(r["machine"]))
    print(f"built through the socket: {r['built']['edits']} edits in {r['built']['seconds']:.1f} s")
    w = r["socket_welcome_ms"]
    print(f"server alone, hello → welcome on a Python socket (project loaded from the store each time): "
          f"{fmt(w['min'], 0)} / {fmt(w['p50'], 0)} / {fmt(w['max'], 0)} ms (min / median / max of {w['n']})")
    for page, title in (("project", "project page /storyboard.html"), ("sketch", "shot editor /sketch.html (a shot in the middle)")):
        p = r["pages"][page]
        print()
        print(f"{title}: ms from navigation start; welcome {p['welcome_bytes'] / 1e6:.1f} MB,"
              f" REST body {(p['rest_bytes'] or 0) / 1e6:.1f} MB")
        print(f"  {'':<28}" + "".join(f"{'run ' + str(i + 1):>9}" for i in range(len(p["runs"]))) + f"{'median':>9}")
        for key, label in MARKS[page]:
            print(f"  {label:<28}" + "".join(f"{fmt(run.get(key), 0):>9}" for run in p["runs"]) + f"{fmt(p['median'][key], 0):>9}")


def main():
    parser = argparse.ArgumentParser(description="Opening a storyboard of 500 shots (issue #19).")
    parser.add_argument("--shots", type=int, default=500, help="shots (default 500)")
    parser.add_argument("--strokes", type=int, default=20, help="strokes a shot (default 20)")
    parser.add_argument("--points", type=int, default=50, help="points a stroke (default 50)")
    parser.add_argument("--runs", type=int, default=3, help="opens of each page (default 3)")
    common_arguments(parser)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        raw = run(args)
    except Failure as error:
        print(f"storyboard-open: {error}", file=sys.stderr)
        return 1
    result = analyse(raw, args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
