#!/usr/bin/python3
"""A real SMTP server for the account mail tests (Debian's python3-aiosmtpd).

    smtp-sink.py DIRECTORY [--refuse] [--starttls CERT KEY | --tls CERT KEY]

Listens on a free port of 127.0.0.1, writes the port to DIRECTORY/port once it listens, and
each message it accepts to DIRECTORY/<n>.eml (the envelope's recipients first, as
`X-Envelope-To:` lines). With --refuse it answers every recipient `550` instead. With
--starttls it offers STARTTLS with that certificate and refuses mail before it (`530`); with
--tls it speaks TLS from the first byte (smtps). Runs until
killed (SIGTERM) or until its standard input closes.
"""
import os
import socket
import ssl
import sys
import threading

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, directory, refuse):
        self.directory = directory
        self.refuse = refuse
        self.count = 0
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.count += 1
            number = self.count
        head = "".join("X-Envelope-To: %s\r\n" % to for to in envelope.rcpt_tos).encode()
        path = os.path.join(self.directory, "%d.eml" % number)
        with open(path + ".part", "wb") as file:
            file.write(head + envelope.original_content)
        os.rename(path + ".part", path)
        return "250 Message accepted for delivery"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    directory = sys.argv[1]
    refuse = "--refuse" in sys.argv[2:]
    os.makedirs(directory, exist_ok=True)
    port = free_port()
    options = {}
    for flag in ("--starttls", "--tls"):
        if flag in sys.argv:
            at = sys.argv.index(flag)
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(sys.argv[at + 1], sys.argv[at + 2])
            if flag == "--starttls":
                options = {"tls_context": context, "require_starttls": True}
            else:
                options = {"ssl_context": context}
    controller = Controller(Sink(directory, refuse), hostname="127.0.0.1", port=port, **options)
    controller.start()
    with open(os.path.join(directory, "port.part"), "w") as file:
        file.write(str(port))
    os.rename(os.path.join(directory, "port.part"), os.path.join(directory, "port"))
    try:
        sys.stdin.read()  # until the test closes it (or kills us)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
