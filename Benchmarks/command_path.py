#!/usr/bin/env python3
"""Where a page command's time goes: a server's command-path trace (PODIUM_TRACE_COMMAND_PATH)
lined up with the load generator's page trace (podium-load --trace), both in µs of the monotonic
clock since boot. Prints, over the page events, the distribution of each stage, then the loops'
passes, then (if given) how long each of the server's threads waited for a core.

Usage: Benchmarks/command_path.py SERVER_TRACE GENERATOR_TRACE [THREADS_BEFORE THREADS_AFTER]
(live-fanout.sh with TRACE=<dir> writes all four.)
"""
import collections
import sys


def quantiles(values):
    if not values:
        return "n/a"
    v = sorted(values)

    def at(q):
        return v[min(len(v) - 1, int(len(v) * q))] / 1000

    return f"p50 {at(0.5):7.1f}  p90 {at(0.9):7.1f}  p99 {at(0.99):7.1f}  max {v[-1] / 1000:7.1f} ms  (n={len(v)})"


def read_server(path):
    by_id = collections.defaultdict(dict)  # command id -> stage -> time
    seq_of = {}
    by_seq = collections.defaultdict(dict)
    enqueues = collections.defaultdict(list)  # seq -> [(loop, time)]
    takes = collections.defaultdict(list)  # seq -> [(loop, pass, time)]
    passes = {}  # (loop, pass) -> fields
    for line in open(path):
        f = line.split()
        if not f:
            continue
        stage = f[0]
        if stage in ("read", "inbox", "handle", "gate", "ack"):
            by_id[f[1]].setdefault(stage, int(f[2]))
        elif stage == "decided":
            seq_of[f[1]] = int(f[2])
            by_id[f[1]]["decided"] = int(f[3])
        elif stage in ("stored", "delivered"):
            by_seq[int(f[1])][stage] = int(f[2])
        elif stage == "enqueue":
            enqueues[int(f[1])].append((int(f[2]), int(f[3])))
        elif stage == "taken":
            takes[int(f[1])].append((int(f[2]), int(f[3]), int(f[4])))
        elif stage == "pass":
            loop, number = int(f[1]), int(f[2])
            start, end, turns, longest, busy, durable, latest, single = map(int, f[3:11])
            passes[(loop, number)] = dict(start=start, end=end, turns=turns, longest=longest, busy=busy,
                                          durable=durable, latest=latest, single=single)
    return by_id, seq_of, by_seq, enqueues, takes, passes


def read_generator(path):
    pages = {}
    for line in open(path):
        f = line.split()
        if not f or f[0] != "page":
            continue
        n = int(f[1])

        def num(x):
            return None if x == "-" else int(x)

        pages[n] = dict(sent=num(f[2]), answered=num(f[3]), viewers=int(f[4]), first=num(f[5]), p50=num(f[6]),
                        p90=num(f[7]), p99=num(f[8]), last=num(f[9]))
    return pages


def read_threads(path):
    threads = {}
    for line in open(path):
        tid, comm, stat = line.rstrip("\n").split("|")
        run, wait, slices = map(int, stat.split())
        threads[tid] = (comm, run, wait, slices)
    return threads


def main():
    server, generator = sys.argv[1], sys.argv[2]
    by_id, seq_of, by_seq, enqueues, takes, passes = read_server(server)
    pages = read_generator(generator)
    stages = collections.defaultdict(list)
    for n, page in pages.items():
        cid = f"g{n}"
        s = by_id.get(cid, {})
        seq = seq_of.get(cid)
        if page["sent"] is None or seq is None:
            continue
        q = by_seq.get(seq, {})
        chain = [("sent", page["sent"]), ("read", s.get("read")), ("inbox", s.get("inbox")), ("handle", s.get("handle")),
                 ("gate", s.get("gate")), ("decided", s.get("decided")), ("stored", q.get("stored")),
                 ("delivered", q.get("delivered"))]
        for (a, ta), (b, tb) in zip(chain, chain[1:]):
            if ta is not None and tb is not None:
                stages[f"{a} -> {b}"].append(tb - ta)
        if s.get("decided") and q.get("stored"):
            stages["store append (decided -> stored)"].append(q["stored"] - s["decided"])
        # A seq has a frame for the hosts and one for everyone else on each loop: the last one counts.
        queued_at = {}
        for loop, time in enqueues.get(seq, []):
            queued_at[loop] = max(queued_at.get(loop, 0), time)
        taken_by = {}
        for loop, number, time in takes.get(seq, []):
            if time >= taken_by.get(loop, (0, 0))[1]:
                taken_by[loop] = (number, time)
        for loop, (number, taken) in taken_by.items():
            p = passes.get((loop, number))
            if loop in queued_at:
                stages[f"loop {loop}: queued -> taken by a pass"].append(taken - queued_at[loop])
            if not p:
                continue
            stages[f"loop {loop}: taken -> that pass ends"].append(p["end"] - taken)
            stages[f"loop {loop}: sent -> that pass ends"].append(p["end"] - page["sent"])
        if page["answered"]:
            stages["publisher: sent -> answered"].append(page["answered"] - page["sent"])
        for key in ("first", "p50", "p99", "last"):
            if page[key]:
                stages[f"viewers: sent -> {key} received"].append(page[key] - page["sent"])
        if s.get("read") and page["p50"]:
            stages["viewers: server read -> p50 received"].append(page["p50"] - s["read"])
    print(f"page events lined up: {len(stages.get('sent -> read', []))} of {len(pages)}")
    order = ["sent -> read", "read -> inbox", "inbox -> handle", "handle -> gate", "gate -> decided",
             "decided -> stored", "stored -> delivered"]
    for key in order + sorted(k for k in stages if k not in order):
        print(f"  {key:42s} {quantiles(stages[key])}")

    # The passes while publishing, per loop: how long, how often, what they carried.
    sent = [p["sent"] for p in pages.values() if p["sent"]]
    lasts = [p["last"] for p in pages.values() if p["last"]]
    if sent and lasts:
        window = (min(sent), max(lasts))
        passes = {k: p for k, p in passes.items() if window[0] <= p["start"] <= window[1]}
    print("passes while publishing (each loop):")
    for loop in sorted({k[0] for k in passes}):
        mine = [p for (l, _), p in passes.items() if l == loop]
        if not mine:
            continue
        span = (max(p["end"] for p in mine) - min(p["start"] for p in mine)) / 1e6
        with_page = [p for p in mine if p["durable"] > 0]
        pointer_only = [p for p in mine if p["durable"] == 0 and p["latest"] > 0]
        busy = sum(p["busy"] for p in mine) / 1e6
        print(f"  loop {loop}: {len(mine)} passes over {span:.1f} s ({len(mine) / max(span, 1e-9):.1f}/s), "
              f"{len(with_page)} with a page event, {len(pointer_only)} pointer only; "
              f"writing {busy:.2f} s of the {span:.1f} s")
        for name, group in (("with a page event", with_page), ("pointer only", pointer_only)):
            if group:
                print(f"    {name:18s} duration {quantiles([p['end'] - p['start'] for p in group])}")
                print(f"    {name:18s} writing  {quantiles([p['busy'] for p in group])}")
                print(f"    {name:18s} between  {quantiles([p['end'] - p['start'] - p['busy'] for p in group])} "
                      "(the breaks between turns: reads, other work, waiting for the core)")
                print(f"    {name:18s} turns    {quantiles([p['turns'] * 1000 for p in group]).replace(' ms', '')} "
                      "(x1000: turns a pass)")
        print(f"    longest turn of a pass {quantiles([p['longest'] for p in mine])}")

    if len(sys.argv) >= 5:
        before, after = read_threads(sys.argv[3]), read_threads(sys.argv[4])
        print("server threads while publishing (CPU, and time runnable but waiting for a core):")
        rows = []
        for tid, (comm, run, wait, slices) in after.items():
            b = before.get(tid, (comm, 0, 0, 0))
            rows.append((run - b[1], wait - b[2], slices - b[3], comm, tid))
        for run, wait, slices, comm, tid in sorted(rows, reverse=True):
            if run < 1e6 and wait < 1e6:
                continue
            per = wait / max(slices, 1) / 1e6
            print(f"  {comm:24s} {tid:>8s}  CPU {run / 1e9:6.2f} s  waited {wait / 1e9:6.2f} s "
                  f"over {slices} runs ({per:.2f} ms a run)")


if __name__ == "__main__":
    main()
