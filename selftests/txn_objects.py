#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""SIDs and load-balancer services in transactions, through tmnl (a raw
client built from the YAML spec): what a transaction creates is its own
until the commit (invisible, its name and addresses reserved), what it
deletes stays everyone's, one transaction at a time holds an object, a
change outside spoils the transaction, a closed socket takes its pending
objects with it, and TM_CMD_FLUSH deletes everything at once or nothing.
Run by txn_objects.sh inside a fresh network namespace holding:

    SID fc00:9::1 (always, load 7)
    service web: VIP fd00:100::1 port 80, LB SID fd00:1b::1, backend
    fc00:1::100; table lbt (ip6, prerouting) with rule 1 "lb web"
"""
import ipaddress
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tmnl  # noqa: E402
import tmtest  # noqa: E402
from tmtest import (check, generation, log_test, ok, refused,  # noqa: E402
                    req)

ALWAYS, NEVER, CONNS = 1, 2, 3
ACT_LB = 5


def begin(nl=None):
    out = ok("txn-begin", "txn-begin", nl=nl)
    return "txn-id=%d" % out[0]["txn-id"] if out else "txn-id=0"


def sid(addr):
    rc, out, _ = req("sid-get", "sid-addr=" + addr)
    return out[0] if rc == 0 and out else None


def service(name):
    rc, out, _ = req("lb-service-get", "lb-name=" + name)
    return out[0] if rc == 0 and out else None


def has_backend(svc, addr):
    """@svc (a reply) lists backend @addr in its lb-backends nest."""
    want = str(ipaddress.ip_address(addr))
    return svc is not None and any(
        name == "lb-backend-sid" and value == want
        for _, backend in svc.get("lb-backends", [])
        for name, value in backend)


def tables():
    return sorted(t["table-name"] for t in req("table-get", dump=True)[1])


def web_args(*extra):
    return ("lb-name=web", "lb-vip=fd00:100::1", "lb-sid=fd00:1b::1",
            "lb-proto=6", "lb-port=80") + extra


def setup():
    ok("sid", "sid-new", "sid-addr=fc00:9::1", "sid-policy=%d" % ALWAYS)
    ok("sid load", "sid-load", "sid-addr=fc00:9::1", "sid-load=7")
    ok("service", "lb-service-new", *web_args())
    ok("backend", "lb-backend-new", "lb-name=web",
       "lb-backend-sid=fc00:1::100")
    ok("table", "table-new", "table-name=lbt", "table-family=2",
       "table-hook=0")
    ok("lb rule", "rule-new", "table-name=lbt", "rule-id=1",
       "rule-dst=fd00:100::1", "rule-proto=6", "rule-dport-min=80",
       "rule-action=%d" % ACT_LB, "rule-lb-service=web")
    log_test("setup: a SID, a service, a table naming it")


def test_pending_sid():
    txn = begin()
    g = generation()
    ok("sid-new in a transaction", "sid-new", txn, "sid-addr=fc00:a::1",
       "sid-policy=%d" % NEVER)
    check(sid("fc00:a::1") is None, "a pending SID is visible")
    refused(16, "Another open transaction is binding this SID",
            "binding a pending SID outside", "sid-new",
            "sid-addr=fc00:a::1", "sid-policy=%d" % ALWAYS)
    other = tmnl.Genl()
    otxn = begin(nl=other)
    refused(16, "Another open transaction is binding this SID",
            "binding it in another transaction", "sid-new", otxn,
            "sid-addr=fc00:a::1", "sid-policy=%d" % ALWAYS, nl=other)
    ok("another transaction unbinds fc00:9::1", "sid-del", otxn,
       "sid-addr=fc00:9::1", nl=other)
    refused(16, "Another open transaction is changing this SID",
            "two transactions on one SID", "sid-del", txn,
            "sid-addr=fc00:9::1")
    other.sock.close()
    refused(17, "SID already bound", "binding it twice in the transaction",
            "sid-new", txn, "sid-addr=fc00:a::1", "sid-policy=%d" % ALWAYS)
    ok("sid-set of the pending SID", "sid-set", txn, "sid-addr=fc00:a::1",
       "sid-policy=%d" % CONNS, "sid-threshold=3")
    # Unbound and bound again alike: the same binding, its state kept.
    ok("sid-del of fc00:9::1", "sid-del", txn, "sid-addr=fc00:9::1")
    s = sid("fc00:9::1")
    check(s is not None, "a SID an open transaction unbinds went at once")
    refused(2, "No such SID bound", "sid-set of what the transaction unbound",
            "sid-set", txn, "sid-addr=fc00:9::1",
            "sid-policy=%d" % ALWAYS)
    ok("sid-new of fc00:9::1 again", "sid-new", txn, "sid-addr=fc00:9::1",
       "sid-policy=%d" % CONNS, "sid-threshold=5")
    check(generation() == g, "requests of an open transaction moved the "
          "generation %d -> %d" % (g, generation()))
    ok("commit", "txn-commit", txn)
    s = sid("fc00:a::1")
    check(s is not None and s["sid-policy"] == CONNS and
          s["sid-threshold"] == 3, "the committed SID: %s" % s)
    s = sid("fc00:9::1")
    check(s is not None and s["sid-policy"] == CONNS and
          s["sid-threshold"] == 5 and s["sid-load"] == 7,
          "the SID bound again kept its load, has its new policy: %s" % s)
    check(generation() > g, "the commit did not move the generation")
    log_test("a transaction's SIDs: its own, reserved; bound again, kept")


def test_pending_service():
    txn = begin()
    ok("service in a transaction", "lb-service-new", txn, "lb-name=api",
       "lb-vip=fd00:100::2", "lb-sid=fd00:1b::2", "lb-port=443")
    ok("its backend", "lb-backend-new", txn, "lb-name=api",
       "lb-backend-sid=fc00:2::100", "lb-backend-weight=3")
    ok("a table", "table-new", txn, "table-name=api", "table-family=2",
       "table-hook=0")
    ok("a rule naming the pending service", "rule-new", txn,
       "table-name=api", "rule-id=1", "rule-dst=fd00:100::2",
       "rule-proto=6", "rule-dport-min=443", "rule-action=%d" % ACT_LB,
       "rule-lb-service=api")
    ok("a rule of a live table naming it", "rule-new", txn,
       "table-name=lbt", "rule-id=2", "rule-dst=fd00:100::2",
       "rule-proto=6", "rule-action=%d" % ACT_LB, "rule-lb-service=api")
    check(service("api") is None, "a pending service is visible")
    refused(2, "No load-balancer service with this name",
            "a rule naming it outside", "rule-new", "table-name=lbt",
            "rule-id=3", "rule-dst=fd00:100::2", "rule-proto=6",
            "rule-action=%d" % ACT_LB, "rule-lb-service=api")
    for desc, name, vip, lbsid, port in (
            ("its name", "api", "fd00:100::9", "fd00:1b::9", "1"),
            ("its SID", "x", "fd00:100::9", "fd00:1b::2", "1"),
            ("its VIP and port", "x", "fd00:100::2", "fd00:1b::9", "443"),
            ("its VIP, any port", "x", "fd00:100::2", "fd00:1b::9", "0")):
        refused(16, "Another open transaction is creating a service",
                "a service outside with " + desc, "lb-service-new",
                "lb-name=" + name, "lb-vip=" + vip, "lb-sid=" + lbsid,
                "lb-port=" + port)
    refused(17, "Another service serves this VIP and port",
            "a second service with its VIP in the transaction",
            "lb-service-new", txn, "lb-name=y", "lb-vip=fd00:100::2",
            "lb-sid=fd00:1b::3", "lb-port=443")
    ok("commit", "txn-commit", txn)
    s = service("api")
    check(s is not None and s["lb-port"] == 443,
          "the committed service: %s" % s)
    check(has_backend(s, "fc00:2::100"),
          "the committed service's backends: %s" % s)
    check("api" in tables(), "the committed table: %s" % tables())
    rules = req("rule-get", "table-name=lbt", dump=True)[1]
    check(sorted(r["rule-id"] for r in rules) == [1, 2],
          "lbt's rules after the commit: %s" % rules)
    log_test("a transaction's services: rules name them, reserved")


def test_service_in_use():
    txn = begin()
    refused(16, "in use by a rule", "deleting a service a rule names",
            "lb-service-del", txn, "lb-name=web")
    ok("the table naming it", "table-del", txn, "table-name=lbt")
    refused(16, "in use by a rule",
            "deleting a service the transaction's rules still name",
            "lb-service-del", txn, "lb-name=api")
    ok("the last table naming it", "table-del", txn, "table-name=api")
    ok("now the service", "lb-service-del", txn, "lb-name=web")
    check(service("web") is not None,
          "a service an open transaction deletes went at once")
    refused(16, "An open transaction is deleting this service",
            "a rule outside naming it", "rule-new", "table-name=lbt",
            "rule-id=9", "rule-dst=fd00:100::1", "rule-proto=6",
            "rule-action=%d" % ACT_LB, "rule-lb-service=web")
    other = tmnl.Genl()
    otxn = begin(nl=other)
    refused(16, "Another open transaction is changing this service",
            "another transaction's backend change", "lb-backend-new",
            otxn, "lb-name=web", "lb-backend-sid=fc00:3::100", nl=other)
    other.sock.close()
    g = generation()
    ok("abort", "txn-abort", txn)
    check(service("web") is not None and "lbt" in tables(),
          "after the abort: web %s, tables %s" % (service("web"), tables()))
    check(generation() == g, "the abort moved the generation")
    log_test("a service is in use in the transaction's view of the rules")


def test_spoil():
    txn = begin()
    ok("sid-set in a transaction", "sid-set", txn, "sid-addr=fc00:9::1",
       "sid-policy=%d" % NEVER)
    ok("sid-set outside", "sid-set", "sid-addr=fc00:9::1",
       "sid-policy=%d" % ALWAYS)
    refused(16, "was changed outside it", "a commit after a SID changed "
            "outside", "txn-commit", txn)
    s = sid("fc00:9::1")
    check(s and s["sid-policy"] == ALWAYS, "the SID after the spoilt "
          "transaction: %s" % s)
    txn = begin()
    ok("backend in a transaction", "lb-backend-new", txn, "lb-name=web",
       "lb-backend-sid=fc00:3::100")
    ok("backend outside", "lb-backend-new", "lb-name=web",
       "lb-backend-sid=fc00:4::100")
    refused(16, "was changed outside it", "the next request",
            "lb-backend-new", txn, "lb-name=web",
            "lb-backend-sid=fc00:5::100")
    ok("abort", "txn-abort", txn)
    s = service("web")
    check(has_backend(s, "fc00:4::100") and not has_backend(s, "fc00:3::100"),
          "web's backends after the spoilt transaction: %s" % s)
    ok("cleanup", "lb-backend-del", "lb-name=web",
       "lb-backend-sid=fc00:4::100")
    log_test("a change outside spoils the transaction holding the object")


def test_socket_close():
    nl2 = tmnl.Genl()
    txn = begin(nl=nl2)
    ok("pending SID", "sid-new", txn, "sid-addr=fc00:b::1",
       "sid-policy=%d" % ALWAYS, nl=nl2)
    ok("pending service", "lb-service-new", txn, "lb-name=tmp",
       "lb-vip=fd00:100::7", "lb-sid=fd00:1b::7", nl=nl2)
    ok("its backend", "lb-backend-new", txn, "lb-name=tmp",
       "lb-backend-sid=fc00:1::100", nl=nl2)
    ok("unbinding fc00:9::1", "sid-del", txn, "sid-addr=fc00:9::1",
       nl=nl2)
    nl2.sock.close()
    ok("the pending SID's address is free", "sid-new", "sid-addr=fc00:b::1",
       "sid-policy=%d" % ALWAYS)
    ok("the pending service's name is free", "lb-service-new",
       "lb-name=tmp", "lb-vip=fd00:100::7", "lb-sid=fd00:1b::7")
    check(sid("fc00:9::1") is not None, "the SID the closed transaction "
          "deleted is gone")
    ok("cleanup", "sid-del", "sid-addr=fc00:b::1")
    ok("cleanup", "lb-service-del", "lb-name=tmp")
    log_test("a closed socket takes its transaction's objects with it")


def counts():
    sids = len(req("sid-get", dump=True)[1])
    svcs = len(req("lb-service-get", dump=True)[1])
    return len(tables()), svcs, sids


def test_flush():
    before = counts()
    check(before[0] and before[1] and before[2], "nothing to flush: %s" %
          (before,))
    other = tmnl.Genl()
    otxn = begin(nl=other)
    ok("a rule in another transaction", "rule-new", otxn, "table-name=lbt",
       "rule-id=7", "rule-proto=17", nl=other)
    g = generation()
    refused(16, "Another open transaction is changing a table",
            "flush ruleset while a transaction holds a table", "flush")
    check(counts() == before and generation() == g,
          "the refused flush changed something: %s" % (counts(),))
    ok("abort", "txn-abort", otxn, nl=other)
    other.sock.close()
    txn = begin()
    ok("flush in a transaction", "flush", txn)
    check(counts() == before, "flush in an open transaction changed the "
          "namespace at once: %s" % (counts(),))
    ok("a table after it", "table-new", txn, "table-name=after")
    ok("commit", "txn-commit", txn)
    check(counts() == (1, 0, 0), "after the flush and one table: %s" %
          (counts(),))
    ok("flush alone", "flush")
    check(counts() == (0, 0, 0), "after flush alone: %s" % (counts(),))
    log_test("flush ruleset: everything at once, or nothing")


setup()
test_pending_sid()
test_pending_service()
test_service_in_use()
test_spoil()
test_socket_close()
test_flush()
sys.exit(tmtest.exit_status)
