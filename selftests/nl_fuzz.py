#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fuzzer of the "tuplemerge" generic netlink family, driven by its YAML spec
(Documentation/netlink/specs/tuplemerge.yaml, read through tmnl.py).

    nl_fuzz.py [--seed N] [--time S | --steps N] [--mode root|userns]

One process does, in one network namespace (the one it runs in, which must
be its own):

- a sequence of valid commands over small pools of names (tables, rules,
  transactions begun, committed and aborted around live changes, SIDs,
  load-balancer services, backends and lb rules), kept in a model: what
  each command that succeeded should have done (read back at once with a
  get: the fields it asked for must be there), and nothing for each one
  that failed (the namespace generation must not move);
- between them, mutated requests: every attribute of every command with
  wrong types and lengths, boundary values, strings without their NUL or
  too long, flags with a payload, unknown and flagged attribute types,
  duplicates, truncated attributes, nested garbage, foreign attributes;
  broken headers (short, truncated genl header, a length past the end,
  bad version, unknown commands, dump flags on do-only commands, no ACK,
  several messages in one send).  A refused one must change nothing; one
  that was accepted makes the model read the state again.

Every reply is checked against the spec (known attributes, sizes of their
types, an extack offset inside the request); every request that must be
answered is (a probe follows those that may not be), within --reply-timeout
seconds.  Every --check-every steps and at the end, dumps of everything must
equal the model.  Meanwhile, forked children:

- dumper: dumps every object kind from a second socket, abandons some dumps
  halfway, and checks each reply against the spec;
- teardown: in new network namespaces, builds tables, rules, SIDs,
  services, an open transaction and a half-read dump, sends mutated
  requests too, and exits: the namespace dies with all of it;
- attacker: without CAP_NET_ADMIN over the namespace (uid nobody as root;
  all capabilities dropped in --mode userns; and the root of a child user
  namespace), sends valid and mutated changes to the fuzzed namespace:
  none may succeed (well-formed ones get EPERM).

Everything random comes from --seed (printed first).  The main sequence is
reproducible: --seed N --steps M replays the first M steps.  A failure
prints the seed, the step, the request in hex and the last requests, and
exits 1; exit 0 otherwise.  The kernel's own reports (KASAN, lockdep, WARN)
are the VM runner's to catch, in the guest's kernel log.
"""
import argparse
import ctypes
import ipaddress
import os
import random
import select
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tmnl  # noqa: E402
import yaml  # noqa: E402

NLM_F_ROOT = 0x100
NLM_F_CAPPED = 0x100
NLM_F_MATCH = 0x200
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLMSG_NOOP = 1
CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
EPERM = 1

# Fields of the objects that configuration sets (counters and sizes left out).
TABLE_FIELDS = ("table-name", "table-family", "table-hook", "table-priority",
                "table-policy", "table-engine", "table-collide",
                "table-max-rules", "table-max-tuples")
RULE_SKIP = ("net-generation", "rule-packets", "rule-bytes")
SID_FIELDS = ("sid-addr", "sid-policy", "sid-threshold", "sid-idle-timeout",
              "sid-close-timeout", "sid-syn-timeout", "sid-udp-timeout")
SVC_FIELDS = ("lb-name", "lb-vip", "lb-vip-len", "lb-proto", "lb-port",
              "lb-sid",
              "lb-choices", "lb-affinity", "lb-table-size", "lb-max-flows",
              "lb-idle-timeout", "lb-fin-timeout", "lb-syn-timeout",
              "lb-health-interval", "lb-health-timeout", "lb-health-rise",
              "lb-health-fall")

# Attributes left out of every request, each for a bug found by this
# fuzzer and not fixed yet (--known-bugs sends them anyway):
#
# (none at present)
KNOWN_BUGS = set()

TABLES = ("t0", "t1", "t2", "lb")
SIDS = tuple("fc00:f::%x" % i for i in range(1, 7))
SERVICES = ("s0", "s1", "s2")
BACKENDS = tuple("fc00:fe::%x" % i for i in range(1, 9))
LB_PRIMES = (2, 3, 7, 13, 251, 1021)


class Failure(Exception):
    """An invariant broke or the module stopped answering."""


class Spec:
    """The YAML spec: attributes with their numbers, types and checks, and
    the operations with what their do and dump requests take."""

    def __init__(self):
        with open(tmnl.SPEC) as f:
            y = yaml.load(f, Loader=getattr(yaml, "CSafeLoader",
                                            yaml.SafeLoader))
        consts = {d["name"]: d["value"] for d in y["definitions"]
                  if d["type"] == "const"}
        self.byname, self.bynum, self.cmds = tmnl.load_spec()
        self.attrs = {}
        for a in y["attribute-sets"][0]["attributes"]:
            checks = {}
            for k, v in a.get("checks", {}).items():
                checks[k] = consts[v] if isinstance(v, str) else v
            self.attrs[a["name"]] = dict(a, checks=checks,
                                         num=self.byname[a["name"]][0])
        self.maxattr = max(self.bynum)
        self.ops = {}
        for op in y["operations"]["list"]:
            do = op.get("do", {}).get("request", {}).get("attributes")
            dump = op.get("dump", {}).get("request", {}).get("attributes")
            self.ops[op["name"]] = {
                "num": self.cmds[op["name"]],
                "do": do if "do" in op else None,
                "dump": (dump or []) if "dump" in op else None,
                "admin": "uns-admin-perm" in op.get("flags", []),
            }
        self.maxcmd = max(self.cmds.values())


# --- messages -----------------------------------------------------------

def nla(num, payload):
    return struct.pack("HH", 4 + len(payload), num) + payload + \
        b"\0" * ((4 - len(payload) % 4) % 4)


def pack_value(spec, name, value):
    """One attribute from a Python value, in the spec's type."""
    a = spec.attrs[name]
    t = a["type"]
    if t == "u8":
        p = struct.pack("B", value & 0xff)
    elif t == "u16":
        p = struct.pack("H", value & 0xffff)
    elif t == "u32":
        p = struct.pack("I", value & 0xffffffff)
    elif t == "s32":
        p = struct.pack("i", value)
    elif t == "u64":
        p = struct.pack("Q", value & (2 ** 64 - 1))
    elif t == "string":
        p = value.encode("utf-8", "surrogateescape") + b"\0"
    elif t == "flag":
        p = b""
    elif t == "binary":
        p = value if isinstance(value, bytes) else \
            ipaddress.ip_address(value).packed
    else:
        raise ValueError("cannot pack %s" % t)
    return (a["num"], p)


def build(attrs):
    return b"".join(nla(n, p) for n, p in attrs)


def nlmsg(family, cmd, payload, flags, seq, version=1, reserved=0,
          length=None):
    body = struct.pack("BBH", cmd, version, reserved) + payload
    n = 16 + len(body) if length is None else length
    return struct.pack("IHHII", n, family, flags, seq, 0) + body


# --- replies checked against the spec ------------------------------------

SIZES = {"u8": 1, "u16": 2, "u32": 4, "s32": 4, "u64": 8, "flag": 0}


def check_attrs(spec, data, where, depth=0):
    """Decode attributes, checking each against the spec; nests recurse."""
    out, off = {}, 0
    while off + 4 <= len(data):
        alen, anum = struct.unpack_from("HH", data, off)
        anum &= ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
        if alen < 4 or off + alen > len(data):
            raise Failure("%s: attribute %d of length %d at %d of %d" %
                          (where, anum, alen, off, len(data)))
        payload = data[off + 4:off + alen]
        if anum not in spec.bynum:
            raise Failure("%s: unknown attribute %d in a reply" %
                          (where, anum))
        name, typ = spec.bynum[anum]
        a = spec.attrs[name]
        if typ == "pad":
            pass
        elif typ in SIZES:
            if len(payload) != SIZES[typ]:
                raise Failure("%s: %s (%s) of %d bytes" %
                              (where, name, typ, len(payload)))
        elif typ == "string":
            if not payload.endswith(b"\0") or b"\0" in payload[:-1]:
                raise Failure("%s: %s not one NUL-terminated string: %r" %
                              (where, name, payload))
            ml = a["checks"].get("max-len")
            if ml is not None and len(payload) - 1 > ml:
                raise Failure("%s: %s longer than %d" % (where, name, ml))
        elif typ == "binary":
            el = a["checks"].get("exact-len")
            ml = a["checks"].get("max-len")
            if (el is not None and len(payload) != el) or \
               (ml is not None and len(payload) > ml):
                raise Failure("%s: %s of %d bytes" %
                              (where, name, len(payload)))
        elif typ == "nest":
            if depth > 4:
                raise Failure("%s: nests %d deep" % (where, depth))
            sub = check_attrs(spec, payload, where + "/" + name, depth + 1)
            if a.get("multi-attr"):
                out.setdefault(name, []).append(sub)
                off += (alen + 3) & ~3
                continue
            payload = sub
        if typ != "pad":
            if name in out and not a.get("multi-attr"):
                raise Failure("%s: %s twice in one reply" % (where, name))
            if typ == "nest":
                out[name] = payload
            elif typ == "string":
                # Names are bytes to the kernel: keep any, round trip.
                out[name] = payload[:-1].decode("utf-8", "surrogateescape")
            else:
                out[name] = tmnl.decode(spec.bynum, data[off:off + alen]
                                        )[name]
        off += (alen + 3) & ~3
    return out


class Answer:
    """What the kernel said to one request."""

    def __init__(self):
        self.errno = None       # 0 for an ack, -E for an error, None: none
        self.msg = ""
        self.replies = []       # decoded reply messages
        self.intr = False       # NLM_F_DUMP_INTR seen

    @property
    def ok(self):
        return self.errno == 0 or (self.errno is None and self.replies)


class Nl:
    """A netlink socket that reads back the answers of its own requests."""

    def __init__(self, spec, family, timeout):
        self.spec = spec
        self.family = family
        self.timeout = timeout
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  tmnl.NETLINK_GENERIC)
        self.sock.setsockopt(270, tmnl.NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(270, tmnl.NETLINK_CAP_ACK, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((0, 0))
        self.seq = int.from_bytes(os.urandom(2), "little") << 8

    def close(self):
        self.sock.close()

    def next_seq(self):
        self.seq = (self.seq + 1) & 0xffffffff
        return self.seq

    def read(self, want, answers, deadline, reqs):
        """Read until every seq of want got its final message."""
        pending = set(want)
        while pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                raise Failure("no answer within %ds to seq %s" %
                              (self.timeout, sorted(pending)))
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, mflags, seq, _ = struct.unpack_from(
                    "IHHII", data, off)
                if mlen < 16 or off + mlen > len(data):
                    raise Failure("reply header of length %d at %d of %d" %
                                  (mlen, off, len(data)))
                body = data[off + 16:off + mlen]
                off += (mlen + 3) & ~3
                a = answers.get(seq)
                if a is None:
                    continue        # a late answer of an older request
                if mflags & tmnl.NLM_F_DUMP_INTR:
                    a.intr = True
                if mtype == tmnl.NLMSG_ERROR:
                    self.check_error(a, body, mflags, reqs.get(seq, b""))
                    pending.discard(seq)
                elif mtype == tmnl.NLMSG_DONE:
                    a.errno = struct.unpack_from("i", body)[0] \
                        if len(body) >= 4 else 0
                    pending.discard(seq)
                elif mtype == self.family:
                    a.replies.append(check_attrs(self.spec, body[4:],
                                                 "reply"))
                else:
                    raise Failure("reply of type %d" % mtype)

    def check_error(self, a, body, mflags, req):
        if len(body) < 20:
            raise Failure("error message of %d bytes" % len(body))
        err = struct.unpack_from("i", body)[0]
        if err > 0 or err < -4095:
            raise Failure("error code %d" % err)
        a.errno = err
        # The request's header, and all of it unless capped.
        off = 20 if mflags & NLM_F_CAPPED else \
            4 + struct.unpack_from("I", body, 4)[0]
        off = (off + 3) & ~3
        while off + 4 <= len(body):
            alen, anum = struct.unpack_from("HH", body, off)
            if alen < 4:
                break
            payload = body[off + 4:off + alen]
            if anum == tmnl.NLMSGERR_ATTR_MSG:
                try:
                    a.msg = payload.rstrip(b"\0").decode()
                except UnicodeDecodeError:
                    raise Failure("extack message not UTF-8: %r" % payload)
                if "\0" in a.msg:
                    raise Failure("extack message with a NUL: %r" % payload)
            elif anum == tmnl.NLMSGERR_ATTR_OFFS:
                where = struct.unpack("I", payload)[0]
                if req and where >= len(req):
                    raise Failure("extack offset %d past the request's %d "
                                  "bytes" % (where, len(req)))
            off += (alen + 3) & ~3

    def exchange(self, msgs, need):
        """Send each raw message (a list of (seq, bytes)) in one send each;
        return their Answers.  For the seqs in need an answer must come."""
        answers = {seq: Answer() for seq, _ in msgs}
        reqs = {seq: m for seq, m in msgs}
        for _, m in msgs:
            try:
                self.sock.send(m)
            except OSError as e:
                # The kernel may refuse a message outright (too big).
                for seq, _ in msgs:
                    answers[seq].errno = -e.errno
                return answers
        self.read(need, answers, time.monotonic() + self.timeout, reqs)
        return answers

    def request(self, cmd, attrs, dump=False, echo=False):
        """A well-formed request of (name, value) pairs."""
        seq = self.next_seq()
        flags = tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK
        if dump:
            flags |= tmnl.NLM_F_DUMP
        if echo:
            flags |= tmnl.NLM_F_ECHO
        payload = build(pack_value(self.spec, n, v) for n, v in attrs)
        m = nlmsg(self.family, self.spec.cmds[cmd], payload, flags, seq)
        return self.exchange([(seq, m)], [seq])[seq], m


def family_id():
    g = tmnl.Genl()
    fam = g.family_id("tuplemerge")
    g.sock.close()
    return fam


# --- the model ------------------------------------------------------------

def canon_table(t):
    return {k: t[k] for k in TABLE_FIELDS if k in t}


def canon_rule(r):
    return {k: v for k, v in r.items() if k not in RULE_SKIP}


def canon_sid(s):
    return {k: s[k] for k in SID_FIELDS if k in s}


def canon_svc(s):
    out = {k: s[k] for k in SVC_FIELDS if k in s}
    out["backends"] = sorted(
        (b.get("lb-backend-sid"), b.get("lb-backend-weight"))
        for b in s.get("lb-backends", {}).get("lb-backend", []))
    return out


def read_state(nl):
    """Everything in the namespace, from dumps, checked for order."""
    state = {"tables": {}, "rules": {}, "sids": {}, "svcs": {}}
    a, _ = nl.request("table-get", [], dump=True)
    if a.errno or a.intr:
        raise Failure("table dump: %s %s" % (a.errno, a.msg))
    handles = [t["table-handle"] for t in a.replies]
    if handles != sorted(handles) or len(set(handles)) != len(handles):
        raise Failure("table dump not by increasing handle: %s" % handles)
    for t in a.replies:
        name = t["table-name"]
        state["tables"][name] = canon_table(t)
        r, _ = nl.request("rule-get", [("table-name", name)], dump=True)
        if r.errno or r.intr:
            raise Failure("rule dump of %s: %s %s" % (name, r.errno, r.msg))
        ids = [x["rule-id"] for x in r.replies]
        if ids != sorted(ids) or len(set(ids)) != len(ids):
            raise Failure("rule dump of %s not by increasing id: %s" %
                          (name, ids))
        if t.get("table-rules") != len(ids):
            raise Failure("table %s says %s rules, its dump has %d" %
                          (name, t.get("table-rules"), len(ids)))
        state["rules"][name] = {x["rule-id"]: canon_rule(x)
                                for x in r.replies}
    a, _ = nl.request("sid-get", [], dump=True)
    if a.errno or a.intr:
        raise Failure("SID dump: %s %s" % (a.errno, a.msg))
    state["sids"] = {s["sid-addr"]: canon_sid(s) for s in a.replies}
    a, _ = nl.request("lb-service-get", [], dump=True)
    if a.errno or a.intr:
        raise Failure("service dump: %s %s" % (a.errno, a.msg))
    state["svcs"] = {s["lb-name"]: canon_svc(s) for s in a.replies}
    return state


def diff(want, got, path=""):
    """The first difference between two nested dicts, as text."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(want) | set(got), key=str):
            if k not in got:
                return "%s/%s: missing (want %r)" % (path, k, want[k])
            if k not in want:
                return "%s/%s: unexpected %r" % (path, k, got[k])
            d = diff(want[k], got[k], "%s/%s" % (path, k))
            if d:
                return d
        return None
    return None if want == got else "%s: want %r, got %r" % (path, want, got)


# --- generators -----------------------------------------------------------

def prefix(rng, v6):
    bits = 128 if v6 else 32
    plen = rng.choice((0, 1, 8, 16, 24, bits // 2, bits - 1, bits,
                       rng.randint(0, bits)))
    addr = rng.getrandbits(bits) & (((1 << plen) - 1) << (bits - plen))
    a = ipaddress.IPv6Address(addr) if v6 else ipaddress.IPv4Address(addr)
    return a.packed, plen


PORT_RANGES = (("rule-sport-min", "rule-sport-max"),
               ("rule-dport-min", "rule-dport-max"))


def same(key, asked, got, attrs):
    """Whether a rule read back holds what was asked: the kernel leaves
    out what means "any" (a /0 prefix, ports 0-65535, cookie 0)."""
    if isinstance(asked, bytes):
        asked = str(ipaddress.ip_address(asked))
    if got == asked:
        return True
    if got is not None:
        return False
    d = dict(attrs)
    for lo, hi in PORT_RANGES:
        if key in (lo, hi) and d.get(lo, 0) == 0 and d.get(hi) == 65535:
            return True
    if key in ("rule-src", "rule-dst") and d.get(key + "-len") == 0:
        return True
    return asked in (0, "", "0.0.0.0", "::")


class Gen:
    """Valid requests, chosen from the model so that most succeed."""

    def __init__(self, rng, model):
        self.rng = rng
        self.m = model

    def table_new(self):
        r = self.rng
        name = r.choice(TABLES)
        if name == "lb":
            return [("table-name", "lb"), ("table-family", 2),
                    ("table-hook", 0)]
        fams = 2 if "inet-tables" in KNOWN_BUGS else 3
        a = [("table-name", name), ("table-family", r.randint(1, fams)),
             ("table-hook", r.randint(0, 4))]
        for k, v in (("table-priority", r.randint(-400, 400)),
                     ("table-policy", r.randint(0, 1)),
                     ("table-engine", r.randint(0, 2)),
                     ("table-collide", r.randint(1, 128)),
                     ("table-max-rules", r.choice((1, 5, 100, 16777216))),
                     ("table-max-tuples", r.choice((1, 3, 65535)))):
            if r.random() < 0.4:
                a.append((k, v))
        return a

    def rule(self, table, rid, txn=None):
        r = self.rng
        t = self.m.tables.get(table, {})
        fam = t.get("table-family", r.randint(1, 3))
        a = [("table-name", table)]
        if txn is not None:
            a.append(("txn-id", txn))
        if rid is not None:
            a.append(("rule-id", rid))
        if table == "lb" and self.m.svcs and r.random() < 0.7:
            name = r.choice(sorted(self.m.svcs))
            s = self.m.svcs[name]
            a += [("rule-dst", s["lb-vip"]), ("rule-dst-len", 128),
                  ("rule-proto", 6), ("rule-action", 5),
                  ("rule-lb-service", name)]
            if s.get("lb-port"):
                a += [("rule-dport-min", s["lb-port"])]
            return a
        v6 = fam == 2 or (fam == 3 and r.random() < 0.5)
        if r.random() < 0.3:
            a.append(("rule-family", 2 if v6 else 1))
        if r.random() < 0.6:
            p, n = prefix(r, v6)
            a += [("rule-src", p), ("rule-src-len", n)]
        if r.random() < 0.6:
            p, n = prefix(r, v6)
            a += [("rule-dst", p), ("rule-dst-len", n)]
        proto = r.choice((6, 17, 6, 17, 1, 58, r.randint(0, 255), None))
        if proto is not None:
            a.append(("rule-proto", proto))
        for lo, hi in (("rule-sport-min", "rule-sport-max"),
                       ("rule-dport-min", "rule-dport-max")):
            if r.random() < 0.4:
                x = r.choice((0, 1, 22, 1024, 65535, r.randint(0, 65535)))
                y = r.choice((x, 65535, min(65535, x + r.randint(0, 99))))
                a += [(lo, x), (hi, max(x, y))]
        if r.random() < 0.3:
            a.append(("rule-priority", r.choice((0, 1, 10, 2 ** 32 - 1))))
        act = r.choice((0, 1, 2, 3, 4, None))
        if act is not None:
            a.append(("rule-action", act))
        if act == 2 and r.random() < 0.5:
            a.append(("rule-reject", 1 if proto == 6 else
                      r.choice((0, 2, 3, 4))))
        if act == 3:
            a.append(("rule-mark", r.getrandbits(32)))
        if r.random() < 0.1:
            a.append(("rule-iif", 1))
        if r.random() < 0.3:
            a.append(("rule-comment", "c%d" % r.getrandbits(16) *
                      r.randint(1, 10)))
        if r.random() < 0.3:
            a.append(("rule-cookie", r.getrandbits(64)))
        return a

    def sid(self):
        r = self.rng
        pol = r.randint(1, 6)
        a = [("sid-addr", r.choice(SIDS)), ("sid-policy", pol)]
        if pol >= 3:
            # dyn (6): at most 16384, above refused.
            a.append(("sid-threshold", r.choice((1, 2, 100, 16384, 16385,
                                                 2 ** 32 - 1))))
        for k in ("idle", "close", "syn", "udp"):
            if r.random() < 0.3:
                a.append(("sid-%s-timeout" % k, r.choice((1, 2, 60, 86400))))
        return a

    def service(self):
        r = self.rng
        i = r.randrange(len(SERVICES))
        a = [("lb-name", SERVICES[i]), ("lb-vip", "fd00:f0::%x" % (i + 1)),
             ("lb-sid", "fd00:fb::%x" % (i + 1))]
        # A VIP prefix: of its own (/48), holding the others' (/16), or
        # with host bits set (refused).
        k = r.random()
        if k < 0.1:
            a[1] = ("lb-vip", "fd00:f0:%x::" % (i + 1))
            a.append(("lb-vip-len", 48))
        elif k < 0.15:
            a[1] = ("lb-vip", "fd00::")
            a.append(("lb-vip-len", 16))
        elif k < 0.2:
            a.append(("lb-vip-len", 64))
        for k, v in (("lb-proto", r.choice((6, 17))), ("lb-port", r.choice((0, 80, 65535))),
                     ("lb-choices", r.randint(1, 8)),
                     ("lb-affinity", r.randint(0, 1)),
                     ("lb-table-size", r.choice(LB_PRIMES)),
                     ("lb-max-flows", r.choice((1, 100, 4096))),
                     ("lb-idle-timeout", r.choice((1, 40, 86400))),
                     ("lb-fin-timeout", r.choice((1, 10))),
                     ("lb-syn-timeout", r.choice((1, 5))),
                     # Health work running while the services come and go.
                     ("lb-health-interval", r.choice((100, 1000))),
                     ("lb-health-timeout", r.choice((1, 100))),
                     ("lb-health-rise", r.choice((1, 100))),
                     ("lb-health-fall", r.choice((1, 2)))):
            if r.random() < 0.5:
                a.append((k, v))
        if "lb-table-size" not in dict(a):
            a.append(("lb-table-size", r.choice(LB_PRIMES)))
        return a

    def backend(self):
        r = self.rng
        a = [("lb-name", r.choice(SERVICES)),
             ("lb-backend-sid", r.choice(BACKENDS))]
        if r.random() < 0.5:
            # 65535 with 1 is the costliest Maglev build, 0 drains; the
            # mutator sends 65536 and 4294967295 (above the spec's max).
            a.append(("lb-backend-weight",
                      r.choice((0, 1, 2, 100, 32767, 32768, 65534, 65535))))
        return a


class Model:
    """What the namespace should hold."""

    def __init__(self):
        self.tables, self.rules, self.sids, self.svcs = {}, {}, {}, {}

    def load(self, state):
        self.tables = dict(state["tables"])
        self.rules = {k: dict(v) for k, v in state["rules"].items()}
        self.sids = dict(state["sids"])
        self.svcs = dict(state["svcs"])

    def state(self):
        return {"tables": self.tables, "rules": self.rules,
                "sids": self.sids, "svcs": self.svcs}


# --- mutations --------------------------------------------------------------

LENGTHS = (0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 127, 128,
           129, 255, 256, 1024, 4096, 65000)


def int_bounds(typ):
    bits = {"u8": 8, "u16": 16, "u32": 32, "s32": 32, "u64": 64}[typ]
    return (0, 1, 2, (1 << bits) - 1, (1 << bits) - 2, 1 << (bits - 1),
            (1 << (bits - 1)) - 1, 128, 129, 255, 256, 65535, 65536,
            0x7fffffff, 0x80000000)


class Mutator:
    def __init__(self, rng, spec):
        self.rng = rng
        self.spec = spec
        self.violations = []

    def value(self, name, pending):
        """A random, often invalid, payload for attribute name; notes in
        pending what in it the spec (and strict validation) forbids."""
        v = self.raw_value(name)
        why = self.forbidden(name, v)
        if why:
            pending.append((self.spec.attrs[name]["num"],
                            "%s: %s" % (name, why), v))
        return v

    def forbidden(self, name, v):
        """Why the spec forbids payload v for name, or None."""
        a = self.spec.attrs[name]
        t = a["type"]
        c = a["checks"]
        if t in SIZES:
            if len(v) != SIZES[t]:
                return "%d bytes for a %s" % (len(v), t)
            if t == "flag":
                return None
            x = int.from_bytes(v, "little", signed=(t == "s32"))
            if "min" in c and x < c["min"]:
                return "%d below min %d" % (x, c["min"])
            if "max" in c and x > c["max"]:
                return "%d above max %d" % (x, c["max"])
        elif t == "string":
            if b"\0" not in v:
                return "no NUL"
            n = v.index(b"\0")
            if "max-len" in c and n > c["max-len"]:
                return "%d characters, max-len %d" % (n, c["max-len"])
        elif t == "binary":
            if "exact-len" in c and len(v) != c["exact-len"]:
                return "%d bytes, exact-len %d" % (len(v), c["exact-len"])
            if "max-len" in c and len(v) > c["max-len"]:
                return "%d bytes, max-len %d" % (len(v), c["max-len"])
        return None

    def raw_value(self, name):
        r = self.rng
        a = self.spec.attrs[name]
        t = a["type"]
        c = a["checks"]
        choice = r.random()
        if t in ("u8", "u16", "u32", "s32", "u64"):
            if choice < 0.6:
                cand = list(int_bounds(t))
                for k in ("min", "max"):
                    if k in c:
                        cand += [c[k] - 1, c[k], c[k] + 1]
                fmt = {"u8": "B", "u16": "H", "u32": "I", "s32": "I",
                       "u64": "Q"}[t]
                mask = (1 << (8 * struct.calcsize(fmt))) - 1
                return struct.pack(fmt, r.choice(cand) & mask)
        elif t == "string":
            ml = c.get("max-len", 64)
            if choice < 0.2:
                return b"x" * r.choice((ml, ml + 1, ml + 2, 255, 4000))
            if choice < 0.4:
                return b"x" * r.choice((ml - 1, ml, ml + 1)) + b"\0"
            if choice < 0.5:
                return b"\0"
            if choice < 0.6:
                return b"a\0b\0"
            if choice < 0.7:
                return bytes([r.randint(128, 255)]) * 5 + b"\0"
        elif t == "binary":
            if choice < 0.5:
                return self.rng.randbytes(r.choice((0, 1, 3, 4, 5, 15, 16, 17, 32,
                                            255)))
        elif t == "flag":
            if choice < 0.6:
                return self.rng.randbytes(r.choice((1, 4, 8)))
            return b""
        elif t == "nest":
            return self.garbage_nest(r.randint(0, 3))
        return self.rng.randbytes(r.choice(LENGTHS))

    def garbage_nest(self, depth):
        r = self.rng
        out = b""
        for _ in range(r.randint(0, 5)):
            num = r.choice((r.randint(0, self.spec.maxattr + 3),
                            self.spec.attrs["lb-backend"]["num"],
                            self.spec.attrs["lb-backend-sid"]["num"],
                            self.spec.attrs["lb-backend-sid"]["num"]))
            if depth > 0 and r.random() < 0.5:
                payload = self.garbage_nest(depth - 1)
                num |= NLA_F_NESTED
            else:
                payload = self.rng.randbytes(r.choice((0, 1, 4, 16, 17)))
            out += nla(num & 0xffff, payload)
        if r.random() < 0.2:
            out += struct.pack("HH", 200, 3)     # runs past the end
        return out

    def name_of(self, num):
        num &= ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
        return self.spec.bynum.get(num, (None,))[0]

    def attrs(self, cmd, attrs):
        """Mutate a valid attribute list [(num, payload)]; returns bytes.
        self.violations lists what the spec forbids in them."""
        r = self.rng
        attrs = list(attrs)
        op = self.spec.ops[cmd]
        names = (op["do"] if op["do"] is not None else op["dump"]) or []
        names = [n for n in names if n not in KNOWN_BUGS]
        taken = set(op["do"] or []) | set(op["dump"] or [])
        # (type as sent or None, what is wrong[, payload]): an entry counts
        # only if that attribute is still there at the end (a later step
        # may delete or replace it)
        pending = []
        raw_tail = b""
        for _ in range(r.randint(1, 3)):
            k = r.randrange(11)
            if k <= 2 and (names or attrs):
                # a taken attribute with a bad value
                name = r.choice(names) if names and (
                    not attrs or r.random() < 0.5) else \
                    self.name_of(r.choice(attrs)[0])
                if name is None:
                    continue
                num = self.spec.attrs[name]["num"]
                attrs = [x for x in attrs if x[0] != num]
                attrs.insert(r.randint(0, len(attrs)),
                             (num, self.value(name, pending)))
            elif k == 3 and attrs:
                i = r.randrange(len(attrs))             # duplicate
                name = self.name_of(attrs[i][0])
                attrs.insert(r.randint(0, len(attrs)),
                             (attrs[i][0], self.value(name, pending)
                              if name and r.random() < 0.5
                              else attrs[i][1]))
            elif k == 4:                                 # foreign attribute
                name = r.choice([n for n in self.spec.attrs
                                 if n not in KNOWN_BUGS])
                attrs.append((self.spec.attrs[name]["num"],
                              self.value(name, pending)))
                if name not in taken and \
                   self.spec.attrs[name]["type"] != "pad":
                    pending.append((self.spec.attrs[name]["num"],
                                    name + ": not taken by " + cmd))
            elif k == 5:                                 # unknown type
                attrs.append((r.choice((0, self.spec.maxattr + 1,
                                        self.spec.maxattr + 50, 0x3fff)),
                              self.rng.randbytes(r.choice((0, 4, 8, 17)))))
                pending.append((attrs[-1][0], "unknown attribute type"))
            elif k == 6 and attrs:                       # type flags
                i = r.randrange(len(attrs))
                flag = r.choice((NLA_F_NESTED, NLA_F_NET_BYTEORDER))
                attrs[i] = (attrs[i][0] | flag, attrs[i][1])
                if flag == NLA_F_NESTED:
                    pending.append((attrs[i][0], "NLA_F_NESTED on a %s" %
                                    self.name_of(attrs[i][0])))
            elif k == 7:                                 # nested garbage
                name = r.choice(("lb-backends", "lb-backend"))
                attrs.append((self.spec.attrs[name]["num"] |
                              (NLA_F_NESTED if r.random() < 0.5 else 0),
                              self.garbage_nest(r.randint(0, 4))))
                pending.append((attrs[-1][0], name + ": not taken by " + cmd))
            elif k == 8:                                 # truncated attr
                raw_tail = r.choice((
                    struct.pack("HH", r.choice((0, 1, 2, 3)), 4),
                    struct.pack("HH", 64, self.spec.attrs["table-name"]
                                ["num"]) + b"abc",
                    struct.pack("H", 8),
                    b"\x01"))
                pending.append((None, "bytes left after the attributes"))
            elif k == 9 and attrs:
                r.shuffle(attrs)
            elif k == 10 and attrs:
                del attrs[r.randrange(len(attrs))]
        left = {a[0] for a in attrs}
        sent = set(attrs)
        self.violations = [p[1] for p in pending
                           if (p[0] is None and raw_tail) or
                           (len(p) == 2 and p[0] in left) or
                           (len(p) == 3 and (p[0], p[2]) in sent)]
        return build(attrs) + raw_tail

    def message(self, family, cmd, payload, seq):
        """Mutate the headers of a request; returns (bytes, must_answer).
        self.intact tells whether the request still reaches cmd's doit as
        it would unmutated (with an ACK asked)."""
        r = self.rng
        op = self.spec.ops[cmd]
        num = op["num"]
        flags = tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK
        version, reserved, length = 1, 0, None
        answer = True
        k = r.randrange(14)
        self.intact = k in (2, 3, 6, 13)
        if k == 0:
            num = r.choice((0, self.spec.maxcmd + 1, 100, 255))
        elif k == 1:
            num = r.randint(1, self.spec.maxcmd)         # another command
        elif k == 2:
            version = r.choice((0, 2, 255))
        elif k == 3:
            reserved = r.choice((1, 0xffff))
        elif k == 4:
            flags |= tmnl.NLM_F_DUMP                     # dump of anything
        elif k == 5:
            flags &= ~tmnl.NLM_F_ACK                     # no ack wanted
        elif k == 6:
            flags |= r.choice((tmnl.NLM_F_ECHO, NLM_F_ROOT, NLM_F_MATCH,
                               0x400, 0x800, 0x1000, 0xf000))
        elif k == 7:
            flags &= ~tmnl.NLM_F_REQUEST
            answer = False
        elif k == 8:
            # short: a header only, or a truncated genl header
            m = nlmsg(family, num, b"", flags, seq)
            cut = r.choice((16, 17, 18, 19))
            return struct.pack("I", cut) + m[4:cut], True
        elif k == 9:
            length = 16 + 4 + len(payload) + r.choice((1, 4, 100, 65536))
            answer = False                  # past the end: dropped
        elif k == 10:
            length = 16 + 4 + max(0, len(payload) - r.choice((1, 2, 4, 9)))
        elif k == 11:
            m = nlmsg(family, num, payload, flags, seq)
            return m + self.rng.randbytes(r.choice((1, 3, 4, 15, 16))), True
        elif k == 12:
            m = nlmsg(NLMSG_NOOP if r.random() < 0.5 else tmnl.NLMSG_DONE,
                      num, payload, flags, seq)
            return m, True
        if length is not None and length < 16:
            answer = False
        return nlmsg(family, num, payload, flags, seq, version, reserved,
                     length), answer


# --- the fuzzer ---------------------------------------------------------------

class Fuzzer:
    def __init__(self, args, spec, family):
        self.args = args
        self.spec = spec
        self.family = family
        self.rng = random.Random(args.seed)
        self.nl = Nl(spec, family, args.reply_timeout)
        self.model = Model()
        self.gen = Gen(self.rng, self.model)
        self.mut = Mutator(self.rng, spec)
        self.step = 0
        self.last = []          # (step, what, bytes) of the last requests
        self.stats = {}
        self.txn = None         # [id, staged rules by table, dirty tables]

    def count(self, what):
        self.stats[what] = self.stats.get(what, 0) + 1

    def remember(self, what, m):
        self.last.append((self.step, what, m))
        del self.last[:-8]

    def fail(self, why, m=b""):
        lines = ["FAIL: %s" % why,
                 "  seed %d, step %d (reproduce: nl_fuzz.py --seed %d "
                 "--steps %d --mode %s)" % (self.args.seed, self.step,
                                            self.args.seed, self.step,
                                            self.args.mode)]
        if m:
            lines.append("  request: %s" % m.hex())
        for step, what, b in self.last:
            lines.append("  step %d %s: %s" % (step, what, b.hex()))
        raise Failure("\n".join(lines))

    def generation(self):
        a, m = self.nl.request("stats-get", [])
        if a.errno or not a.replies:
            self.fail("stats-get: %s %s" % (a.errno, a.msg), m)
        return a.replies[0]["net-generation"]

    def req(self, cmd, attrs, dump=False, echo=False):
        try:
            a, m = self.nl.request(cmd, attrs, dump=dump, echo=echo)
        except Failure as e:
            self.fail("%s: %s" % (cmd, e))
        self.remember(cmd, m)
        self.count("%s %s" % (cmd, "ok" if a.ok else "err%s" % a.errno))
        return a, m

    # Valid operations: (weight, method).
    def op_table_new(self):
        attrs = self.gen.table_new()
        name = attrs[0][1]
        a, m = self.checked("table-new", attrs)
        if a.ok:
            g, _ = self.req("table-get", [("table-name", name)])
            if g.errno or not g.replies:
                self.fail("table %s created but not found" % name, m)
            t = canon_table(g.replies[0])
            for k, v in attrs:
                if t.get(k) != v:
                    self.fail("table-new %s: %s is %r, asked %r" %
                              (name, k, t.get(k), v), m)
            self.model.tables[name] = t
            self.model.rules[name] = {}

    def op_table_del(self):
        name = self.rng.choice(TABLES)
        a, _ = self.checked("table-del", [("table-name", name)])
        if a.ok:
            self.model.tables.pop(name, None)
            self.model.rules.pop(name, None)
            self.txn_dirty(name)

    def op_rule(self, cmd):
        table = self.rng.choice(TABLES)
        rid = self.rng.randint(1, 30)
        echo = self.rng.random() < 0.2
        if cmd == "rule-new" and echo and self.rng.random() < 0.5:
            rid = None
        txn = self.txn[0] if self.txn and self.rng.random() < 0.6 else None
        attrs = self.gen.rule(table, rid, txn)
        a, m = self.checked(cmd, attrs, echo=echo)
        if not a.ok:
            return
        if rid is None:
            if not a.replies or "rule-id" not in a.replies[-1]:
                self.fail("rule-new with echo: no rule-id echoed", m)
            rid = a.replies[-1]["rule-id"]
        if txn is not None:
            self.staged(table).add(rid)
            return
        g, _ = self.req("rule-get", [("table-name", table), ("rule-id", rid)])
        if g.errno or not g.replies:
            self.fail("%s %s/%d succeeded, rule-get: %s" %
                      (cmd, table, rid, g.errno), m)
        r = canon_rule(g.replies[0])
        for k, v in attrs:
            if k in ("txn-id", "rule-reset-counters"):
                continue
            if not same(k, v, r.get(k), attrs):
                self.fail("%s %s/%d: %s is %r, asked %r" %
                          (cmd, table, rid, k, r.get(k), v), m)
        self.model.rules.setdefault(table, {})[rid] = r
        self.txn_dirty(table)

    def holds(self, r, attrs):
        """Whether the rule read back, r, holds what attrs asked."""
        return all(same(k, v, r.get(k), attrs) for k, v in attrs
                   if k not in ("table-name", "rule-reset-counters"))

    def op_rules(self, cmd):
        """Several rules in one request, each a "rule" nest: each is
        applied or refused on its own, so afterwards each id holds what its
        first nest asked (rule-set: its last) or what it held before."""
        r = self.rng
        table = r.choice(TABLES)
        nests = []
        for _ in range(r.randint(1, 4)):
            a = self.gen.rule(table, r.randint(1, 30))
            nests.append([x for x in a if x[0] != "table-name"])
        payload = build([pack_value(self.spec, "table-name", table)] +
                        [(self.spec.attrs["rule"]["num"] | NLA_F_NESTED,
                          build(pack_value(self.spec, n, v) for n, v in a))
                         for a in nests])
        before = dict(self.model.rules.get(table, {}))
        seq = self.nl.next_seq()
        m = nlmsg(self.family, self.spec.cmds[cmd], payload,
                  tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK, seq)
        self.remember(cmd + " nests", m)
        try:
            a = self.nl.exchange([(seq, m)], [seq])[seq]
        except Failure as e:
            self.fail("%s with nests: %s" % (cmd, e), m)
        self.count("%s nests %s" % (cmd, "ok" if a.ok else "err%s" % a.errno))
        ids = [dict(n)["rule-id"] for n in nests]
        for rid in sorted(set(ids)):
            asked = [n for n in nests if dict(n)["rule-id"] == rid]
            # The nest that decides: rule-new's first one that is not
            # refused, rule-set's last one; others may be too (a rule-new
            # after a refused one, a rule-set before the last).
            g, _ = self.req("rule-get", [("table-name", table),
                                         ("rule-id", rid)])
            got = canon_rule(g.replies[0]) if g.replies else None
            old = before.get(rid)
            if got is None:
                ok = old is None
            else:
                ok = got == old or any(self.holds(got, n) for n in asked)
            if not ok:
                self.fail("%s with nests %s/%d: %r, before %r, asked %r" %
                          (cmd, table, rid, got, old, asked), m)
            if got is None and cmd == "rule-new":
                # Every nest of it was refused: so is each alone.
                one = [("table-name", table)] + asked[0]
                s1, _ = self.req(cmd, one)
                if s1.ok:
                    self.fail("%s with nests %s/%d: refused in a nest, "
                              "taken alone" % (cmd, table, rid), m)
            if got is None:
                self.model.rules.get(table, {}).pop(rid, None)
            elif table in self.model.tables:
                self.model.rules.setdefault(table, {})[rid] = got
        self.txn_dirty(table)

    def op_rule_del(self):
        table = self.rng.choice(TABLES)
        txn = self.txn[0] if self.txn and self.rng.random() < 0.6 else None
        attrs = [("table-name", table)]
        if txn is not None:
            attrs.append(("txn-id", txn))
        flush = self.rng.random() < 0.1
        if not flush:
            rid = self.rng.choice(sorted(self.model.rules.get(table, {}))
                                  or [1]) if self.rng.random() < 0.8 \
                else self.rng.randint(1, 30)
            attrs.append(("rule-id", rid))
        a, _ = self.checked("rule-del", attrs)
        if not a.ok:
            return
        if txn is not None:
            if flush:
                self.staged(table).clear()
            else:
                self.staged(table).discard(rid)
            return
        if flush:
            self.model.rules[table] = {}
        else:
            self.model.rules.get(table, {}).pop(rid, None)
        self.txn_dirty(table)

    def txn_dirty(self, table):
        if self.txn:
            self.txn[2].add(table)

    def staged(self, table):
        """The rule ids the open transaction leaves in table."""
        return self.txn[1].setdefault(
            table, set(self.model.rules.get(table, {})))

    def op_txn(self):
        r = self.rng
        if self.txn is None or r.random() < 0.1:
            a, m = self.checked("txn-begin", [])
            if a.ok:
                if not a.replies or "txn-id" not in a.replies[0]:
                    self.fail("txn-begin: no txn-id", m)
                if self.txn is None:
                    # id, ids staged per table, tables changed live
                    self.txn = [a.replies[0]["txn-id"], {}, set()]
                else:
                    self.checked("txn-abort",
                                 [("txn-id", a.replies[0]["txn-id"])])
            return
        cmd = r.choice(("txn-commit", "txn-abort", "txn-commit"))
        a, m = self.checked(cmd, [("txn-id", self.txn[0])])
        staged, dirty = self.txn[1], self.txn[2]
        self.txn = None
        if cmd == "txn-commit" and a.ok and staged:
            # The rules are read back; the ids must be what the
            # transaction staged, in the tables nothing changed live
            # meanwhile (the live changes a transaction keeps are
            # rule_errors.py's to test).
            self.resync("commit")
            for table, ids in staged.items():
                got = set(self.model.rules.get(table, {}))
                if table not in dirty and got != ids:
                    self.fail("commit: %s holds rules %s, staged %s" %
                              (table, sorted(got), sorted(ids)), m)

    def op_sid(self):
        r = self.rng
        k = r.random()
        if k < 0.5:
            attrs = self.gen.sid()
            cmd = "sid-new" if r.random() < 0.7 else "sid-set"
            a, m = self.checked(cmd, attrs)
            if a.ok:
                g, _ = self.req("sid-get", [attrs[0]])
                if g.errno or not g.replies:
                    self.fail("%s then sid-get: %s" % (cmd, g.errno), m)
                s = canon_sid(g.replies[0])
                for key, v in attrs:
                    if s.get(key) != v:
                        self.fail("%s: %s is %r, asked %r" %
                                  (cmd, key, s.get(key), v), m)
                self.model.sids[attrs[0][1]] = s
        elif k < 0.7:
            addr = r.choice(SIDS)
            a, _ = self.checked("sid-del", [("sid-addr", addr)])
            if a.ok:
                self.model.sids.pop(addr, None)
        elif k < 0.85:
            self.checked("sid-load", [("sid-addr", r.choice(SIDS)),
                                      ("sid-load", r.getrandbits(32))])
        else:
            self.req("sid-get", [("sid-addr", r.choice(SIDS))])

    def op_lb(self):
        r = self.rng
        k = r.random()
        if k < 0.25:
            attrs = self.gen.service()
            a, m = self.checked("lb-service-new", attrs)
            if a.ok:
                self.read_svc(attrs[0][1], attrs, m)
        elif k < 0.35:
            name = r.choice(SERVICES)
            a, _ = self.checked("lb-service-del", [("lb-name", name)])
            if a.ok:
                self.model.svcs.pop(name, None)
        elif k < 0.75:
            attrs = self.gen.backend()
            cmd = "lb-backend-new" if r.random() < 0.7 else "lb-backend-del"
            if cmd == "lb-backend-del":
                attrs = attrs[:2]
            a, m = self.checked(cmd, attrs)
            if a.ok:
                s = self.read_svc(attrs[0][1], None, m)
                sids = [b[0] for b in s["backends"]]
                if (cmd == "lb-backend-new") != (attrs[1][1] in sids):
                    self.fail("%s %s: backends now %s" %
                              (cmd, attrs[1][1], sids), m)
        elif k < 0.8:
            self.req("lb-flow-get", [("lb-name", r.choice(SERVICES))]
                     if r.random() < 0.5 else [], dump=True)
        elif k < 0.85:
            self.op_lb_lookup()
        else:
            self.checked("lb-flow-flush", [("lb-name", r.choice(SERVICES))])

    def op_lb_lookup(self):
        """lb flows lookup: the candidates are backends of weight above
        0, as many as choices (or as those backends), none twice; a
        service of any port needs the connection's port, another its
        own."""
        r = self.rng
        name = r.choice(SERVICES)
        attrs = [("lb-name", name),
                 ("lb-flow-client", "fd00:c::%x" % r.randrange(1, 65536)),
                 ("lb-flow-cport", r.randrange(65536))]
        if r.random() < 0.5:
            attrs.append(("lb-flow-vport", r.choice((0, 80, 443, 65535))))
        # The connection's VIP: a service's own, one inside the /48 and
        # /16 prefixes, one outside them all; a prefix service needs it.
        if r.random() < 0.7:
            attrs.append(("lb-flow-vip", r.choice(
                ["fd00:f0::%x" % (i + 1) for i in range(len(SERVICES))] +
                ["fd00:f0:%x::7" % (i + 1) for i in range(len(SERVICES))] +
                ["fd01::1"])))
        a, m = self.req("lb-flow-get", attrs)
        s = self.model.svcs.get(name)
        if not s:
            if a.ok:
                self.fail("lookup in the unknown service %s taken" % name, m)
            return
        given = dict(attrs)
        port = s.get("lb-port", 0)
        vport = given.get("lb-flow-vport", port)
        net = ipaddress.ip_network("%s/%d" % (s["lb-vip"],
                                              s.get("lb-vip-len", 128)))
        vip = given.get("lb-flow-vip")
        vip_ok = ipaddress.ip_address(vip) in net if vip else \
            net.prefixlen == 128
        if a.ok != (vip_ok and vport != 0 and (port == 0 or vport == port)):
            self.fail("lookup of %s port %d in service %s (%s port %d): %s" %
                      (vip, vport, name, net, port, a.errno), m)
        if not a.ok:
            return
        got = a.replies[0].get("lb-flow-candidates", {}).get("lb-backend",
                                                               [])
        cands = [c.get("lb-backend-sid") for c in got]
        live = {sid for sid, w in s["backends"] if w != 0}
        want = min(s.get("lb-choices", 2), len(live))
        # Health checks take backends out of the rows at any time (the
        # fuzzer's backends answer no probe): fewer, never others.
        if "lb-health-interval" in s and len(cands) <= want:
            want = len(cands)
        if len(cands) != want or \
                len(set(cands)) != len(cands) or not set(cands) <= live:
            self.fail("lookup in %s: candidates %s of backends %s" %
                      (name, cands, s["backends"]), m)

    def read_svc(self, name, attrs, m):
        g, _ = self.req("lb-service-get", [("lb-name", name)])
        if g.errno or not g.replies:
            self.fail("service %s changed but not found" % name, m)
        s = canon_svc(g.replies[0])
        for key, v in attrs or []:
            if s.get(key) != v:
                self.fail("lb-service-new %s: %s is %r, asked %r" %
                          (name, key, s.get(key), v), m)
        self.model.svcs[name] = s
        return s

    def op_read(self):
        r = self.rng
        cmd = r.choice(("stats-get", "table-get", "rule-get", "rule-lookup",
                        "counters-reset"))
        table = ("table-name", r.choice(TABLES))
        if cmd == "table-get":
            self.req(cmd, [table] if r.random() < 0.5 else [],
                     dump=r.random() < 0.5)
        elif cmd == "rule-get":
            if r.random() < 0.5:
                self.req(cmd, [table], dump=True)
            else:
                self.req(cmd, [table, ("rule-id", r.randint(1, 30))])
        elif cmd == "rule-lookup":
            v6 = r.random() < 0.5
            bits = 128 if v6 else 32
            mk = ipaddress.IPv6Address if v6 else ipaddress.IPv4Address
            self.req(cmd, [table,
                           ("key-src", mk(r.getrandbits(bits)).packed),
                           ("key-dst", mk(r.getrandbits(bits)).packed),
                           ("key-proto", r.choice((6, 17))),
                           ("key-sport", r.getrandbits(16)),
                           ("key-dport", r.getrandbits(16))])
        elif cmd == "counters-reset":
            self.checked(cmd, [table] + ([("rule-id", r.randint(1, 30))]
                                         if r.random() < 0.5 else []))
        else:
            self.req(cmd, [])

    def checked(self, cmd, attrs, echo=False):
        """A valid request; a refused one must change nothing."""
        g0 = self.generation()
        a, m = self.req(cmd, attrs, echo=echo)
        if not a.ok:
            g1 = self.generation()
            if g1 != g0:
                self.fail("%s refused (%s: %s) but the generation moved "
                          "%d -> %d" % (cmd, a.errno, a.msg, g0, g1), m)
        return a, m

    def mutated(self):
        """One mutated request; refused, it changes nothing."""
        r = self.rng
        cmd = r.choice(sorted(self.spec.ops))
        valid = {
            "table-new": self.gen.table_new,
            "rule-new": lambda: self.gen.rule(r.choice(TABLES),
                                              r.randint(1, 30)),
            "rule-set": lambda: self.gen.rule(r.choice(TABLES),
                                              r.randint(1, 30)),
            "sid-new": self.gen.sid, "sid-set": self.gen.sid,
            "lb-service-new": self.gen.service,
            "lb-backend-new": self.gen.backend,
            "lb-backend-set": self.gen.backend,
        }.get(cmd, lambda: [])()
        attrs = [pack_value(self.spec, n, v) for n, v in valid]
        payload = self.mut.attrs(cmd, attrs)
        seq = self.nl.next_seq()
        m, answer = self.mut.message(self.family, cmd, payload, seq)
        msgs = [(seq, m)]
        if r.random() < 0.05:
            # two requests in one send: a valid stats-get after the bad one
            s2 = self.nl.next_seq()
            m += nlmsg(self.family, self.spec.cmds["stats-get"], b"",
                       tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK, s2)
            msgs = [(seq, m)]
        self.remember("mutated " + cmd, m)
        g0 = self.generation()
        probe = self.nl.next_seq()
        pm = nlmsg(self.family, self.spec.cmds["stats-get"], b"",
                   tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK, probe)
        try:
            ans = self.nl.exchange(msgs + [(probe, pm)], [probe])
        except Failure as e:
            self.fail("after a mutated %s: %s" % (cmd, e), m)
        a = ans[seq]
        mlen, mtype, mflags = struct.unpack_from("IHH", m) \
            if len(m) >= 8 else (0, 0, 0)
        if a.errno == 0 and self.mut.intact and self.mut.violations and \
           self.spec.ops[cmd]["do"] is not None:
            self.fail("mutated %s accepted what the spec forbids: %s" %
                      (cmd, "; ".join(self.mut.violations)), m)
        if answer and a.errno is None and not a.replies and \
           mflags & tmnl.NLM_F_ACK and mflags & tmnl.NLM_F_REQUEST and \
           mtype == self.family and 16 <= mlen <= len(m):
            self.fail("mutated %s: no answer" % cmd, m)
        for rep_ in a.replies:
            if "txn-id" in rep_ and cmd == "txn-begin" and \
               (not self.txn or rep_["txn-id"] != self.txn[0]):
                # a transaction opened by a mutated txn-begin
                self.checked("txn-abort", [("txn-id", rep_["txn-id"])])
        self.count("mutated %s" % ("ok" if a.ok else "err%s" % a.errno))
        g1 = ans[probe].replies[0]["net-generation"] \
            if ans[probe].replies else self.generation()
        if g1 != g0:
            # Several rule nests: each applied or refused on its own.
            if a.errno and a.errno < 0 and not self.nests(cmd, m):
                self.fail("mutated %s refused (%s: %s) but the generation "
                          "moved %d -> %d" % (cmd, a.errno, a.msg, g0, g1),
                          m)
            self.resync("accepted mutation")
            if self.txn:
                self.txn[2].update(self.model.tables)

    def nests(self, cmd, m):
        """Whether request m of cmd holds two "rule" nests or more."""
        if cmd not in ("rule-new", "rule-set") or len(m) < 20:
            return False
        num, n, off = self.spec.attrs["rule"]["num"], 0, 20
        while off + 4 <= len(m):
            alen, anum = struct.unpack_from("HH", m, off)
            if alen < 4:
                break
            n += (anum & ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)) == num
            off += (alen + 3) & ~3
        return n > 1

    def resync(self, why):
        self.count("resync (%s)" % why)
        try:
            self.model.load(read_state(self.nl))
        except Failure as e:
            self.fail(str(e))

    def check_state(self):
        self.count("state checks")
        try:
            got = read_state(self.nl)
        except Failure as e:
            self.fail(str(e))
        d = diff(self.model.state(), got)
        if d:
            self.fail("the namespace differs from the model: %s" % d)

    def run(self, deadline):
        ops = ((6, self.op_table_new), (2, self.op_table_del),
               (14, lambda: self.op_rule("rule-new")),
               (5, lambda: self.op_rule("rule-set")),
               (4, lambda: self.op_rules("rule-new")),
               (2, lambda: self.op_rules("rule-set")),
               (6, self.op_rule_del), (6, self.op_txn), (8, self.op_sid),
               (10, self.op_lb), (6, self.op_read), (30, self.mutated))
        weights = [w for w, _ in ops]
        self.resync("start")
        while True:
            if self.args.steps is not None:
                if self.step >= self.args.steps:
                    break
            elif time.monotonic() >= deadline:
                break
            self.step += 1
            fn = self.rng.choices(ops, weights)[0][1]
            fn()
            if self.step % self.args.check_every == 0 and self.txn is None:
                self.check_state()
        if self.txn:
            self.checked("txn-abort", [("txn-id", self.txn[0])])
            self.txn = None
        self.check_state()


# --- children -------------------------------------------------------------

def child(name, fn, *args):
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        code = fn(*args) or 0
    except Failure as e:
        print("FAIL: %s: %s" % (name, e), flush=True)
    except BaseException as e:      # noqa: BLE001 - report and fail
        print("FAIL: %s: %r" % (name, e), flush=True)
    finally:
        os._exit(code)


def dumper(spec, family, seed, deadline, timeout):
    rng = random.Random(seed)
    n = 0
    while time.monotonic() < deadline:
        nl = Nl(spec, family, timeout)
        for _ in range(50):
            cmd = rng.choice(("table-get", "rule-get", "sid-get",
                              "lb-service-get", "lb-flow-get"))
            attrs = [("table-name", rng.choice(TABLES))] \
                if cmd == "rule-get" else []
            if rng.random() < 0.15:
                # start a dump, read one part, abandon it
                seq = nl.next_seq()
                nl.sock.send(nlmsg(family, spec.cmds[cmd],
                                   build(pack_value(spec, k, v)
                                         for k, v in attrs),
                                   tmnl.NLM_F_REQUEST | tmnl.NLM_F_DUMP,
                                   seq))
                select.select([nl.sock], [], [], 1)
                break
            a, _ = nl.request(cmd, attrs, dump=True)
            n += 1
            if cmd == "rule-get" and not a.intr and not a.errno:
                ids = [r["rule-id"] for r in a.replies]
                if ids != sorted(ids) or len(ids) != len(set(ids)):
                    raise Failure("rule dump out of order: %s" % ids)
        nl.close()
    print("# dumper: %d dumps" % n, flush=True)
    return 0


def teardown_one(spec, family, seed, timeout):
    """In a new namespace: objects of every kind, then die with them."""
    rng = random.Random(seed)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET):
        raise Failure("unshare(CLONE_NEWNET): errno %d" % ctypes.get_errno())
    nl = Nl(spec, family, timeout)
    model = Model()
    gen = Gen(rng, model)
    mut = Mutator(rng, spec)
    for t in TABLES:
        fam, hook = (2, 0) if t == "lb" else \
            (rng.randint(1, 2 if "inet-tables" in KNOWN_BUGS else 3), 1)
        nl.request("table-new", [("table-name", t), ("table-family", fam),
                                 ("table-hook", hook)])
        model.tables[t] = {"table-family": fam}
    for _ in range(rng.randint(1, 4)):
        attrs = gen.service()
        if nl.request("lb-service-new", attrs)[0].ok:
            model.svcs[attrs[0][1]] = dict(attrs)
        nl.request("lb-backend-new", gen.backend())
    nl.request("sid-new", gen.sid())
    for i in range(rng.randint(1, 40)):
        nl.request("rule-new", gen.rule(rng.choice(TABLES), i + 1))
    a, _ = nl.request("txn-begin", [])
    if a.replies:
        txn = a.replies[0]["txn-id"]
        for i in range(rng.randint(0, 20)):
            nl.request("rule-new", gen.rule(rng.choice(TABLES), 100 + i,
                                            txn))
    for _ in range(rng.randint(0, 20)):
        cmd = rng.choice(sorted(spec.ops))
        seq = nl.next_seq()
        m, _ = mut.message(family, cmd, mut.attrs(cmd, []), seq)
        try:
            nl.sock.send(m)
        except OSError:
            pass
    # a dump left half-read on a socket that dies with the namespace
    other = Nl(spec, family, timeout)
    other.sock.send(nlmsg(family, spec.cmds["rule-get"],
                          build([pack_value(spec, "table-name", "t0")]),
                          tmnl.NLM_F_REQUEST | tmnl.NLM_F_DUMP, 1))
    return 0


def teardown(spec, family, seed, deadline, timeout):
    n = 0
    while time.monotonic() < deadline:
        pid = child("teardown %d" % n, teardown_one, spec, family,
                    seed * 1000 + n, timeout)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise Failure("namespace %d (seed %d) failed" %
                          (n, seed * 1000 + n))
        n += 1
    print("# teardown: %d namespaces built and destroyed" % n, flush=True)
    return 0


def drop_privileges(mode):
    if mode == "root":
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
    else:
        # struct __user_cap_header_struct { u32 version; int pid; } and
        # two __user_cap_data_struct of zeroes: no capability left.
        libc = ctypes.CDLL(None, use_errno=True)
        hdr = struct.pack("Ii", 0x20080522, 0)
        if libc.capset(ctypes.c_char_p(hdr), ctypes.c_char_p(b"\0" * 24)):
            raise Failure("capset: errno %d" % ctypes.get_errno())


def attacker(spec, family, seed, deadline, timeout, mode, how):
    if how == "child-userns":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWUSER):
            raise Failure("unshare(CLONE_NEWUSER): %d" % ctypes.get_errno())
    else:
        drop_privileges(mode)
    rng = random.Random(seed)
    model = Model()
    gen = Gen(rng, model)
    mut = Mutator(rng, spec)
    admin = [c for c, o in spec.ops.items() if o["admin"]]
    nl = Nl(spec, family, timeout)
    n = 0
    while time.monotonic() < deadline:
        cmd = rng.choice(admin)
        valid = {"table-new": gen.table_new, "sid-new": gen.sid,
                 "sid-set": gen.sid, "lb-service-new": gen.service,
                 "lb-backend-new": gen.backend,
                 "rule-new": lambda: gen.rule("t0", rng.randint(1, 30)),
                 "rule-del": lambda: [("table-name", rng.choice(TABLES))],
                 "table-del": lambda: [("table-name", rng.choice(TABLES))],
                 "txn-commit": lambda: [("txn-id", rng.randint(0, 5))],
                 }.get(cmd, lambda: [])()
        attrs = [pack_value(spec, k, v) for k, v in valid]
        seq = nl.next_seq()
        if rng.random() < 0.5:
            # A dump where the command has no do (6.12 answers EOPNOTSUPP
            # before the privilege check otherwise), and now and then.
            dump = spec.ops[cmd]["dump"] is not None and (
                spec.ops[cmd]["do"] is None or rng.random() < 0.3)
            m = nlmsg(family, spec.cmds[cmd], build(attrs),
                      tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK |
                      (tmnl.NLM_F_DUMP if dump else 0), seq)
            well_formed = True
        else:
            m, _ = mut.message(family, cmd, mut.attrs(cmd, attrs), seq)
            well_formed = False
        probe = nl.next_seq()
        pm = nlmsg(family, spec.cmds["table-get"], b"",
                   tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK | tmnl.NLM_F_DUMP,
                   probe)
        ans = nl.exchange([(seq, m), (probe, pm)], [probe])
        a = ans[seq]
        n += 1
        mlen, mtype, mflags = struct.unpack_from("IHH", m)
        sent = next((c for c, v in spec.cmds.items()
                     if len(m) > 16 and v == m[16]), None)
        if a.errno == 0 and mtype == family and \
           mflags & tmnl.NLM_F_REQUEST and mlen >= 20 and \
           sent and spec.ops[sent]["admin"]:
            raise Failure("%s (%s) succeeded without CAP_NET_ADMIN: %s" %
                          (sent, how, m.hex()))
        if well_formed and a.errno != -EPERM:
            raise Failure("%s (%s) got %s, want EPERM: %s" %
                          (cmd, how, a.errno, m.hex()))
    print("# attacker (%s): %d changes refused" % (how, n), flush=True)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int,
                   default=int.from_bytes(os.urandom(4), "little"))
    p.add_argument("--time", type=float, default=30,
                   help="seconds of fuzzing (default 30)")
    p.add_argument("--steps", type=int, default=None,
                   help="stop after this many steps (overrides --time)")
    p.add_argument("--mode", choices=("root", "userns"), default="root")
    p.add_argument("--check-every", type=int, default=200)
    p.add_argument("--reply-timeout", type=float, default=30)
    p.add_argument("--no-children", action="store_true")
    p.add_argument("--known-bugs", action="store_true",
                   help="send what KNOWN_BUGS leaves out")
    args = p.parse_args()
    if args.known_bugs:
        KNOWN_BUGS.clear()
    print("# nl_fuzz: seed %d, mode %s, %s" % (
        args.seed, args.mode, "%d steps" % args.steps
        if args.steps is not None else "%gs" % args.time), flush=True)
    spec = Spec()
    family = family_id()
    if family is None:
        print("FAIL: family tuplemerge not found")
        return 1
    t0 = time.monotonic()
    deadline = t0 + args.time
    kids = {}
    if not args.no_children:
        for name, fn, extra in (
                ("dumper", dumper, ()), ("teardown", teardown, ()),
                ("attacker", attacker, (args.mode, "no-cap")),
                ("attacker-userns", attacker, (args.mode, "child-userns"))):
            seed = args.seed + 1 + len(kids)
            kids[child(name, fn, spec, family, seed, deadline,
                       args.reply_timeout, *extra)] = name
    fz = Fuzzer(args, spec, family)
    rc = 0
    try:
        fz.run(deadline)
    except Failure as e:
        print(e, flush=True)
        rc = 1
    if rc:
        for pid in kids:
            os.kill(pid, signal.SIGTERM)
    for pid, name in kids.items():
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code and not rc:
            print("FAIL: %s exited with %d (seed %d)" % (name, code,
                                                         args.seed))
            rc = 1
    el = time.monotonic() - t0
    print("# nl_fuzz: %d steps in %.1fs, seed %d, mode %s" % (
        fz.step, el, args.seed, args.mode))
    for k in sorted(fz.stats):
        print("#   %-40s %d" % (k, fz.stats[k]))
    print("# nl_fuzz: %s" % ("FAIL" if rc else "ok"), flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
