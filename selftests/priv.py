#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The checks of priv.sh, one mode per situation (see priv.sh):

    priv.py no-cap       no CAP_NET_ADMIN over the namespace: every command,
                         do and dump, gets EPERM; joining "events" too
    priv.py userns       root of its own user+net namespace: tables and
                         rules work, the first SID is refused with the
                         extack, nothing is bound
    priv.py sid-ok       the same, once the key is on: a SID binds
    priv.py weights      backend weights 0..65535 taken (0 drains), 65536
                         and 4294967295 refused with ERANGE, by
                         lb-backend-new and lb-backend-set
    priv.py maglev SECS  weights 65535 and 1 on the largest table with the
                         most choices: built within SECS seconds
    priv.py memcg RULES MAX
                         a table of RULES rules, then rule dumps left open
                         (each pins RULES ids) until the kernel refuses one
                         or the task is killed (progress every 100 dumps)
                         and fails past MAX bytes pinned

Requests go through tmnl, so that the kernel's answers are checked, not
tmctl's.  Prints kselftest-style TEST lines; exits 1 on a failure.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tmnl  # noqa: E402
import tmtest  # noqa: E402
from tmtest import (FAM, NL, SPEC, check, log_test, ok,  # noqa: E402
                    refused, req)

BYNAME, BYNUM, CMDS = SPEC
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1


def events_group():
    """The id of the family's "events" multicast group."""
    nl = tmnl.Genl()
    nl.send(tmnl.GENL_ID_CTRL, tmnl.CTRL_CMD_GETFAMILY,
            tmnl.attr(tmnl.CTRL_ATTR_FAMILY_NAME, b"tuplemerge\0"), 0)

    def attrs(data):
        off = 0
        while off + 4 <= len(data):
            alen, anum = struct.unpack_from("HH", data, off)
            yield anum & 0x3fff, data[off + 4:off + alen]
            off += (alen + 3) & ~3

    for mtype, _, body in nl.recv():
        if mtype == tmnl.NLMSG_ERROR:
            break
        for anum, payload in attrs(body[4:]):
            if anum != CTRL_ATTR_MCAST_GROUPS:
                continue
            for _, grp in attrs(payload):
                g = dict(attrs(grp))
                if g.get(CTRL_ATTR_MCAST_GRP_NAME) == b"events\0":
                    return struct.unpack("I", g[CTRL_ATTR_MCAST_GRP_ID])[0]
    return None


def no_cap():
    ops = []
    for op in tmnl.yaml.safe_load(open(tmnl.SPEC))["operations"]["list"]:
        if "do" in op:
            ops.append((op["name"], False))
        if "dump" in op:
            ops.append((op["name"], True))
    for cmd, dump in ops:
        # No attributes: the privilege is checked before the policy.
        rc, _, error = req(cmd, dump=dump)
        check(rc == 2 and error.startswith("-1: "),
              "%s %s: got '%s', want EPERM" %
              (cmd, "dump" if dump else "do", error or "success"))
    log_test("every command and dump refused with EPERM (%d)" % len(ops))

    grp = events_group()
    check(grp is not None, "no events group in the family")
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                      tmnl.NETLINK_GENERIC)
    s.bind((0, 0))
    try:
        s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, grp or 0)
        check(False, "joined the events group")
    except OSError as e:
        check(e.errno == 1, "joining events: errno %d, want EPERM" % e.errno)
    if grp and grp <= 32:
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                          tmnl.NETLINK_GENERIC)
        try:
            s.bind((0, 1 << (grp - 1)))
            check(False, "bound to the events group")
        except OSError as e:
            check(e.errno == 1, "bind to events: errno %d, want EPERM" %
                  e.errno)
    log_test("joining the events group refused with EPERM")


SID = "fc00:99::1"


def userns():
    ok("table-new", "table-new", "table-name=mine", "table-family=1")
    ok("rule-new", "rule-new", "table-name=mine", "rule-id=1",
       "rule-proto=6", "rule-dport-min=22", "rule-dport-max=22")
    rules = req("rule-get", "table-name=mine", dump=True)[1]
    check(len(rules) == 1, "rules of its own table: %s" % rules)
    log_test("root of its own namespace adds tables and rules")

    refused(1, "needs CAP_NET_ADMIN in the initial user namespace",
            "first SID", "sid-new", "sid-addr=" + SID, "sid-policy=1")
    rc, sids, error = req("sid-get", dump=True)
    check(rc == 0 and not sids, "SIDs after the refusal: %s %s" %
          (sids, error))
    log_test("its first SID is refused with an extack, nothing bound")


def sid_ok():
    ok("sid-new once the key is on", "sid-new", "sid-addr=" + SID,
       "sid-policy=1")
    rc, sids, error = req("sid-get", dump=True)
    check(rc == 0 and len(sids) == 1, "SIDs: %s %s" % (sids, error))
    ok("sid-del", "sid-del", "sid-addr=" + SID)
    log_test("once the key is on, it binds SIDs in its namespace")


def service(name, *extra):
    ok("service " + name, "lb-service-new", "lb-name=" + name,
       "lb-vip=fd00:%x::80" % len(name), "lb-sid=fd00:%x::1b" % len(name),
       "lb-proto=6", *extra)


def weights():
    service("w")
    for i, w in enumerate((0, 1, 2, 32767, 32768, 65534, 65535)):
        ok("weight %d" % w, "lb-backend-new", "lb-name=w",
           "lb-backend-sid=fc00:7::%x" % (i + 1), "lb-backend-weight=%d" % w)
    for w in (65535, 0, 1):
        ok("set weight %d" % w, "lb-backend-set", "lb-name=w",
           "lb-backend-sid=fc00:7::1", "lb-backend-weight=%d" % w)
    for w in (65536, 65537, 1 << 31, 4294967295):
        refused(34, "out of range", "weight %d" % w, "lb-backend-new",
                "lb-name=w", "lb-backend-sid=fc00:7::99",
                "lb-backend-weight=%d" % w)
        refused(34, "out of range", "set weight %d" % w, "lb-backend-set",
                "lb-name=w", "lb-backend-sid=fc00:7::1",
                "lb-backend-weight=%d" % w)
    refused(22, "[missing lb-backend-weight]", "set without a weight",
            "lb-backend-set", "lb-name=w", "lb-backend-sid=fc00:7::1")
    refused(2, "no such backend", "set of an unknown backend",
            "lb-backend-set", "lb-name=w", "lb-backend-sid=fc00:7::99",
            "lb-backend-weight=1")
    ok("cleanup", "lb-service-del", "lb-name=w")
    log_test("weights 0..65535 taken (new and set), above 65535 get ERANGE")


def maglev(limit):
    service("maglev", "lb-table-size=1048573", "lb-choices=8")
    ok("heavy", "lb-backend-new", "lb-name=maglev",
       "lb-backend-sid=fc00:8::1", "lb-backend-weight=65535")
    t0 = time.monotonic()
    ok("light", "lb-backend-new", "lb-name=maglev",
       "lb-backend-sid=fc00:8::2", "lb-backend-weight=1")
    el = time.monotonic() - t0
    print("INFO: table of 1048573 rows x 8, weights 65535 and 1: %.1fs" % el)
    check(el < limit, "the build took %.1fs, limit %ds" % (el, limit))
    t0 = time.monotonic()
    ok("delete", "lb-backend-del", "lb-name=maglev",
       "lb-backend-sid=fc00:8::1")
    el = time.monotonic() - t0
    check(el < limit, "the rebuild took %.1fs, limit %ds" % (el, limit))
    ok("cleanup", "lb-service-del", "lb-name=maglev")
    log_test("Maglev build with weights 65535 and 1 in bounded time")


def rule_msg(seq, i):
    payload = b"".join(tmnl.encode(BYNAME, n, v) for n, v in (
        ("table-name", "m"), ("rule-id", str(i)), ("rule-proto", "6"),
        ("rule-dport-min", str(i % 65536)),
        ("rule-dport-max", str(i % 65536))))
    msg = struct.pack("BBH", CMDS["rule-new"], 1, 0) + payload
    return struct.pack("IHHII", 16 + len(msg), FAM,
                       tmnl.NLM_F_REQUEST | tmnl.NLM_F_ACK, seq, 0) + msg


def add_rules(n):
    """n rules into table m, 64 requests in flight."""
    sent = acked = 0
    while acked < n:
        batch = b""
        while sent < n and sent - acked < 64:
            sent += 1
            batch += rule_msg(sent, sent)
        if batch:
            NL.sock.send(batch)
        data = NL.sock.recv(1 << 20)
        off = 0
        while off < len(data):
            mlen, mtype = struct.unpack_from("IH", data, off)
            if mtype == tmnl.NLMSG_ERROR:
                err = struct.unpack_from("i", data, off + 16)[0]
                if err:
                    return acked, err
                acked += 1
            off += (mlen + 3) & ~3
    return acked, 0


def memcg(nrules, limit):
    ok("table-new", "table-new", "table-name=m", "table-family=1",
       "table-max-rules=%d" % (nrules + 1))
    n, err = add_rules(nrules)
    print("INFO: %d rules (%s)" % (n, "errno %d" % err if err else "all"),
          flush=True)
    check(n == nrules, "only %d of %d rules: errno %d" % (n, nrules, err))
    log_test("a table of %d rules in the memory cgroup" % nrules)
    socks, pinned = [], 0
    name = tmnl.encode(BYNAME, "table-name", "m")
    while pinned <= limit:
        try:
            s = tmnl.Genl()
            s.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.send(FAM, CMDS["rule-get"], name,
                   tmnl.NLM_F_DUMP | tmnl.NLM_F_ACK)
            # The first part came back: the dump holds its ids till it ends.
            data = s.sock.recv(65536)
        except OSError as e:
            print("INFO: dump %d: %s, %d bytes pinned" % (len(socks), e,
                                                           pinned),
                  flush=True)
            check(e.errno == 12, "errno %d, want ENOMEM" % e.errno)
            break
        mlen, mtype = struct.unpack_from("IH", data)
        if mtype == tmnl.NLMSG_ERROR:
            err = struct.unpack_from("i", data, 16)[0]
            print("INFO: dump %d refused: errno %d, %d bytes pinned" %
                  (len(socks), err, pinned), flush=True)
            check(err == -12, "dump refused with errno %d, want ENOMEM" % err)
            break
        socks.append(s)
        pinned += 4 * nrules
        if not len(socks) % 100:
            print("INFO: %d dumps open, %d bytes of ids" % (len(socks),
                                                            pinned),
                  flush=True)
    check(pinned <= limit, "%d dumps pinned %d bytes of ids, beyond %d" %
          (len(socks), pinned, limit))
    log_test("open dumps refused once the memory cgroup is full")


def main():
    mode = sys.argv[1]
    if FAM is None:
        print("TEST: %-60s [FAIL]\n\tno family" % "tuplemerge family")
        return 1
    if mode == "no-cap":
        no_cap()
    elif mode == "userns":
        userns()
    elif mode == "sid-ok":
        sid_ok()
    elif mode == "weights":
        weights()
    elif mode == "maglev":
        maglev(int(sys.argv[2]))
    elif mode == "memcg":
        memcg(int(sys.argv[2]), int(sys.argv[3]))
    return tmtest.exit_status


if __name__ == "__main__":
    sys.exit(main())
