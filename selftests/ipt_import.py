#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random iptables chains and the packets that probe them (ipt_import.sh).

  gen SEED NRULES FAMILY RULES SPEC   a random INPUT chain as iptables-save
                                      output (RULES), and its matches as JSON
                                      (SPEC), which send aims packets at
  recv FAMILY OUT READY               the ids of the packets delivered locally
                                      (raw sockets, after the input hook),
                                      written to OUT on SIGTERM; READY made
                                      once listening
  send SEED N FAMILY SPEC DEV:MAC...  N packets, each sent as the same frame
                                      on every DEV, in turn
  compare A B                         the two id lists agree

Each packet carries b"TMIP" and its id after its transport header.  The
chain draws on every match the import reads: addresses, protocols, ports
and multiport lists, TCP flags and --syn, ICMP types and codes, conntrack
states, an interface, marks (set in mangle by DSCP) and DSCP; and on every
target the packet path can tell apart: ACCEPT, DROP, REJECT, NFQUEUE with
and without --queue-bypass (no reader), RETURN, and LOG before a rule of
the same match.
"""
import json
import os
import random
import select
import signal
import socket
import struct
import sys
import time

MAGIC = b"TMIP"
# Addresses: sources from two blocks, destinations local to the receivers.
SRC4 = [(0xAC100000, 12), (0xC0A80000, 16)]      # 172.16/12, 192.168/16
DST4 = [(0x0A000000, 8)]                         # 10/8
SRC6 = [(0x20010DB8000100000000000000000000, 48)]
# (an IPv6 local route for a prefix does not take packets: 16 addresses)
DST6 = [(0xFD0000AA000000000000000000000000, 124)]
PROTOS = [6, 17, 1, 47]                          # ICMPv6 for 1 in IPv6
STATES = ["NEW", "ESTABLISHED", "RELATED", "INVALID", "UNTRACKED"]
# Marks set in mangle PREROUTING by DSCP (ipt_import.sh): 10 -> 0x15, 46 -> 0x2a
DSCPS = [0, 10, 46]
MARKS = [("0x15", None), ("0x2a", None), ("0x10", "0xf0"), ("0x0", "0xff")]
FLAGS = ["FIN", "SYN", "RST", "PSH", "ACK", "URG"]


def bits(fam):
    return 32 if fam == 4 else 128


def addr_str(fam, a):
    if fam == 4:
        return socket.inet_ntop(socket.AF_INET, a.to_bytes(4, "big"))
    return socket.inet_ntop(socket.AF_INET6, a.to_bytes(16, "big"))


def rand_prefix(rng, fam, blocks):
    base, blen = rng.choice(blocks)
    n = bits(fam)
    plen = rng.choice([blen + 4, blen + 8, n - 8, n - 4, n])
    plen = min(max(plen, blen), n)
    a = base | rng.getrandbits(n - blen)
    a &= ((1 << n) - 1) ^ ((1 << (n - plen)) - 1)
    return a, plen


def rand_range(rng):
    r = rng.random()
    if r < 0.4:
        p = rng.choice([22, 53, 80, 443, 1000, 5000]) + rng.randrange(3)
        return p, p
    lo = rng.choice([0, 1000, 1024, 5000, 30000]) + rng.randrange(200)
    return lo, min(65535, lo + rng.choice([10, 100, 1000, 40000]))


def port_str(r):
    """As iptables-save writes them: "A" for one port, else "A:B"."""
    return "%d" % r[0] if r[0] == r[1] else "%d:%d" % r


def narrow(fam, m):
    """Whether @m takes a small share of the packets aimed at other rules:
    a source prefix (a sixteenth of its block or less), a destination
    prefix smaller than the destination block, or a destination port."""
    block = (DST4 if fam == 4 else DST6)[0][1]
    return "src" in m or "dport" in m or \
        ("dst" in m and m["dst"][1] > block)


def gen_rule(rng, fam, tail):
    """One rule's matches as a dict, and its iptables words: narrow ones,
    so that a rule early in the chain does not shadow the rest, but for
    some in its last tenth (@tail), where catch-alls sit in a real chain
    (a protocol, a state or nothing at all)."""
    while True:
        m, w = gen_fields(rng, fam)
        if narrow(fam, m) or (tail and rng.random() < 0.3):
            return m, w


def gen_fields(rng, fam):
    m, w = {}, []
    if rng.random() < 0.5:
        m["src"] = rand_prefix(rng, fam, SRC4 if fam == 4 else SRC6)
        w += ["-s", "%s/%d" % (addr_str(fam, m["src"][0]), m["src"][1])]
    if rng.random() < 0.4:
        m["dst"] = rand_prefix(rng, fam, DST4 if fam == 4 else DST6)
        w += ["-d", "%s/%d" % (addr_str(fam, m["dst"][0]), m["dst"][1])]
    if rng.random() < 0.15:
        m["iif"] = rng.choice(["in0", "dummy0"])
        w += ["-i", m["iif"]]
    if rng.random() < 0.8:
        p = rng.choice(PROTOS)
        m["proto"] = p
        if p == 1:
            w += ["-p", "icmp" if fam == 4 else "ipv6-icmp"]
        else:
            w += ["-p", {6: "tcp", 17: "udp", 47: "47"}[p]]
        if p in (6, 17) and rng.random() < 0.7:
            name = "tcp" if p == 6 else "udp"
            w += ["-m", name]
            if rng.random() < 0.3:
                m["sport"] = [rand_range(rng)]
                w += ["--sport", port_str(m["sport"][0])]
            if rng.random() < 0.7:
                m["dport"] = [rand_range(rng)]
                w += ["--dport", port_str(m["dport"][0])]
            if p == 6 and rng.random() < 0.35:
                if rng.random() < 0.4:
                    m["tcp"] = (0x17, 0x02)
                    w += ["--syn"]
                else:
                    mask = rng.sample(range(6), rng.randint(1, 4))
                    val = [f for f in mask if rng.random() < 0.5]
                    m["tcp"] = (sum(1 << f for f in mask),
                                sum(1 << f for f in val))
                    w += ["--tcp-flags",
                          ",".join(FLAGS[f] for f in mask),
                          ",".join(FLAGS[f] for f in val) or "NONE"]
        elif p in (6, 17) and rng.random() < 0.5:
            m["dport"] = [rand_range(rng) for _ in range(rng.randint(2, 4))]
            w += ["-m", "multiport", "--dports",
                  ",".join(port_str(r) for r in m["dport"])]
        elif p == 1 and rng.random() < 0.7:
            t = rng.choice([0, 3, 8, 11] if fam == 4 else [1, 3, 128, 129])
            m["itype"] = t
            if rng.random() < 0.3:
                m["icode"] = rng.randrange(4)
                arg = "%d/%d" % (t, m["icode"])
            else:
                arg = "%d" % t
            if fam == 4:
                w += ["-m", "icmp", "--icmp-type", arg]
            else:
                w += ["-m", "icmp6", "--icmpv6-type", arg]
    if rng.random() < 0.3:
        st = rng.sample(STATES, rng.randint(1, 3))
        m["ct"] = st
        w += ["-m", "conntrack", "--ctstate", ",".join(st)]
    if rng.random() < 0.1:
        v, mk = rng.choice(MARKS)
        m["mark"] = (int(v, 16), int(mk, 16) if mk else 0xffffffff)
        w += ["-m", "mark", "--mark", v + ("/" + mk if mk else "")]
    if rng.random() < 0.1:
        d = rng.choice(DSCPS)
        m["dscp"] = d
        w += ["-m", "dscp", "--dscp", "0x%02x" % d]
    return m, w


def gen_target(rng, fam, m):
    r = rng.random()
    if r < 0.35:
        return ["-j", "ACCEPT"]
    if r < 0.6:
        return ["-j", "DROP"]
    if r < 0.75:
        kinds = (["icmp-port-unreachable", "icmp-host-unreachable",
                  "icmp-admin-prohibited"] if fam == 4 else
                 ["icmp6-port-unreachable", "icmp6-addr-unreachable",
                  "icmp6-adm-prohibited"])
        if m.get("proto") == 6:
            kinds.append("tcp-reset")
        return ["-j", "REJECT", "--reject-with", rng.choice(kinds)]
    if r < 0.85:
        return ["-j", "NFQUEUE", "--queue-num", str(rng.randrange(8))] + \
            (["--queue-bypass"] if rng.random() < 0.5 else [])
    return ["-j", "RETURN"]


def cmd_gen(seed, nrules, fam, rules_path, spec_path):
    rng = random.Random(seed)
    lines, spec = [], []
    while len(lines) < nrules:
        m, w = gen_rule(rng, fam, len(lines) >= nrules * 9 // 10)
        t = gen_target(rng, fam, m)
        if rng.random() < 0.08:
            lines.append(" ".join(["-A", "INPUT"] + w + [
                "-j", "LOG", "--log-prefix", '"tm %d: "' % len(lines)]))
            spec.append(m)
        lines.append(" ".join(["-A", "INPUT"] + w + t))
        spec.append(m)
    policy = rng.choice(["ACCEPT", "DROP"])
    tool = "iptables-save" if fam == 4 else "ip6tables-save"
    with open(rules_path, "w") as f:
        f.write("# Generated by %s v1.8.9 (random, seed %d)\n" % (tool, seed))
        f.write("*filter\n:INPUT %s [0:0]\n:FORWARD ACCEPT [0:0]\n"
                ":OUTPUT ACCEPT [0:0]\n" % policy)
        f.write("\n".join(lines) + "\nCOMMIT\n")
    with open(spec_path, "w") as f:
        json.dump(spec, f)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def pick(rng, lo_hi, fallback):
    if lo_hi is None:
        return fallback
    lo, hi = rng.choice(lo_hi)
    return rng.randint(lo, hi)


def in_prefix(rng, fam, pfx, blocks):
    n = bits(fam)
    if pfx is None:
        pfx = rng.choice(blocks)
    a, plen = pfx
    return a | rng.getrandbits(n - plen) if plen < n else a


def make_packet(rng, fam, m, pid):
    """A packet aimed at matches @m (random where @m says nothing)."""
    src = in_prefix(rng, fam, m.get("src"), SRC4 if fam == 4 else SRC6)
    dst = in_prefix(rng, fam, m.get("dst"), DST4 if fam == 4 else DST6)
    proto = m.get("proto", rng.choice(PROTOS))
    dscp = m.get("dscp", rng.choice(DSCPS))
    sport = pick(rng, m.get("sport"), rng.randrange(65536))
    dport = pick(rng, m.get("dport"), rng.choice(
        [22, 53, 80, 443, 1000, 1024, 5000, rng.randrange(65536)]))
    flags = rng.choice([0x02, 0x02, 0x10, 0x18, 0x12, 0x04, 0x11, 0x03,
                        rng.randrange(64)])
    if "tcp" in m and rng.random() < 0.8:
        mask, val = m["tcp"]
        flags = (flags & ~mask) | val
    itype = m.get("itype", rng.choice([0, 3, 8, 11] if fam == 4 else
                                      [1, 3, 128, 129]))
    icode = m.get("icode", rng.randrange(4) if itype in (3, 1) else 0)
    return dict(src=src, dst=dst, proto=proto, dscp=dscp, sport=sport,
                dport=dport, flags=flags, itype=itype, icode=icode,
                ident=rng.randrange(65536), seq=rng.getrandbits(32),
                id=pid)


def build(fam, p):
    """The IP packet (no link header) of @p."""
    body = MAGIC + struct.pack("!I", p["id"]) + b"\0" * 8
    proto = p["proto"]
    if fam == 6 and proto == 1:
        proto = 58
    sb = p["src"].to_bytes(4 if fam == 4 else 16, "big")
    db = p["dst"].to_bytes(4 if fam == 4 else 16, "big")
    if proto == 6:
        l4 = struct.pack("!HHIIBBHHH", p["sport"], p["dport"], p["seq"],
                         p["seq"] ^ 0x5a5a, 5 << 4, p["flags"], 65535, 0,
                         0) + body
    elif proto == 17:
        l4 = struct.pack("!HHHH", p["sport"], p["dport"], 8 + len(body),
                         0) + body
    elif proto in (1, 58):
        l4 = struct.pack("!BBHHH", p["itype"], p["icode"], 0, p["ident"],
                         p["seq"] & 0xffff) + body
    else:
        l4 = body
    if fam == 4:
        pseudo = sb + db + struct.pack("!BBH", 0, proto, len(l4))
    else:
        pseudo = sb + db + struct.pack("!IxxxB", len(l4), proto)
    off = {6: 16, 17: 6, 58: 2, 1: 2}.get(proto)
    if off is not None:
        c = csum((pseudo if proto != 1 else b"") + l4)
        if proto == 17 and c == 0:
            c = 0xffff
        l4 = l4[:off] + struct.pack("!H", c) + l4[off + 2:]
    if fam == 4:
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, p["dscp"] << 2,
                          20 + len(l4), p["id"] & 0xffff, 0, 64, proto, 0,
                          sb, db)
        hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    else:
        hdr = struct.pack("!IHBB16s16s", (6 << 28) | (p["dscp"] << 22),
                          len(l4), proto, 64, sb, db)
    return hdr + l4


def cmd_send(seed, n, fam, spec_path, devs):
    rng = random.Random(seed)
    with open(spec_path) as f:
        spec = json.load(f)
    for m in spec:
        for k in ("src", "dst", "tcp", "mark"):
            if k in m:
                m[k] = tuple(m[k])
        for k in ("sport", "dport"):
            if k in m:
                m[k] = [tuple(r) for r in m[k]]
    socks = []
    for d in devs:
        name, mac = d.split("=")
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((name, 0))
        src_mac = bytes.fromhex(open("/sys/class/net/%s/address" % name)
                                .read().strip().replace(":", ""))
        eth = bytes.fromhex(mac.replace(":", "")) + src_mac + \
            struct.pack("!H", 0x0800 if fam == 4 else 0x86DD)
        socks.append((s, eth))
    recent = []
    for i in range(n):
        r = rng.random()
        if recent and r < 0.25:
            # the same flow again soon after (conntrack states other than
            # new), with other TCP flags
            p = dict(rng.choice(recent[-100:]))
            p["flags"] = rng.choice([0x10, 0x18, 0x02, 0x11, 0x04])
            p["id"] = i
        elif r < 0.85 and spec:
            p = make_packet(rng, fam, rng.choice(spec), i)
        else:
            p = make_packet(rng, fam, {}, i)
        recent.append(p)
        frame = build(fam, p)
        for s, eth in socks:
            s.send(eth + frame)
        if i % 50 == 49:
            time.sleep(0.01)
    print("sent %d packets on %d devices" % (n, len(devs)))


def cmd_recv(fam, out_path, ready_path):
    af = socket.AF_INET if fam == 4 else socket.AF_INET6
    socks = []
    for p in (6, 17, 1 if fam == 4 else 58, 47):
        s = socket.socket(af, socket.SOCK_RAW, p)
        s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)   # SO_RCVBUFFORCE
        socks.append(s)
    ids = set()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    open(ready_path, "w").close()
    while not stop:
        try:
            rd, _, _ = select.select(socks, [], [], 0.2)
        except InterruptedError:
            continue
        for s in rd:
            data = s.recv(65535)
            k = data.find(MAGIC)
            if k >= 0 and k + 8 <= len(data):
                ids.add(struct.unpack("!I", data[k + 4:k + 8])[0])
    with open(out_path, "w") as f:
        f.write("\n".join(str(i) for i in sorted(ids)) + "\n")


def cmd_compare(a_path, b_path, n):
    a = {int(x) for x in open(a_path).read().split()}
    b = {int(x) for x in open(b_path).read().split()}
    only_a, only_b = sorted(a - b), sorted(b - a)
    print("iptables delivered %d of %d, the imported table %d; "
          "%d only by iptables, %d only by the table" %
          (len(a), n, len(b), len(only_a), len(only_b)))
    if only_a or only_b:
        print("first ids only by iptables: %s" % only_a[:10])
        print("first ids only by the table: %s" % only_b[:10])
        return 1
    return 0


def main():
    cmd = sys.argv[1]
    if cmd == "gen":
        cmd_gen(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                sys.argv[5], sys.argv[6])
    elif cmd == "send":
        cmd_send(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
                 sys.argv[5], sys.argv[6:])
    elif cmd == "recv":
        cmd_recv(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    elif cmd == "compare":
        sys.exit(cmd_compare(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
