#!/usr/bin/python3
"""Listeners of one radio station, each as a player behaves: its own cookie and stream URL, the
live playlist fetched every target duration (half of it when it has not changed), each new
segment fetched once, on a kept-alive connection. Prints a summary line for the shell script.

Usage: channel_radio_listeners.py BASE_URL RADIO_ID LISTENERS SECONDS
"""

import asyncio
import random
import string
import sys
import time
from urllib.parse import urlparse

base, radio, count, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
host = urlparse(base).hostname
port = urlparse(base).port
stats = {"playlists": 0, "segments": 0, "bytes": 0, "errors": 0, "statuses": {}}


class Connection:
    def __init__(self, cookie):
        self.cookie = cookie
        self.reader = self.writer = None

    async def get(self, path):
        for attempt in range(2):
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection(host, port)
                self.writer.write(
                    f"GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: podium_viewer={self.cookie}\r\n"
                    f"Accept: */*\r\n\r\n".encode())
                head = await self.reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                status = int(lines[0].split()[1])
                length = 0
                for line in lines[1:]:
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":")[1])
                body = await self.reader.readexactly(length) if length else b""
                return status, body
            except (ConnectionError, asyncio.IncompleteReadError):
                self.writer = None
                if attempt:
                    raise


async def listener(index, deadline):
    cookie = "v_" + "".join(random.choices(string.ascii_lowercase + string.digits, k=24))
    connection = Connection(cookie)
    await asyncio.sleep(random.random() * 6)  # listeners arrive over a segment's length
    status, body = await connection.get(f"/api/v1/channel/radios/{radio}/stream")
    if status != 200:
        stats["errors"] += 1
        return
    import json
    url = json.loads(body)["url"]
    prefix = url[: -len("live.m3u8")]
    fetched = set()
    first = True
    while time.monotonic() < deadline:
        status, body = await connection.get(url)
        stats["playlists"] += 1
        stats["statuses"][status] = stats["statuses"].get(status, 0) + 1
        if status != 200:
            stats["errors"] += 1
            await asyncio.sleep(6)
            continue
        names = [line for line in body.decode().split("\n") if line.endswith(".ts")]
        new = [name for name in names if name not in fetched]
        if first:
            new = new[-3:]  # a player starts about three segments from the live edge
            first = False
        for name in new:
            status, segment = await connection.get(prefix + name)
            stats["segments"] += 1
            stats["bytes"] += len(segment)
            if status != 200:
                stats["errors"] += 1
            fetched.add(name)
        await asyncio.sleep(6 if new else 3)


async def main():
    started = time.monotonic()
    deadline = started + seconds
    await asyncio.gather(*(listener(i, deadline) for i in range(count)))
    wall = time.monotonic() - started
    print(
        f"RESULT wall={wall:.1f} playlists={stats['playlists']} segments={stats['segments']} "
        f"bytes={stats['bytes']} errors={stats['errors']} statuses={stats['statuses']}")


asyncio.run(main())
