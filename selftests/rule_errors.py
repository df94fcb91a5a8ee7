#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every kind of bad rule request gets its own error and extack message from
the kernel, and changes nothing: the namespace generation and the rules stay
as they were.  Requests go through tmnl (a raw client built from the YAML
spec), so that the kernel's checks are tested, not tmctl's.  Run by
rule_errors.sh inside a fresh network namespace holding:

    table "t"     inet, input, tuplemerge, with rule 1
    table "p4"    ip, postrouting
    table "small" ip, input, tss, max-rules 2, max-tuples 1

One Python process for the whole test: under the emulated VM, starting
Python costs seconds.
"""
import ctypes
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tmnl  # noqa: E402
import tmtest  # noqa: E402
from tmtest import (FAM, NL, SPEC, check, generation,  # noqa: E402
                    log_test, ok, refused, req)


def rules_of(table):
    rules = req("rule-get", "table-name=" + table, dump=True)[1]
    for r in rules:
        r.pop("net-generation", None)
    return rules


def setup():
    for args in (("table-name=t", "table-family=3", "table-hook=1"),
                 ("table-name=p4", "table-family=1", "table-hook=4"),
                 ("table-name=small", "table-family=1", "table-engine=1",
                  "table-max-rules=2", "table-max-tuples=1")):
        rc, _, error = req("table-new", *args)
        if rc:
            raise SystemExit("setup: table-new %s: %s" % (args, error))
    setup_rule()


def setup_rule():
    rc, _, error = req("rule-new", "table-name=t", "rule-id=1",
                       "rule-src=10.0.0.0", "rule-src-len=8", "rule-proto=6",
                       "rule-dport-min=22", "rule-action=1",
                       "rule-comment=keep", "rule-cookie=42")
    if rc:
        raise SystemExit("setup: rule-new: " + error)


def test_tables():
    refused(2, "No table with this name", "unknown table",
            "rule-new", "table-name=nope")
    refused(22, "[missing table-name]", "no table name",
            "rule-new", "rule-id=5")
    refused(22, "Table name is empty", "empty table name",
            "rule-new", "table-name=")
    refused(22, "", "attribute the command does not take",
            "rule-new", "table-name=t", "table-hook=1")
    log_test("table: unknown, missing, empty; foreign attribute")


def test_prefixes():
    refused(22, "Prefix length out of range 0..32 for IPv4", "IPv4 /33",
            "rule-new", "table-name=t", "rule-src=10.0.0.0",
            "rule-src-len=33")
    refused(34, "integer out of range", "IPv6 /129",
            "rule-new", "table-name=t", "rule-dst=fd00::",
            "rule-dst-len=129")
    refused(22, "Address has bits set past its prefix length", "host bits",
            "rule-new", "table-name=t", "rule-src=10.0.0.1",
            "rule-src-len=8")
    refused(22, "Address must be 4 bytes (IPv4) or 16 (IPv6)",
            "3-byte address", "rule-new", "table-name=t",
            "rule-src=0x0a0000")
    refused(22, "Prefix length without an address", "length alone",
            "rule-new", "table-name=t", "rule-src-len=8")
    refused(22, "Source and destination addresses of different families",
            "mixed families", "rule-new", "table-name=t",
            "rule-src=10.0.0.1", "rule-dst=fd00::1")
    refused(22, "Rule family does not match its addresses",
            "family vs address", "rule-new", "table-name=t",
            "rule-family=1", "rule-src=fd00::1")
    refused(22, "Rule family does not fit the table's family",
            "IPv6 rule in an ip table", "rule-new", "table-name=p4",
            "rule-src=fd00::1")
    log_test("prefixes: length, host bits, size, families")


def test_fields():
    refused(22, "Port range with its low end above its high end",
            "dport 10-5", "rule-new", "table-name=t", "rule-dport-min=10",
            "rule-dport-max=5")
    refused(22, "Port range with its low end above its high end",
            "sport 9-1", "rule-new", "table-name=t", "rule-sport-min=9",
            "rule-sport-max=1")
    refused(17, "Rule id already in use in this table", "duplicate id",
            "rule-new", "table-name=t", "rule-id=1")
    refused(34, "integer out of range", "id 0",
            "rule-new", "table-name=t", "rule-id=0")
    refused(34, "integer out of range", "id past TM_RULE_ID_MAX",
            "rule-new", "table-name=t", "rule-id=0x80000000")
    refused(34, "integer out of range", "unknown action",
            "rule-new", "table-name=t", "rule-action=9")
    refused(34, "integer out of range", "iif 0",
            "rule-new", "table-name=t", "rule-iif=0")
    refused(22, "Packets have no output interface at the table's hook",
            "oif at input", "rule-new", "table-name=t", "rule-oif=1")
    refused(22, "Packets have no input interface at the table's hook",
            "iif at postrouting", "rule-new", "table-name=p4", "rule-iif=1")
    refused(22, "Attribute failed policy validation", "comment too long",
            "rule-new", "table-name=t",
            "rule-comment=" + "x" * 200)
    log_test("fields: port ranges, ids, actions, interfaces, comment")


def elems(*values):
    """A set attribute's value: one rule-set-elem per list of pairs."""
    return json.dumps([["rule-set-elem", v] for v in values])


def prefixes(kind, *cidrs):
    return elems(*[[["rule-" + kind, c.split("/")[0]],
                    ["rule-" + kind + "-len", c.split("/")[1]]]
                   for c in cidrs])


def ports(kind, *ranges):
    return elems(*[[["rule-%s-min" % kind, str(lo)],
                    ["rule-%s-max" % kind, str(hi)]] for lo, hi in ranges])


def protos(*nums):
    return elems(*[[["rule-proto", str(n)]] for n in nums])


def test_sets():
    refused(22, "A field given both as a set and as a value",
            "src and a src set", "rule-new", "table-name=t",
            "rule-src=10.0.0.0", "rule-src-len=8",
            "rule-src-set=" + prefixes("src", "11.0.0.0/8"))
    refused(22, "A field given both as a set and as a value",
            "dport-max and a dport set", "rule-new", "table-name=t",
            "rule-dport-max=5", "rule-dport-set=" + ports("dport", (1, 2)))
    refused(22, "An empty set", "empty set", "rule-new", "table-name=t",
            "rule-dport-set=[]")
    refused(7, "More than 512 values in a rule's sets", "513 values",
            "rule-new", "table-name=t",
            "rule-sport-set=" + ports("sport", *[(p, p) for p in
                                                 range(300)]),
            "rule-dport-set=" + ports("dport", *[(p, p) for p in
                                                 range(213)]))
    refused(22, "Sets expand to more than 4096 entries", "65 x 64 entries",
            "rule-new", "table-name=t",
            "rule-sport-set=" + ports("sport", *[(p, p) for p in
                                                 range(65)]),
            "rule-dport-set=" + ports("dport", *[(p, p) for p in
                                                 range(64)]))
    refused(22, "Address has bits set past its prefix length",
            "host bits in a set's value", "rule-new", "table-name=t",
            "rule-src-set=" + prefixes("src", "10.0.0.0/8", "11.0.0.1/8"))
    refused(22, "Addresses of different families in a rule's sets",
            "IPv4 and IPv6 in a set", "rule-new", "table-name=t",
            "rule-src-set=" + prefixes("src", "10.0.0.0/8", "fd00::/8"))
    refused(22, "Addresses of different families in a rule and its sets",
            "IPv6 set, IPv4 destination", "rule-new", "table-name=t",
            "rule-dst=10.0.0.0", "rule-dst-len=8",
            "rule-src-set=" + prefixes("src", "fd00::/8"))
    refused(22, "Attribute of another field in a set's value",
            "a port in a source set", "rule-new", "table-name=t",
            "rule-src-set=" + elems([["rule-src", "10.0.0.0"],
                                     ["rule-dport-min", "1"]]))
    refused(22, "A value of an address set needs its address",
            "a length alone", "rule-new", "table-name=t",
            "rule-dst-set=" + elems([["rule-dst-len", "8"]]))
    refused(22, "", "a set holding a foreign attribute", "rule-new",
            "table-name=t",
            "rule-proto-set=" + json.dumps([["rule-proto", "6"]]))
    refused(22, "A TCP flags match needs protocol tcp",
            "tcp-flags with udp in the protocol set", "rule-new",
            "table-name=t", "rule-proto-set=" + protos(6, 17),
            "rule-tcp-flags-mask=2")
    refused(22, "ICMP has no ports", "icmp in the protocol set, dport set",
            "rule-new", "table-name=t", "rule-proto-set=" + protos(6, 1),
            "rule-dport-set=" + ports("dport", (22, 22)))
    refused(22, "A TCP reset needs a rule for protocol tcp",
            "tcp-reset with udp in the protocol set", "rule-new",
            "table-name=t", "rule-proto-set=" + protos(6, 17),
            "rule-action=2", "rule-reject=1")
    refused(28, "Table is full", "4 entries past max-rules 2", "rule-new",
            "table-name=small",
            "rule-dport-set=" + ports("dport", (1, 1), (2, 2)),
            "rule-proto-set=" + protos(6, 17))
    log_test("sets: both forms, empty, bounds, values, families, checks")


def values(nest):
    """The values of a set as a reply decodes it: per element, its
    attributes' values in order."""
    return [[v for _, v in elem] for _, elem in nest or []]


def test_set_rule():
    src = prefixes("src", "10.1.0.0/16", "192.168.0.0/16")
    dport = ports("dport", (22, 22), (80, 81), (443, 445))
    ok("a set rule", "rule-new", "table-name=t", "rule-id=7",
             "rule-src-set=" + src, "rule-dport-set=" + dport,
             "rule-proto-set=" + protos(6, 17), "rule-comment=set")
    rules = [r for r in rules_of("t") if r.get("rule-id") == 7]
    got = rules[0] if rules else {}
    check(values(got.get("rule-src-set")) ==
          [["10.1.0.0", 16], ["192.168.0.0", 16]] and
          values(got.get("rule-dport-set")) ==
          [[22, 22], [80, 81], [443, 445]] and
          values(got.get("rule-proto-set")) == [[6], [17]] and
          "rule-src" not in got and "rule-dport-min" not in got and
          "rule-proto" not in got and got.get("rule-family") == 1,
          "listed as %s" % got)
    table = req("table-get", "table-name=t")[1]
    check(table and table[0].get("table-rules") == 2 and
          table[0].get("table-entries") == 13,
          "table counts %s" % table)
    hit = req("rule-lookup", "table-name=t", "key-src=192.168.3.4",
              "key-dst=1.2.3.4", "key-dport=444", "key-proto=17")[1]
    miss = req("rule-lookup", "table-name=t", "key-src=192.168.3.4",
               "key-dst=1.2.3.4", "key-dport=82", "key-proto=17")[1]
    check(hit and hit[0].get("rule-id") == 7 and
          values(hit[0].get("rule-dport-set")) ==
          [[22, 22], [80, 81], [443, 445]],
          "lookup in the set: %s" % hit)
    check(miss and "rule-id" not in miss[0], "lookup between: %s" % miss)
    ok("replace by a plain rule", "rule-set", "table-name=t", "rule-id=7",
       "rule-dport-min=9")
    table = req("table-get", "table-name=t")[1]
    check(table and table[0].get("table-entries") == 2,
          "entries after replace %s" % table)
    ok("delete", "rule-del", "table-name=t", "rule-id=7")
    log_test("set rule: listed as given, counted, looked up, replaced")


def test_actions():
    refused(22, "Reject type given for an action other than reject",
            "reject type on drop", "rule-new", "table-name=t",
            "rule-action=1", "rule-reject=1")
    refused(22, "Reject is not available at the postrouting hook",
            "reject at postrouting", "rule-new", "table-name=p4",
            "rule-action=2")
    refused(22, "A TCP reset needs a rule for protocol tcp",
            "tcp-reset for any protocol", "rule-new", "table-name=t",
            "rule-action=2", "rule-reject=1")
    refused(22, "The mark action needs a mark value", "mark without value",
            "rule-new", "table-name=t", "rule-action=3")
    refused(22, "Mark value given for an action other than mark",
            "mark value on accept", "rule-new", "table-name=t",
            "rule-mark=7")
    refused(22, "The lb action needs a service", "lb without service",
            "rule-new", "table-name=t", "rule-action=5")
    refused(22, "The lb action needs a table at the prerouting hook",
            "lb at input", "rule-new", "table-name=t", "rule-action=5",
            "rule-lb-service=web")
    refused(22, "Service given for an action other than lb",
            "service on accept", "rule-new", "table-name=t",
            "rule-lb-service=web")
    refused(22, "Counters can only be reset on a replace",
            "reset-counters on add", "rule-new", "table-name=t",
            "rule-reset-counters=")
    refused(22, "Queue given for an action other than queue",
            "queue number on accept", "rule-new", "table-name=t",
            "rule-queue-num=3")
    refused(22, "Queue given for an action other than queue",
            "queue bypass on drop", "rule-new", "table-name=t",
            "rule-action=1", "rule-queue-bypass=")
    refused(22, "Log options without log", "a log prefix alone",
            "rule-new", "table-name=t", "rule-log-prefix=x")
    refused(22, "A log level (syslog) and a log group (nflog) both",
            "log level and group", "rule-new", "table-name=t",
            "rule-log=", "rule-log-level=4", "rule-log-group=1")
    refused(34, "integer out of range", "log level 8", "rule-new",
            "table-name=t", "rule-log=", "rule-log-level=8")
    refused(34, "integer out of range", "log rate 0", "rule-new",
            "table-name=t", "rule-log=", "rule-log-rate=0")
    # The kernel's rate limit counts in an int: 2^31 would log nothing.
    for rate in ("1000001", "2147483648"):
        refused(34, "integer out of range", "log rate " + rate, "rule-new",
                "table-name=t", "rule-log=", "rule-log-rate=" + rate)
    refused(22, "Attribute failed policy validation", "log prefix of 64",
            "rule-new", "table-name=t", "rule-log=",
            "rule-log-prefix=" + "p" * 64)
    log_test("actions: reject, mark, lb, queue, log, counter reset")


def test_updates():
    refused(22, "Replace needs the id of the rule", "replace without id",
            "rule-set", "table-name=t")
    for cmd in ("rule-set", "rule-del", "rule-get", "counters-reset"):
        refused(2, "No rule with this id in this table",
                cmd + " of an unknown id", cmd, "table-name=t", "rule-id=99")
    refused(2, "No such transaction", "unknown transaction",
            "rule-new", "table-name=t", "txn-id=12345")
    refused(2, "No such transaction", "commit of an unknown transaction",
            "txn-commit", "txn-id=12345")
    refused(22, "Source and destination addresses of different families",
            "lookup of mixed families", "rule-lookup", "table-name=t",
            "key-src=10.0.0.1", "key-dst=fd00::1")
    refused(22, "The table does not see packets of this family",
            "IPv6 lookup in an ip table", "rule-lookup", "table-name=p4",
            "key-src=fd00::1", "key-dst=fd00::2")
    log_test("updates: unknown ids and transactions, lookups")


def test_limits():
    ok("first rule of small", "rule-new", "table-name=small", "rule-id=1",
       "rule-src=10.0.0.0", "rule-src-len=8")
    refused(28, "Too many tuples", "a second tuple past max-tuples 1",
            "rule-new", "table-name=small", "rule-id=2",
            "rule-src=10.1.0.0", "rule-src-len=16")
    ok("second rule of small, same tuple", "rule-new", "table-name=small",
       "rule-id=2", "rule-src=11.0.0.0", "rule-src-len=8")
    refused(28, "Table is full", "a third rule past max-rules 2",
            "rule-new", "table-name=small", "rule-id=3",
            "rule-src=12.0.0.0", "rule-src-len=8")
    refused(34, "integer out of range", "collide 0",
            "table-new", "table-name=c0", "table-collide=0")
    refused(34, "integer out of range", "max-rules 0",
            "table-new", "table-name=m0", "table-max-rules=0")
    log_test("limits: max-tuples, max-rules, parameter ranges")


def test_txn_errors():
    rc, out, error = req("txn-begin")
    check(rc == 0, "txn-begin: " + error)
    txn = "txn-id=%d" % out[0]["txn-id"]
    ok("staged add", "rule-new", "table-name=t", txn, "rule-id=2")
    refused(17, "Rule id already in use in this table", "staged duplicate",
            "rule-new", "table-name=t", txn, "rule-id=2")
    refused(2, "No rule with this id in this table", "staged delete of 99",
            "rule-del", "table-name=t", txn, "rule-id=99")
    other = tmnl.Genl()
    rc, _, error = tmnl.request(other, FAM, SPEC, "rule-new",
                                ["table-name=t", txn, "rule-id=3"])
    check(rc == 2 and error.startswith("-1: Transaction belongs to another"),
          "another socket's transaction: %s" % error)
    rc, _, error = tmnl.request(other, FAM, SPEC, "txn-begin", [])
    check(rc == 0, "second transaction: " + error)
    rc, _, error = tmnl.request(other, FAM, SPEC, "rule-del",
                                ["table-name=t", "txn-id=%d" % (
                                    int(txn.split("=")[1]) + 1)])
    check(rc == 2 and "Another open transaction is changing this table"
          in error, "two transactions on one table: %s" % error)
    other.sock.close()
    # A change outside the transaction to a rule it did not touch goes
    # into its copy too; one to a rule it touched spoils it.
    ok("live change of an untouched rule", "rule-set", "table-name=t",
       "rule-id=1", "rule-src=10.0.0.0", "rule-src-len=8", "rule-proto=6",
       "rule-dport-min=22", "rule-action=1", "rule-comment=keep",
       "rule-cookie=42")
    ok("live add of another rule", "rule-new", "table-name=t", "rule-id=8",
       "rule-proto=17")
    ok("staged delete of it", "rule-del", "table-name=t", txn, "rule-id=8")
    ok("live add of the staged id", "rule-new", "table-name=t", "rule-id=2",
       "rule-proto=17")
    refused(16, "was changed outside it", "stale commit",
            "txn-commit", txn)
    refused(2, "No such transaction", "the stale transaction is gone",
            "txn-abort", txn)
    ids = sorted(r["rule-id"] for r in rules_of("t"))
    check(ids == [1, 2, 8], "after the spoilt transaction: ids %s" % ids)
    ok("cleanup", "rule-del", "table-name=t", "rule-id=2")
    ok("cleanup", "rule-del", "table-name=t", "rule-id=8")
    log_test("transactions: staged errors, ownership, conflicts")


def in_child(fn):
    """Run fn() in a forked child; its return value is the exit code."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(fn())
        except BaseException as e:  # noqa: BLE001 - report and fail
            print("child: %r" % e, file=sys.stderr)
            os._exit(99)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def verdict(cmd, args):
    """cmd ("NAME" or "NAME dump") with args on a new socket: 0 done, 1
    refused with EPERM, 2 another error."""
    rc, _, error = req(cmd.split()[0], *args, dump=cmd.endswith(" dump"),
                       nl=tmnl.Genl())
    return 0 if rc == 0 else 1 if error.startswith("-1: ") else 2


def as_nobody(cmd, *args):
    def run():
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        return verdict(cmd, args)
    return in_child(run)


def as_userns_root(cmd, *args):
    def run():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x10000000):  # CLONE_NEWUSER
            return 3
        return verdict(cmd, args)
    return in_child(run)


def test_txn_follow():
    rc, out, error = req("txn-begin")
    check(rc == 0, "txn-begin: " + error)
    txn = "txn-id=%d" % out[0]["txn-id"]
    ok("staged add", "rule-new", "table-name=t", txn, "rule-id=20",
       "rule-proto=17", "rule-dport-min=20")
    ok("live add", "rule-new", "table-name=t", "rule-id=21",
       "rule-proto=17", "rule-dport-min=21")
    ok("live add", "rule-new", "table-name=t", "rule-id=22",
       "rule-proto=17", "rule-dport-min=22")
    ok("live replace", "rule-set", "table-name=t", "rule-id=21",
       "rule-proto=17", "rule-dport-min=2100")
    ok("live delete", "rule-del", "table-name=t", "rule-id=22")
    ok("commit", "txn-commit", txn)
    rules = {r["rule-id"]: r for r in rules_of("t")}
    check(sorted(rules) == [1, 20, 21], "ids after commit: %s" % sorted(rules))
    check(rules.get(21, {}).get("rule-dport-min") == 2100,
          "the live replace was lost: %s" % rules.get(21))
    # A transaction that begins with a flush keeps nothing of the table,
    # whatever happens to it meanwhile.
    rc, out, error = req("txn-begin")
    txn = "txn-id=%d" % out[0]["txn-id"]
    ok("staged flush", "rule-del", "table-name=t", txn)
    ok("staged add", "rule-new", "table-name=t", txn, "rule-id=30")
    ok("live add", "rule-new", "table-name=t", "rule-id=31")
    ok("live delete", "rule-del", "table-name=t", "rule-id=20")
    ok("live replace", "rule-set", "table-name=t", "rule-id=21")
    ok("commit", "txn-commit", txn)
    ids = sorted(r["rule-id"] for r in rules_of("t"))
    check(ids == [30], "ids after a flushing commit: %s" % ids)
    ok("cleanup", "rule-del", "table-name=t", "rule-id=30")
    setup_rule()
    log_test("transactions keep the table's own changes made meanwhile")


def test_dump_consistency():
    """A change between two parts of a rule dump flags the rest of it
    NLM_F_DUMP_INTR; a dump with no change in between is not flagged."""
    rc, out, error = req("txn-begin")
    txn = "txn-id=%d" % out[0]["txn-id"]
    for i in range(100, 1100):
        ok("staged add", "rule-new", "table-name=t", txn, "rule-id=%d" % i,
           "rule-proto=17", "rule-dport-min=%d" % i)
    ok("commit", "txn-commit", txn)
    for change in (False, True):
        byname, bynum, cmds = SPEC
        NL.send(FAM, cmds["rule-get"], tmnl.encode(byname, "table-name", "t"),
                tmnl.NLM_F_DUMP)
        ids, flagged, changed = [], False, False
        for mtype, mflags, body in NL.recv():
            if mflags & tmnl.NLM_F_DUMP_INTR:
                flagged = True
            if mtype in (tmnl.NLMSG_DONE, tmnl.NLMSG_ERROR):
                continue
            ids.append(tmnl.decode(bynum, body[4:])["rule-id"])
            if change and not changed:
                # Another socket changes the table after the first part.
                other = tmnl.Genl()
                tmnl.request(other, FAM, SPEC, "rule-del",
                             ["table-name=t", "rule-id=1099"])
                other.sock.close()
                changed = True
        check(ids == sorted(ids), "dump not in id order")
        check(flagged == change, "dump flagged %s after %s" % (
            flagged, "a change" if change else "no change"))
        check(len(ids) in (1001, 1000) and ids[0] == 1,
              "dump of %d rules" % len(ids))
    ok("cleanup", "rule-del", "table-name=t")
    setup_rule()
    log_test("rule dumps resume by id and flag concurrent changes")


def test_privileges(gen0, before):
    for cmd, args in (("rule-new", ("table-name=t", "rule-id=7")),
                      ("rule-del", ("table-name=t", "rule-id=1")),
                      ("rule-set", ("table-name=t", "rule-id=1")),
                      ("counters-reset", ("table-name=t",)),
                      ("txn-begin", ())):
        check(as_nobody(cmd, *args) == 1, "unprivileged %s not EPERM" % cmd)
        check(as_userns_root(cmd, *args) == 1,
              "root of a child user namespace: %s not EPERM" % cmd)
    check(generation() == gen0, "the generation moved")
    check(rules_of("t") == before, "the rules changed")
    log_test("unprivileged and child-userns callers cannot change rules")
    # Reads and dumps too: rules, comments and lookups are the admin's.
    for cmd, args in (("stats-get", ()),
                      ("table-get", ("table-name=t",)),
                      ("table-get dump", ()),
                      ("rule-get", ("table-name=t", "rule-id=1")),
                      ("rule-get dump", ("table-name=t",)),
                      ("rule-lookup", ("table-name=t",)),
                      ("sid-get dump", ()),
                      ("lb-service-get dump", ()),
                      ("lb-flow-get dump", ("lb-name=s",))):
        check(as_nobody(cmd, *args) == 1, "unprivileged %s not EPERM" % cmd)
        check(as_userns_root(cmd, *args) == 1,
              "root of a child user namespace: %s not EPERM" % cmd)
    log_test("unprivileged and child-userns callers cannot read rules")


def main():
    setup()
    gen0, before = generation(), rules_of("t")
    for fn in (test_tables, test_prefixes, test_fields, test_sets,
               test_actions, test_updates):
        fn()
    check(generation() == gen0, "the generation moved")
    check(rules_of("t") == before, "the rules changed")
    log_test("refused requests changed nothing")
    test_limits()
    test_set_rule()
    test_txn_errors()
    test_txn_follow()
    test_dump_consistency()
    gen0, before = generation(), rules_of("t")
    test_privileges(gen0, before)
    return tmtest.exit_status


if __name__ == "__main__":
    sys.exit(main())
