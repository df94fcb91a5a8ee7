#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Packet fuzzer of the module's packet paths, run by pkt_fuzz.sh.

    pkt_fuzz.py --seed N (--time S | --count N) --log FILE
                --port ROLE=NETNS:DEV:DSTMAC ... --addr NAME=ADDR ...

Sends Ethernet frames from AF_PACKET sockets (each opened in its network
namespace, /run/netns/NETNS) of these roles:

  client   the client's link to the load balancer: to the VIP (the lb
           service's classifier rule, hunting), to the servers' SIDs
           (routed through the load balancer), and IPv4/IPv6 to the load
           balancer itself (its classifier tables);
  server   a server's link to the load balancer: to the LB SID (reports);
  direct   the load balancer's link to server 1: straight to its bound SID.

Packets are built, then broken: IPv6 with extension-header chains (hop by
hop, destination options with odd TLVs, routing headers of unknown types,
fragments first/middle/atomic, AH, ESP, no next header, chains running
past the end), SRHs with every field off (segments left past the list,
huge, header length against the list, last entry, flags, tags of every
kind, TLVs), truncated TCP and UDP, odd data offsets and options, wrong
UDP and payload lengths, IPv4 with options, fragments and truncated L4,
and random bytes flipped or cut.  The IPv6 payload length usually matches
the frame, so that the stack hands the packet on to the hooks.

Every packet sent is written to --log (hex, one a line, flushed every
batch) after "# seed N": when the kernel reports something, the packets
that came before it are there.  The same seed sends the same packets.
Prints how many packets of each kind were sent.
"""
import argparse
import ctypes
import ipaddress
import os
import random
import socket
import struct
import sys
import time

from srlb_pkt import addr as a6, csum

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
SRLB_TAGS = (0, 0x5201, 0x5202, 0x5203, 0x5204, 0x5208)
NH_HBH, NH_TCP, NH_UDP, NH_IPV6, NH_ROUTING, NH_FRAG = 0, 6, 17, 41, 43, 44
NH_ESP, NH_AH, NH_ICMP6, NH_NONE, NH_DSTOPTS, NH_IPIP = 50, 51, 58, 59, 60, 4


def a4(s):
    return socket.inet_pton(socket.AF_INET, s)


class Builder:
    def __init__(self, rng, addrs):
        self.r = rng
        self.a = addrs

    # --- layer 4 ---------------------------------------------------------

    def tcp_options(self):
        r = self.r
        k = r.randrange(6)
        if k == 0:
            return b""
        if k == 1:
            return b"\x02\x04\x05\xb4\x01\x03\x03\x07"      # mss, nop, ws
        if k == 2:
            return bytes([8, 10]) + self.r.randbytes(8) + b"\x01\x01"  # ts
        if k == 3:
            return bytes([5, r.choice((2, 10, 18, 34, 255))]) + \
                self.r.randbytes(r.randrange(0, 36))           # sack, odd len
        if k == 4:
            return bytes([r.randrange(256), r.choice((0, 1, 40, 255))]) + \
                self.r.randbytes(r.randrange(0, 38))
        return self.r.randbytes(r.randrange(0, 41))

    def tcp(self, src, dst, sport, dport, v6=True):
        r = self.r
        flags = r.choice((0x02, 0x02, 0x12, 0x10, 0x11, 0x04, 0x14, 0x18,
                          0x01, 0x00, 0xff, 0x03, 0x06))
        opts = self.tcp_options()
        opts += b"\0" * ((4 - len(opts) % 4) % 4)
        opts = opts[:40]
        doff = 5 + len(opts) // 4
        if r.random() < 0.1:
            doff = r.choice((0, 1, 4, 15, doff + 1))
        payload = self.r.randbytes(r.choice((0, 0, 1, 10, 100, 1000)))
        hdr = struct.pack("!HHIIBBHHH", sport, dport, r.getrandbits(32),
                          r.getrandbits(32), (doff & 15) << 4, flags,
                          r.choice((0, 1, 65535)), 0,
                          r.choice((0, 0, 1, 0xffff))) + opts
        seg = hdr + payload
        c = csum(self.pseudo(src, dst, NH_TCP, len(seg), v6) + seg)
        if r.random() < 0.05:
            c ^= 0x1234
        seg = seg[:16] + struct.pack("!H", c) + seg[18:]
        if r.random() < 0.15:
            seg = seg[:r.choice((0, 1, 12, 13, 19, 20, len(hdr) - 1))]
        return seg

    def udp(self, src, dst, sport, dport, v6=True):
        r = self.r
        payload = self.r.randbytes(r.choice((0, 1, 8, 100)))
        ln = 8 + len(payload)
        if r.random() < 0.15:
            ln = r.choice((0, 1, 7, 9, ln + 1, ln - 1, 0xffff))
        seg = struct.pack("!HHHH", sport, dport, ln & 0xffff, 0) + payload
        c = csum(self.pseudo(src, dst, NH_UDP, len(seg), v6) + seg) or 0xffff
        seg = seg[:6] + struct.pack("!H", c) + seg[8:]
        if r.random() < 0.1:
            seg = seg[:r.choice((0, 1, 4, 7))]
        return seg

    def icmp6(self, src, dst):
        r = self.r
        t = r.choice((1, 2, 3, 4, 128, 129, 133, 135, 136, 143, 255))
        body = self.r.randbytes(4)
        if t in (1, 2, 3, 4):
            # an error quoting a packet of ours
            body += self.ipv6(dst, src, NH_TCP,
                              self.tcp(dst, src, 8080, 40000))[:r.choice(
                                  (8, 40, 48, 60, 1000))]
        msg = struct.pack("!BBH", t, r.randrange(8), 0) + body
        c = csum(self.pseudo(src, dst, NH_ICMP6, len(msg), True) + msg)
        return msg[:2] + struct.pack("!H", c) + msg[4:]

    @staticmethod
    def pseudo(src, dst, proto, ln, v6):
        if v6:
            return src + dst + struct.pack("!IxxxB", ln, proto)
        return src + dst + struct.pack("!xBH", proto, ln)

    def l4(self, src, dst, dport, v6=True):
        r = self.r
        k = r.random()
        sport = r.choice((40000, 1, 0, 65535, r.randrange(65536)))
        if k < 0.55:
            return NH_TCP, self.tcp(src, dst, sport, dport, v6)
        if k < 0.8:
            return NH_UDP, self.udp(src, dst, sport, dport, v6)
        if k < 0.9 and v6:
            return NH_ICMP6, self.icmp6(src, dst)
        return r.choice((NH_NONE, 132, 255, 2, 47)), self.r.randbytes(
            r.choice((0, 4, 20)))

    # --- IPv6 extension headers -------------------------------------------

    def tlvs(self, room):
        """Options for HBH/destination options: room bytes (8n - 2)."""
        r = self.r
        out = b""
        while len(out) < room:
            left = room - len(out)
            k = r.randrange(7)
            if k == 0 or left < 2:
                out += b"\0"                                  # Pad1
            elif k == 1:
                n = r.randrange(0, min(left - 1, 256))
                out += bytes([1, n]) + b"\0" * n              # PadN
            elif k == 2 and left >= 6:
                out += bytes([0xc2, 4]) + self.r.randbytes(4)       # jumbo
            elif k == 3 and left >= 4:
                out += bytes([5, 2, 0, 0])                    # router alert
            elif k == 4:
                n = r.choice((0, 1, 255, left))               # bad length
                out += bytes([r.randrange(256), n & 0xff]) + \
                    self.r.randbytes(min(n, left - 2))
            else:
                n = r.randrange(0, min(left - 1, 256))
                out += bytes([r.choice((0x1e, 0x3e, 0x5e, 0x7e, 0xfe)),
                              n]) + self.r.randbytes(n)
        return out[:room]

    def opts_hdr(self, nh):
        r = self.r
        hl = r.choice((0, 0, 1, 2, 5, 255))
        body = self.tlvs(8 * hl + 6)
        if r.random() < 0.1:
            body = body[:r.randrange(len(body) + 1)]
        return bytes([nh, hl]) + body

    def srh(self, nh, segs, left=None, last=None, tag=None, hdrlen=None,
            flags=None, tlv=False):
        r = self.r
        tl = b""
        if tlv:
            k = r.randrange(3)
            if k == 0:
                tl = bytes([4, 2, 0, 0])                     # PadN
            elif k == 1:
                tl = bytes([5, 38]) + self.r.randbytes(38)         # HMAC
            else:
                tl = bytes([r.randrange(256), r.randrange(8)]) + \
                    self.r.randbytes(r.randrange(8))
            tl += b"\0" * ((8 - len(tl) % 8) % 8)
        n = len(segs)
        body = b"".join(segs) + tl
        hl = (len(body) // 8) if hdrlen is None else hdrlen
        return struct.pack("!BBBBBBH", nh, hl & 0xff, 4,
                           (n - 1 if left is None else left) & 0xff,
                           (n - 1 if last is None else last) & 0xff,
                           (0 if flags is None else flags) & 0xff,
                           (0 if tag is None else tag) & 0xffff) + body

    def rh_other(self, nh):
        r = self.r
        t = r.choice((0, 2, 3, 5, 253, 255))
        hl = r.choice((0, 2, 4))
        return struct.pack("!BBBB", nh, hl, t, r.randrange(256)) + \
            self.r.randbytes(8 * hl + 4)

    def frag(self, nh, first=None):
        r = self.r
        off = 0 if (first or (first is None and r.random() < 0.5)) else \
            r.choice((1, 8, 100, 8191))
        m = r.choice((0, 1))
        return struct.pack("!BBHI", nh, r.choice((0, 0, 255)),
                           (off << 3) | m, r.getrandbits(32))

    def chain(self, final_nh, final, srh=None):
        """Extension headers in front of (final_nh, final)."""
        r = self.r
        n = r.choice((0, 0, 1, 1, 2, 3, 8, 30))
        kinds = [r.choice((NH_HBH, NH_DSTOPTS, NH_ROUTING, NH_FRAG, NH_AH,
                           NH_DSTOPTS)) for _ in range(n)]
        if srh is not None:
            kinds.insert(r.randrange(len(kinds) + 1) if r.random() < 0.3
                         else 0, "srh")
        nh, data = final_nh, final
        for k in reversed(kinds):
            if k == "srh":
                h = srh(nh)
                nh_here = NH_ROUTING
            elif k in (NH_HBH, NH_DSTOPTS):
                h, nh_here = self.opts_hdr(nh), k
            elif k == NH_ROUTING:
                h, nh_here = self.rh_other(nh), k
            elif k == NH_FRAG:
                h, nh_here = self.frag(nh), k
            else:
                hl = r.choice((1, 4, 0))
                h = struct.pack("!BBH", nh, hl, 0) + self.r.randbytes(4 * hl + 4)
                nh_here = NH_AH
            data = h + data
            nh = nh_here
        if r.random() < 0.03:
            nh, data = NH_ESP, self.r.randbytes(r.choice((4, 8, 64)))
        return nh, data

    def ipv6(self, src, dst, nh, payload, plen=None):
        r = self.r
        first = (6 << 28) | (r.randrange(256) << 20 if r.random() < 0.2
                             else 0) | r.getrandbits(20)
        ln = len(payload) if plen is None else plen
        return struct.pack("!IHBB", first, ln & 0xffff, nh,
                           r.choice((64, 64, 1, 0, 255))) + src + dst + \
            payload

    def ipv4(self, src, dst, proto, payload):
        r = self.r
        opts = b""
        if r.random() < 0.2:
            opts = r.choice((b"\x01\x01\x01\x00", b"\x94\x04\x00\x00",
                             b"\x07\x07\x04" + self.r.randbytes(4) + b"\x00",
                             self.r.randbytes(4 * r.randrange(1, 11))))
            opts += b"\0" * ((4 - len(opts) % 4) % 4)
        ihl = 5 + len(opts) // 4
        frag = 0
        if r.random() < 0.2:
            frag = r.choice((0x2000, 0x2001, 0x0001, 0x4000, 0x1fff, 0x2100))
        tot = 4 * ihl + len(payload)
        hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, r.randrange(256),
                          tot, r.getrandbits(16), frag,
                          r.choice((64, 1)), proto, 0, src, dst) + opts
        c = csum(hdr)
        return hdr[:10] + struct.pack("!H", c) + hdr[12:] + payload

    # --- scenarios ------------------------------------------------------------

    def segments(self, final, sid):
        """A hunting segment list [final, LB SID, candidates..., sid]."""
        r = self.r
        a = self.a
        cands = [a6(a["s3"]), a6(a["s2"])]
        r.shuffle(cands)
        segs = [a6(final), a6(a["lbsid"])] + cands[:r.randrange(3)] + \
            [a6(sid)]
        k = r.random()
        if k < 0.1:
            segs = segs[:r.randrange(1, len(segs) + 1)]
        elif k < 0.15:
            segs = [a6(sid)] * r.choice((1, 15, 16, 17, 18, 30))
        elif k < 0.2:
            segs = [self.r.randbytes(16) for _ in range(r.randrange(1, 6))] + \
                [a6(sid)]
        return segs

    def to_sid(self, src, sid):
        """A hunting-like packet to a server's bound SID, broken."""
        r = self.r
        a = self.a
        vip = a["vip"]
        segs = self.segments(vip, sid)
        n = len(segs)
        left = r.choice((n - 1, n - 1, n - 1, 0, 1, n, n + 1, 7, 128, 255))
        last = r.choice((n - 1, n - 1, n - 1, 0, n, n + 3, 255))
        hdrlen = r.choice((None, None, None, 0, 1, 2 * n - 1, 2 * n + 1,
                           2 * n + 2, 255))
        tag = r.choice(SRLB_TAGS + (r.getrandbits(16),))
        flags = r.choice((0, 0, 0xff, 0x80, 0x08))
        tlv = r.random() < 0.2
        inner = r.random()
        if inner < 0.7:
            nh, l4 = self.l4(a6(src), a6(vip), r.choice((8080, 8081, 80, 0)))
        elif inner < 0.85:
            nh, l4 = NH_IPV6, self.ipv6(a6(src), a6(vip), NH_TCP,
                                        self.tcp(a6(src), a6(vip), 40000,
                                                 8080))
        elif inner < 0.9:
            nh, l4 = NH_IPIP, self.ipv4(a4(a["c4"]), a4(a["lb4"]), 6,
                                        self.r.randbytes(20))
        else:
            nh, l4 = NH_NONE, b""

        def make(nx):
            return self.srh(nx, segs, left, last, tag, hdrlen, flags, tlv)
        nh, body = self.chain(nh, l4, srh=make) if r.random() < 0.4 else \
            (NH_ROUTING, make(nh) + l4)
        return self.ipv6(a6(src), a6(sid), nh, body)

    def to_lbsid(self):
        """Report-like packets from a server to the LB SID."""
        r = self.r
        a = self.a
        src = r.choice((a["vip"], a["vip"], a["srv1"], a["client"]))
        segs = [a6(a["client"]), a6(a["s1"]), a6(a["lbsid"])]
        k = r.random()
        if k < 0.3:
            segs = segs[:r.randrange(1, 4)] + \
                [a6(a["s2"])] * r.randrange(3)
        elif k < 0.35:
            segs = [a6(a["lbsid"])] * r.choice((1, 16, 17, 18))
        n = len(segs)
        left = r.choice((n - 1, n - 1, 0, 1, n, 255))
        tag = r.choice((0x5204, 0x5204, 0x5201, 0x5203, 0, 0xffff))
        nh, l4 = self.l4(a6(a["vip"]), a6(a["client"]),
                         r.choice((40000, 8080)))
        body = self.srh(nh, segs, left, r.choice((n - 1, n - 1, n, 255)),
                        tag, r.choice((None, None, 0, 2 * n + 1)),
                        r.choice((0, 0, 0xff)), r.random() < 0.1) + l4
        return self.ipv6(a6(src), a6(a["lbsid"]), NH_ROUTING, body)

    def to_vip(self):
        """Client packets to the VIP: the lb rule's path, odd headers."""
        r = self.r
        a = self.a
        src = a6(a["client"])
        vip = a6(a["vip"])
        nh, l4 = self.l4(src, vip, r.choice((8080, 8080, 8081, 80)))
        srh = None
        if r.random() < 0.15:
            segs = [vip] + [self.r.randbytes(16) for _ in range(r.randrange(3))]

            def srh(nx):
                return self.srh(nx, segs, r.randrange(len(segs) + 2),
                                None, r.choice(SRLB_TAGS))
        nh, body = self.chain(nh, l4, srh=srh)
        return self.ipv6(src, vip, nh, body)

    def classifier6(self):
        r = self.r
        a = self.a
        src = a6(r.choice((a["client"], "fd00:c::77", "::1", "ff02::1")))
        dst = a6(r.choice((a["lb6"], a["lb6"], a["srv1"])))
        nh, l4 = self.l4(src, dst, r.choice((53, 1000, 1500, 7000, 7777,
                                             8080, 0)))
        nh, body = self.chain(nh, l4)
        return self.ipv6(src, dst, nh, body)

    def classifier4(self):
        r = self.r
        a = self.a
        src, dst = a4(a["c4"]), a4(a["lb4"])
        k = r.random()
        sport = r.randrange(65536)
        dport = r.choice((53, 1000, 1500, 7000, 7777, 0))
        if k < 0.5:
            proto, l4 = NH_TCP, self.tcp(src, dst, sport, dport, False)
        elif k < 0.85:
            proto, l4 = NH_UDP, self.udp(src, dst, sport, dport, False)
        else:
            proto, l4 = r.choice((1, 2, 47, 132, 255)), self.r.randbytes(
                r.choice((0, 4, 8, 30)))
        return self.ipv4(src, dst, proto, l4)

    def mutate(self, pkt, v6):
        """Flip or cut bytes past the fixed header, length kept right."""
        r = self.r
        fixed = 40 if v6 else 20
        b = bytearray(pkt)
        k = r.random()
        if k < 0.15 and len(b) > fixed:
            for _ in range(r.randint(1, 4)):
                i = r.randrange(fixed, len(b))
                b[i] = r.randrange(256)
        elif k < 0.25 and len(b) > fixed:
            del b[r.randrange(fixed, len(b) + 1):]
        elif k < 0.28:
            b += self.r.randbytes(r.choice((1, 7, 100)))
        del b[1400:]            # within the links' MTU (a chain cut short)
        if v6:
            plen = len(b) - 40
            if r.random() < 0.05:
                plen = r.choice((0, plen - 1, max(0, plen - 8)))
            b[4:6] = struct.pack("!H", max(0, plen) & 0xffff)
        else:
            b[2:4] = struct.pack("!H", len(b) & 0xffff)
            b[10:12] = b"\0\0"
            ihl = (b[0] & 15) * 4
            b[10:12] = struct.pack("!H", csum(bytes(b[:ihl])))
        return bytes(b)


class Port:
    """An AF_PACKET socket on DEV in network namespace NETNS."""

    def __init__(self, spec):
        ns, dev, mac = spec.split(":", 2)
        self.mac = bytes.fromhex(mac.replace(":", ""))
        libc = ctypes.CDLL(None, use_errno=True)
        here = os.open("/proc/self/ns/net", os.O_RDONLY)
        there = os.open("/run/netns/" + ns, os.O_RDONLY)
        try:
            if libc.setns(there, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "setns " + ns)
            self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            self.sock.bind((dev, 0))
            self.src = self.sock.getsockname()[4]
            # Nothing is read from these sockets.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        finally:
            libc.setns(here, CLONE_NEWNET)
            os.close(here)
            os.close(there)

    def send(self, pkt, v6=True):
        frame = self.mac + self.src + struct.pack(
            "!H", 0x86dd if v6 else 0x0800) + pkt
        try:
            self.sock.send(frame)
        except OSError:
            pass            # too big for the device, etc.: not a finding


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--time", type=float, default=30)
    p.add_argument("--count", type=int, default=None)
    p.add_argument("--log", required=True)
    p.add_argument("--port", action="append", default=[])
    p.add_argument("--addr", action="append", default=[])
    p.add_argument("--rate", type=float, default=2000,
                   help="packets per second at most")
    args = p.parse_args()
    addrs = dict(x.split("=", 1) for x in args.addr)
    for k in ("vip", "lbsid", "s1", "s2", "s3", "client", "srv1", "lb6",
              "c4", "lb4"):
        ipaddress.ip_address(addrs[k])
    ports = {}
    for x in args.port:
        role, spec = x.split("=", 1)
        ports[role] = Port(spec)
    rng = random.Random(args.seed)
    b = Builder(rng, addrs)
    kinds = (
        (25, "sid-via-lb", "client",
         lambda: b.to_sid(addrs["client"], addrs["s1"]), True),
        (20, "sid-direct", "direct",
         lambda: b.to_sid(addrs["client"], addrs["s1"]), True),
        (15, "lb-sid", "server", b.to_lbsid, True),
        (20, "vip", "client", b.to_vip, True),
        (10, "classifier6", "client", b.classifier6, True),
        (10, "classifier4", "client", b.classifier4, False),
    )
    kinds = [k for k in kinds if k[2] in ports]
    weights = [k[0] for k in kinds]
    sent = {k[1]: 0 for k in kinds}
    log = open(args.log, "w")
    log.write("# seed %d\n" % args.seed)
    t0 = time.monotonic()
    n = 0
    batch = []
    while True:
        el = time.monotonic() - t0
        if args.count is not None:
            if n >= args.count:
                break
        elif el >= args.time:
            break
        _, name, role, make, v6 = rng.choices(kinds, weights)[0]
        pkt = b.mutate(make(), v6)
        batch.append("%s %s %s" % (name, role, pkt.hex()))
        ports[role].send(pkt, v6)
        sent[name] += 1
        n += 1
        if len(batch) >= 100:
            log.write("\n".join(batch) + "\n")
            log.flush()
            batch = []
            ahead = n / args.rate - (time.monotonic() - t0)
            if ahead > 0:
                time.sleep(ahead)
    log.write("\n".join(batch) + ("\n" if batch else ""))
    log.close()
    el = time.monotonic() - t0
    print("# pkt_fuzz: seed %d, %d packets in %.1fs: %s" % (
        args.seed, n, el, ", ".join("%s %d" % kv for kv in sent.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
