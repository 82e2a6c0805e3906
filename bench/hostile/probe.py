#!/usr/bin/env python3
"""Hostile handshake peers for bench/hostile/*.sh, bounded in count and time, loopback only.

Modes (every connection is closed when the mode ends, at most --hold seconds after the start):
  slow      --count N connections, each sends the first --send bytes of the frame, then nothing
  trickle   one connection sends the frame one byte every --interval seconds
  flood     keeps --count idle connections open, each closed and reopened every --interval s
  announce  --count connections, each sends the frame's header, --after-hex, then --payload bytes
Frames: ps-hello (JPS2 kHello: --token --rank --step --count-floats), jpsc (a JPSC control header
announcing --json-bytes of JSON under --token). Prints one line: what was done and how many
connections the server closed (EOF or reset) before the end.
"""
import argparse
import select
import socket
import struct
import sys
import time


def frame(args):
    token = bytes.fromhex(args.token)
    if args.frame == "ps-hello":
        return (b"JPS2" + struct.pack("<IIIQQ", 1, args.rank, 0, args.step, args.count_floats) +
                token)
    return b"JPSC" + struct.pack("<IQQQ", 1, args.json_bytes, 0, 0) + token


def connect(args):
    s = socket.create_connection((args.host, args.port), timeout=5)
    s.setblocking(False)
    return s


def closed_by_server(s):
    try:
        readable, _, _ = select.select([s], [], [], 0)
        if not readable:
            return False
        return s.recv(4096) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except BlockingIOError:
        return False


def send_some(s, data):
    try:
        return s.send(data)
    except (BlockingIOError, InterruptedError):
        return 0
    except (ConnectionResetError, BrokenPipeError):
        return -1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["slow", "trickle", "flood", "announce"])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--frame", choices=["ps-hello", "jpsc"], default="ps-hello")
    p.add_argument("--token", default="ff" * 16)
    p.add_argument("--rank", type=int, default=0)
    p.add_argument("--step", type=int, default=2)
    p.add_argument("--count-floats", type=int, default=0)
    p.add_argument("--json-bytes", type=int, default=1 << 20)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--send", type=int, default=10)
    p.add_argument("--payload", type=int, default=0)
    p.add_argument("--after-hex", default="", help="bytes sent right after the frame (announce)")
    p.add_argument("--interval", type=float, default=0.1)
    p.add_argument("--hold", type=float, default=20)
    args = p.parse_args()
    args.count = min(args.count, 1024)
    args.hold = min(args.hold, 120)
    data = frame(args)
    end = time.time() + args.hold
    conns, closed, opened = [], 0, 0
    try:
        if args.mode in ("slow", "announce"):
            junk = bytes.fromhex(args.after_hex) + b"{" * args.payload
            for _ in range(args.count):
                try:
                    s = connect(args)
                except OSError:
                    continue
                opened += 1
                send_some(s, data[:args.send] if args.mode == "slow" else data)
                conns.append([s, junk])
            while time.time() < end and conns:
                for c in conns:
                    if c[1]:
                        n = send_some(c[0], c[1][:65536])
                        c[1] = c[1][n:] if n > 0 else (b"" if n < 0 else c[1])
                time.sleep(0.05)
            closed = sum(closed_by_server(c[0]) for c in conns)
        elif args.mode == "trickle":
            s = connect(args)
            opened = 1
            for b in data:
                if time.time() >= end or send_some(s, bytes([b])) < 0 or closed_by_server(s):
                    closed = 1
                    break
                time.sleep(args.interval)
            conns.append([s, b""])
        else:  # flood
            while time.time() < end:
                while len(conns) < args.count:
                    try:
                        conns.append([connect(args), time.time()])
                        opened += 1
                    except OSError:
                        break
                for c in list(conns):
                    gone = closed_by_server(c[0])
                    closed += gone
                    if gone or time.time() - c[1] > args.interval:
                        c[0].close()
                        conns.remove(c)
                time.sleep(0.01)
    finally:
        for c in conns:
            c[0].close()
    print(f"{args.mode}: {opened} connections, {closed} closed by the server")


if __name__ == "__main__":
    sys.exit(main())
