#!/usr/bin/python3
"""The pointer side log's size per hour (issue #44: "storage per hour of ... pointer side log is
measured and documented").

A `podium serve` (SQLite) on a throwaway data directory; a session of the demo deck with
recording on; the presenter moves the laser pointer continuously (a message every 20 ms, as a
mouse sends them, over the pages, hiding it now and then) and draws a stroke every few seconds
(`inking` messages, the stroke, `done`) for SECONDS seconds; recording off. Then the side log's
rows are read from the data directory's database: rows, samples, the bytes of their `samples`
text and of the whole rows (as SQLite stores them: `dbstat` when available), per hour.

Usage: python3 Benchmarks/replay-side-log.py [--seconds 60] [--bin .build/debug/podium] [--json]
"""

import argparse
import json
import math
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from storyboard_common import Failure, Server, WebSocket, binary_path, command_line, log  # noqa: E402



def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--bin", default=os.environ.get("PODIUM_BIN", ".build/release/podium"))
    args = parser.parse_args()
    os.environ["PODIUM_SOCKET_MESSAGE_RATE"] = "1000"
    server = Server(binary_path(args.bin))
    try:
        server.start()
        spec = __import__("importlib.util").util.spec_from_file_location(
            "replay_open", os.path.join(os.path.dirname(__file__), "replay-open.py"))
        module = __import__("importlib.util").util.module_from_spec(spec)
        spec.loader.exec_module(module)
        deck = module.upload_deck(server)
        status, session = server.request("POST", "/api/v1/sessions", {"deckId": deck["id"]})
        if status != 201:
            raise Failure(f"POST /api/v1/sessions answered {status}: {session}")
        code = session["code"]
        presenter = module.Live(server, code, {"role": "presenter", "token": server.token})
        presenter.acked([presenter.send({"type": "recording", "on": True})])
        log(f"moving the pointer for {args.seconds:.0f} s")
        start = time.monotonic()
        step = 0
        page = 1
        while time.monotonic() - start < args.seconds:
            t = time.monotonic() - start
            if step % 500 == 499:
                page = page % deck["pageCount"] + 1
                presenter.acked([presenter.send({"type": "goto", "page": page})])
            if step % 250 == 100:
                presenter.ws.send_json({"type": "pointer", "visible": False})
            elif step % 150 == 0:
                points = [[round(0.2 + i / 100, 4), round(0.5 + math.sin(i / 5) / 10, 4), 0.5] for i in range(20)]
                for n in (5, 10, 20):
                    presenter.ws.send_json({"type": "inking", "page": page, "tool": "pen", "color": "#e53935",
                                            "width": 0.004, "points": points[:n]})
                presenter.acked([presenter.send({"type": "stroke", "stroke": {"page": page, "tool": "pen",
                                                                                "color": "#e53935", "width": 0.004,
                                                                                "points": points}})])
                presenter.ws.send_json({"type": "inking", "done": True})
            else:
                presenter.ws.send_json({"type": "pointer", "x": round(0.5 + math.cos(t) * 0.3, 4),
                                        "y": round(0.5 + math.sin(t * 1.3) * 0.3, 4)})
            step += 1
            time.sleep(0.02)
        presenter.acked([presenter.send({"type": "recording", "on": False})])
        elapsed = time.monotonic() - start
        presenter.ws.close()
        db = sqlite3.connect(os.path.join(server.data_dir, "podium.sqlite"))
        rows, samples, text = db.execute(
            "SELECT count(*), sum(count), sum(length(samples)) FROM replay_samples").fetchone()
        stored = None
        try:
            stored = db.execute("SELECT sum(pgsize) FROM dbstat WHERE name IN ('replay_samples', 'replay_samples_time',"
                                " 'sqlite_autoindex_replay_samples_1')").fetchone()[0]
        except sqlite3.OperationalError:
            pass
        db.close()
        per_hour = 3600 / elapsed
        result = {
            "command": command_line(), "binary": args.bin, "seconds": elapsed, "messages": step, "rows": rows,
            "samples": samples, "samples_bytes": text, "bytes_per_sample": text / samples if samples else None,
            "stored_bytes": stored, "per_hour": {
                "rows": rows * per_hour, "samples": samples * per_hour, "samples_bytes": text * per_hour,
                "stored_bytes": stored * per_hour if stored else None},
        }
    finally:
        server.stop()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        h = result["per_hour"]
        print(f"{result['messages']} messages in {result['seconds']:.0f} s -> {rows} rows, {samples} samples, "
              f"{text} bytes of samples ({result['bytes_per_sample']:.1f} B a sample)"
              + (f", {stored} bytes in SQLite's pages" if stored else ""))
        print(f"per hour: {h['rows']:.0f} rows, {h['samples']:.0f} samples, {h['samples_bytes'] / 1e3:.0f} kB of samples"
              + (f", {h['stored_bytes'] / 1e3:.0f} kB stored (SQLite pages, with the indexes)" if h['stored_bytes'] else ""))


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        log(f"failed: {failure}")
        sys.exit(1)
