#!/usr/bin/env python3
"""Reads the output of Benchmarks/fanout-pairs.sh and prints, per figure, each pair's Podium and
nchan values, the ratios (Podium ÷ nchan; below 1 is better for Podium), their median and spread."""

import re
import statistics
import sys

FIGURES = {
    "CPU per delivery (µs)": re.compile(r"server CPU: .* = ([\d.]+) µs/delivery"),
    "page latency p50 (ms)": re.compile(r"^page latency: p50 ([\d.]+) ms", re.M),
    "page latency p99 (ms)": re.compile(r"^page latency: .*p99 ([\d.]+) ms", re.M),
    "pointer age p99 (ms)": re.compile(r"^pointer age at delivery: .*p99 ([\d.]+) ms", re.M),
    "memory per idle viewer (KiB)": re.compile(r"server memory: ([\d.]+) KiB per idle viewer"),
    "connect all (s)": re.compile(r"connect all: ([\d.]+) s"),
    # The server's CPU (user + system, from /proc) from the first connect to the last welcome,
    # over the viewers: a join's upgrade, hello and welcome (#42's goal: at most 3x nchan's).
    "server CPU to welcome a viewer (µs)": re.compile(r"server CPU while connecting: .*\(([\d.]+) µs per join\)"),
}
LOST = re.compile(r"delivered (\d+) of (\d+), lost (\d+), duplicated (\d+)")


def runs(text):
    """[(target, {figure: value}, lost, duplicated)] in order of appearance."""
    found = []
    for block in re.split(r"(?m)^target: ", text)[1:]:
        target = block.split(",", 1)[0].strip()
        values = {}
        for name, pattern in FIGURES.items():
            match = pattern.search(block)
            if match:
                values[name] = float(match.group(1))
        lost = LOST.search(block)
        found.append((target, values, int(lost.group(3)) if lost else None, int(lost.group(4)) if lost else None))
    return found


def main(path):
    results = runs(open(path, encoding="utf-8").read())
    pairs = []
    for index in range(0, len(results) - 1):
        if results[index][0].lower().startswith("podium") and "nchan" in results[index + 1][0].lower():
            pairs.append((results[index], results[index + 1]))
    if not pairs:
        print("no complete pair in the output")
        return 1
    print(f"{len(pairs)} pairs")
    loads = re.findall(r"(?m)^load at the start: (.*)$", open(path, encoding="utf-8").read())
    if loads:
        print(f"load average (1, 5, 15 min) at each pair's start: {'; '.join(loads)}")
    for (_, podium, lost, duplicated), _ in pairs:
        if lost or duplicated:
            print(f"Podium lost {lost}, duplicated {duplicated} in a run")
    for name in FIGURES:
        ratios, rows = [], []
        for (_, podium, _, _), (_, nchan, _, _) in pairs:
            if name in podium and name in nchan and nchan[name] > 0:
                ratios.append(podium[name] / nchan[name])
                rows.append(f"{podium[name]:g}/{nchan[name]:g}")
        if ratios:
            print(
                f"{name}: median ratio {statistics.median(ratios):.2f}× (spread {min(ratios):.2f}–{max(ratios):.2f}×); "
                f"Podium/nchan per pair: {', '.join(rows)}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
