#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Crafted TCP packets with an SRLB SRH at a server's SID, from a raw socket.

    srlb_pkt.py flood --src PREFIX --sid SID --vip VIP --lb LB --port P
                      [--tag T] [--time S] [--flows N]
    srlb_pkt.py send --src ADDR --sid SID --vip VIP --lb LB --port P
                     --sport SP --flags F [--seq N] [--ack N] [--tag T]
                     [--count N]

Every packet is IPv6 (from --src, to the SID) with an SRH whose segments
are [VIP, LB, SID], segments left 2 (the SID is the last candidate, which
takes what a policy would pass on), tag --tag (0x5201 CONNECT by default;
0 is "no load balancer"), then TCP from the source port to --port with a
valid checksum (over the VIP, the final destination).

flood: SYNs from --flows (client address, port) pairs, addresses PREFIXN
(PREFIX ends with "::", N in hex, 1..256) and ports from 10000 on, sent round and round for
--time seconds.  Prints how many were sent.
send: --count copies of one segment with the TCP flags --flags (e.g.
"S", "A", "R", "F", "FA", "RA", "PA"), sequence --seq, ack --ack.

A raw IPv6 socket of protocol IPPROTO_RAW implies IPV6_HDRINCL: the IPv6
header is ours.
"""
import argparse
import socket
import struct
import sys
import time

FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10}


def addr(a):
    return socket.inet_pton(socket.AF_INET6, a)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def packet(src, sid, vip, lb, tag, sport, dport, flags, seq, ack):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags,
                      65535, 0, 0)
    c = csum(src + vip + struct.pack("!IxxxB", len(tcp), 6) + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    srh = struct.pack("!BBBBBBH", 6, 6, 4, 2, 2, 0, tag)
    payload = srh + vip + lb + sid + tcp
    return (struct.pack("!IHBB", 6 << 28, len(payload), 43, 64) +
            src + sid + payload)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("flood", "send"))
    ap.add_argument("--src", required=True)
    ap.add_argument("--sid", required=True)
    ap.add_argument("--vip", required=True)
    ap.add_argument("--lb", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tag", type=lambda v: int(v, 0), default=0x5201)
    ap.add_argument("--time", type=float, default=10)
    ap.add_argument("--flows", type=int, default=4096)
    ap.add_argument("--sport", type=int, default=0)
    ap.add_argument("--flags", default="S")
    ap.add_argument("--seq", type=lambda v: int(v, 0), default=1000)
    ap.add_argument("--ack", type=lambda v: int(v, 0), default=0)
    ap.add_argument("--count", type=int, default=1)
    a = ap.parse_args()

    sid, vip, lb = addr(a.sid), addr(a.vip), addr(a.lb)
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
    if a.mode == "send":
        flags = 0
        for f in a.flags:
            flags |= FLAGS[f]
        p = packet(addr(a.src), sid, vip, lb, a.tag, a.sport, a.port, flags,
                   a.seq, a.ack)
        for _ in range(a.count):
            s.sendto(p, (a.sid, 0))
        return 0

    pkts = []
    for i in range(a.flows):
        src = addr("%s%x" % (a.src, i % 256 + 1))
        pkts.append(packet(src, sid, vip, lb, a.tag, 10000 + i // 256,
                           a.port, FLAGS["S"], 1000 + i, 0))
    sent = 0
    end = time.monotonic() + a.time
    while time.monotonic() < end:
        for p in pkts:
            try:
                s.sendto(p, (a.sid, 0))
            except OSError:
                # A full queue (ENOBUFS): the flood goes on.
                pass
            sent += 1
    print(sent)
    return 0


if __name__ == "__main__":
    sys.exit(main())
