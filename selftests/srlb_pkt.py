#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Crafted TCP packets with an SRLB SRH at a server's SID, from a raw socket.

    srlb_pkt.py flood --src PREFIX --sid SID --vip VIP --lb LB --port P
                      [--tag T] [--time S] [--flows N]
    srlb_pkt.py send --src ADDR --sid SID --vip VIP --lb LB --port P
                     --sport SP --flags F [--seq N] [--ack N] [--tag T]
                     [--count N] [--hmac KEYID:SECRET]
    srlb_pkt.py report --src VIP --sid SID --vip VIP --lb LB --port P
                       --client ADDR --sport CP [--flags F] [--seq N]
                       [--ack N] [--count N] [--hmac KEYID:SECRET]

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
report: a server's report to the load balancer instead (tag REPORT, flags
"SA" by default): from --src (the VIP), to --lb, segments [--client, --sid,
--lb], TCP from --port to the client's port --sport.

--hmac KEYID:SECRET ends the SRH with an RFC 8754 HMAC TLV of that key id,
HMAC-SHA256 with SECRET computed as the kernel does (seg6_hmac_compute():
source, first segment, flags, key id, segments) and the kernel's HMAC flag
set; KEYID: alone puts the TLV with a zero HMAC.

A raw IPv6 socket of protocol IPPROTO_RAW implies IPV6_HDRINCL: the IPv6
header is ours.
"""
import argparse
import hashlib
import hmac
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


SR6_FLAG1_HMAC = 0x08
SR6_TLV_HMAC = 5
TAG_REPORT = 0x5204


def srh(src, segs, tag, key, hdrlen=None, left=None):
    """An SRH of segments segs (wire order, segments left at the last),
    TCP next, with an HMAC TLV when key is (KEYID, SECRET or None).  A
    malformed one with hdrlen or left: that header length (in 8 bytes,
    the first not counted) or segments left instead of the right ones."""
    n = len(segs)
    flags, tlv = 0, b""
    if key:
        keyid, secret = key
        flags = SR6_FLAG1_HMAC
        mac = bytes(32)
        if secret is not None:
            text = (src + bytes([n - 1, flags]) + struct.pack("!I", keyid) +
                    b"".join(segs))
            mac = hmac.new(secret, text, hashlib.sha256).digest()
        tlv = struct.pack("!BBHI", SR6_TLV_HMAC, 38, 0, keyid) + mac
    if hdrlen is None:
        hdrlen = (8 + 16 * n + len(tlv)) // 8 - 1
    if left is None:
        left = n - 1
    return (struct.pack("!BBBBBBH", 6, hdrlen, 4, left, n - 1, flags, tag) +
            b"".join(segs) + tlv)


def packet(src, dst, segs, tag, sport, dport, flags, seq, ack, key=None,
           hdrlen=None, left=None):
    """IPv6 from src to dst, the SRH (srh()), TCP with its checksum over
    the final destination segs[0]."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags,
                      65535, 0, 0)
    c = csum(src + segs[0] + struct.pack("!IxxxB", len(tcp), 6) + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    payload = srh(src, segs, tag, key, hdrlen, left) + tcp
    return (struct.pack("!IHBB", 6 << 28, len(payload), 43, 64) +
            src + dst + payload)


def parse_key(v):
    keyid, _, secret = v.partition(":")
    return (int(keyid, 0), secret.encode() if secret else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("flood", "send", "report"))
    ap.add_argument("--src", required=True)
    ap.add_argument("--sid", required=True)
    ap.add_argument("--vip", required=True)
    ap.add_argument("--lb", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tag", type=lambda v: int(v, 0), default=0x5201)
    ap.add_argument("--time", type=float, default=10)
    ap.add_argument("--flows", type=int, default=4096)
    ap.add_argument("--sport", type=int, default=0)
    ap.add_argument("--flags")
    ap.add_argument("--seq", type=lambda v: int(v, 0), default=1000)
    ap.add_argument("--ack", type=lambda v: int(v, 0), default=0)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--client")
    ap.add_argument("--hmac", type=parse_key)
    a = ap.parse_args()

    sid, vip, lb = addr(a.sid), addr(a.vip), addr(a.lb)
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
    if a.mode in ("send", "report"):
        flags = 0
        for f in a.flags or ("SA" if a.mode == "report" else "S"):
            flags |= FLAGS[f]
        if a.mode == "send":
            dst = a.sid
            p = packet(addr(a.src), sid, [vip, lb, sid], a.tag, a.sport,
                       a.port, flags, a.seq, a.ack, a.hmac)
        else:
            if not a.client:
                ap.error("report needs --client")
            dst = a.lb
            p = packet(addr(a.src), lb, [addr(a.client), sid, lb],
                       TAG_REPORT, a.port, a.sport, flags, a.seq, a.ack,
                       a.hmac)
        for _ in range(a.count):
            s.sendto(p, (dst, 0))
        return 0

    pkts = []
    for i in range(a.flows):
        src = addr("%s%x" % (a.src, i % 256 + 1))
        pkts.append(packet(src, sid, [vip, lb, sid], a.tag,
                           10000 + i // 256, a.port, FLAGS["S"], 1000 + i, 0,
                           a.hmac))
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
