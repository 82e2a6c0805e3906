#!/usr/bin/env python3
"""One hostile-peer probe against one HTTP server on loopback, with a legitimate client beside it.

Prints one Markdown table row: the server, the probe, held or BROKE, what the server answered
the attacker, whether a legitimate client (a valid request every 0.25 s on a fresh connection)
was served throughout, and the server's resident memory in MiB (sampled every 20 ms from
/proc/PID/status) before and at its peak. Held: the server is alive, answered as expected, served
every legitimate request, and its peak RSS grew by less than --max-growth-mib. Exit status 3 when
it broke.
Standard library only; every connection is to 127.0.0.1, bounded in count and time, and closed.

Probes (each bounded by --seconds of attack time):
  chunked-64MiB       a 64 MiB chunked body, 64 KiB chunks, until the server answers
  content-length-1GiB a head announcing 1 GiB, no body
  headers-10000       10,000 header lines of 1 KiB
  header-line-64MiB   one header line of 64 MiB
  slow-headers-230    230 connections sending one header byte each every 0.5 s
  idle-300            300 connections that never send a byte
  slow-bodies-100     100 connections announcing a 1 MiB body, sending 1 KiB every 0.5 s
"""

import argparse
import json
import select
import socket
import threading
import time


def rss_kib(pid, field="VmRSS"):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Sampler(threading.Thread):
    def __init__(self, pids):
        super().__init__(daemon=True)
        self.pids, self.peak, self.stop = pids, 0, threading.Event()

    def total(self):
        values = [rss_kib(p) for p in self.pids]
        return None if any(v is None for v in values) else sum(values)

    def run(self):
        while not self.stop.is_set():
            value = self.total()
            if value is not None:
                self.peak = max(self.peak, value)
            time.sleep(0.02)


class Legit(threading.Thread):
    """A valid request every 0.25 s on a fresh connection; counts the 2xx answers."""

    def __init__(self, port, request):
        super().__init__(daemon=True)
        self.port, self.request = port, request
        self.ok = self.total = 0
        self.worst_s = 0.0
        self.failures = []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            begin = time.time()
            status = exchange(self.port, self.request, 10)
            took = time.time() - begin
            self.total += 1
            self.worst_s = max(self.worst_s, took)
            if status is not None and 200 <= status < 300:
                self.ok += 1
            elif len(self.failures) < 3:
                self.failures.append(status)
            self.stop.wait(max(0.0, 0.25 - took))


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_status(sock, timeout):
    """The status of the first reply on `sock`, or None (closed or silent for `timeout`)."""
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                return None
            data += chunk
    except OSError:
        return None
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def exchange(port, request, timeout):
    try:
        with connect(port) as sock:
            sock.sendall(request)
            return read_status(sock, timeout)
    except OSError:
        return None


def send_until_answered(sock, head, piece, total):
    """Sends head then `piece` repeatedly up to `total` bytes, stopping once the server answers."""
    sent = 0
    try:
        sock.sendall(head)
        while sent < total:
            if select.select([sock], [], [], 0)[0]:
                break
            sock.sendall(piece)
            sent += len(piece)
    except OSError:
        pass
    return sent, read_status(sock, 10)


def probe_big(port, kind, path):
    with connect(port) as sock:
        if kind == "chunked-64MiB":
            head = f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
            piece = b"10000\r\n" + b"x" * 65536 + b"\r\n"
            sent, status = send_until_answered(sock, head, piece, 64 << 20)
            return status, f"{sent >> 10} KiB of chunks sent before the answer", 413
        if kind == "content-length-1GiB":
            sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {1 << 30}\r\n\r\n"
                         .encode())
            return read_status(sock, 10), "no body byte sent", 413
        if kind == "headers-10000":
            head = f"POST {path} HTTP/1.1\r\nHost: x\r\n".encode()
            piece = b"X-Pad: " + b"p" * 1017 + b"\r\n"
            sent, status = send_until_answered(sock, head, piece, 10000 * len(piece))
            return status, f"{sent // len(piece)} header lines sent before the answer", 431
        head = f"POST {path} HTTP/1.1\r\nHost: x\r\nX-Long: ".encode()
        sent, status = send_until_answered(sock, head, b"y" * 65536, 64 << 20)
        return status, f"{sent >> 10} KiB of one header line sent before the answer", 431


def probe_many(port, kind, path, seconds):
    count = {"slow-headers-230": 230, "idle-300": 300, "slow-bodies-100": 100}[kind]
    socks = []
    for _ in range(count):
        try:
            sock = connect(port)
            sock.setblocking(False)
            if kind == "slow-bodies-100":
                sock.send(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n"
                          .encode())
            elif kind == "slow-headers-230":
                sock.send(f"POST {path} HTTP/1.1\r\n".encode())
            socks.append(sock)
        except OSError:
            pass
    cut = 0
    sent = {}
    end = time.time() + seconds
    while time.time() < end:
        for sock in list(socks):
            try:
                readable = select.select([sock], [], [], 0)[0]
                if readable and not sock.recv(65536):
                    raise OSError("closed")
                if kind == "slow-headers-230":  # "X-a: b\r\n" over and over, a byte a time
                    i = sent.get(sock, 0)
                    sock.send(b"X-a: b\r\n"[i % 8:i % 8 + 1])
                    sent[sock] = i + 1
                elif kind == "slow-bodies-100":
                    sock.send(b"z" * 1024)
            except OSError:
                cut += 1
                socks.remove(sock)
                sock.close()
        time.sleep(0.5)
    for sock in socks:
        sock.close()
    return None, f"{count} opened, {cut} cut by the server within {seconds:g} s", None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True, help="the attacked server")
    parser.add_argument("--path", required=True, help="the attacked POST path")
    parser.add_argument("--pids", required=True, help="comma-separated pids whose RSS is summed")
    parser.add_argument("--legit-port", type=int, required=True)
    parser.add_argument("--legit-request", required=True, help="file with the raw request")
    parser.add_argument("--probe", required=True)
    parser.add_argument("--seconds", type=float, default=12)
    parser.add_argument("--server", default="server", help="its name in the printed row")
    parser.add_argument("--max-growth-mib", type=float, default=128,
                        help="held only if the peak RSS grew by less than this")
    parser.add_argument("--json-out", help="append the result as a JSON line here")
    args = parser.parse_args()
    pids = [int(p) for p in args.pids.split(",")]
    with open(args.legit_request, "rb") as f:
        legit = Legit(args.legit_port, f.read())
    sampler = Sampler(pids)
    baseline = sampler.total()
    sampler.start()
    legit.start()
    time.sleep(0.5)
    if args.probe in ("slow-headers-230", "idle-300", "slow-bodies-100"):
        status, note, expected = probe_many(args.port, args.probe, args.path, args.seconds)
    else:
        status, note, expected = probe_big(args.port, args.probe, args.path)
        time.sleep(1.0)
    legit.stop.set()
    legit.join()
    sampler.stop.set()
    sampler.join()
    alive = all(rss_kib(p) is not None for p in pids)
    result = {
        "server": args.server, "probe": args.probe, "status": status, "expected": expected,
        "note": note, "legit_ok": legit.ok, "legit_total": legit.total,
        "legit_failures": legit.failures, "legit_worst_s": round(legit.worst_s, 3),
        "alive": alive, "rss_before_kib": baseline, "rss_peak_kib": sampler.peak}
    growth = (sampler.peak - (baseline or 0)) / 1024
    held = (alive and legit.total > 0 and legit.ok == legit.total
            and (expected is None or status == expected) and growth < args.max_growth_mib)
    result["held"] = held
    if args.json_out:
        with open(args.json_out, "a") as out:
            out.write(json.dumps(result) + "\n")
    answer = "-" if expected is None else f"{status} (expected {expected})"
    print(f"| {args.server} | {args.probe} | {'held' if held else 'BROKE'} | {answer} | {note} | "
          f"{legit.ok}/{legit.total} (worst {legit.worst_s:.2f} s) | "
          f"{(baseline or 0) / 1024:.0f} -> {sampler.peak / 1024:.0f} |")
    return 0 if held else 3


if __name__ == "__main__":
    raise SystemExit(main())
