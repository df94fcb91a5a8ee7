#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The actions and side effects that hand packets to userspace, on real
packets: queue (NFQUEUE, with and without a reader, bypass), log (to the
kernel log through nf_log_syslog, to an nflog group through
nfnetlink_log, within its rate) and trace (TM_CMD_TRACE events on the
trace group, which an unprivileged socket cannot join).  Rules go in
through tmnl; the readers are written here from the netlink protocols.
Run by actions.sh inside namespace ns2, with ns1 (NS1) sending UDP to
10.0.1.2 over a veth pair; table "t" (inet, input, policy accept) exists.
"""
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tmnl  # noqa: E402
import tmtest  # noqa: E402
from tmtest import check, log_test, ok, req  # noqa: E402

NETLINK_NETFILTER = 12
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
NFNL_SUBSYS_QUEUE = 3
NFNL_SUBSYS_ULOG = 4
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_PAYLOAD = 10
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFULNL_MSG_PACKET = 0
NFULNL_MSG_CONFIG = 1
NFULA_CFG_CMD = 1
NFULA_CFG_MODE = 2
NFULA_PAYLOAD = 9
NFULA_PREFIX = 10
NF_ACCEPT = 1
NS1 = os.environ["NS1"]


def nla(atype, payload):
    return tmnl.attr(atype, payload)


def nla_parse(data):
    out, off = {}, 0
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("HH", data, off)
        out[atype & 0x3fff] = data[off + 4:off + alen]
        off += (alen + 3) & ~3
    return out


class Nfnl:
    """A NETLINK_NETFILTER socket for one nfnetlink subsystem."""

    def __init__(self, subsys):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_NETFILTER)
        self.sock.bind((0, 0))
        self.sock.settimeout(3)
        self.subsys = subsys
        self.seq = 0

    def send(self, msg, res_id, attrs, ack=True):
        self.seq += 1
        body = struct.pack("BBH", socket.AF_UNSPEC, 0,
                           socket.htons(res_id)) + attrs
        hdr = struct.pack("IHHII", 16 + len(body), self.subsys << 8 | msg,
                          NLM_F_REQUEST | (NLM_F_ACK if ack else 0),
                          self.seq, 0)
        self.sock.send(hdr + body)
        if not ack:
            return 0
        data = self.sock.recv(65536)
        mtype = struct.unpack_from("IH", data)[1]
        return struct.unpack_from("i", data, 16)[0] if mtype == NLMSG_ERROR \
            else 0

    def packets(self, want, seconds=3):
        """Up to @want messages of the subsystem: (type, attrs) each."""
        out, end = [], time.time() + seconds
        while len(out) < want and time.time() < end:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                break
            off = 0
            while off + 16 <= len(data):
                mlen, mtype = struct.unpack_from("IH", data, off)
                if mtype >> 8 == self.subsys:
                    out.append((mtype & 0xff,
                                nla_parse(data[off + 20:off + mlen])))
                off += (mlen + 3) & ~3
        return out


def udp_port(payload):
    """The destination port of an IPv4 UDP packet."""
    ihl = (payload[0] & 0xf) * 4
    return struct.unpack_from("!H", payload, ihl + 2)[0]


def send_udp(port, count=1):
    """Datagrams from ns1 to 10.0.1.2:port."""
    code = ("import socket\ns = socket.socket(socket.AF_INET, "
            "socket.SOCK_DGRAM)\nfor i in range(%d):\n"
            "    s.sendto(b'x', ('10.0.1.2', %d))\n" % (count, port))
    subprocess.run(["ip", "netns", "exec", NS1, "python3", "-c", code],
                   check=True)


def listener(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.0.1.2", port))
    s.settimeout(0.5)
    return s


def received(s):
    n = 0
    while True:
        try:
            s.recv(100)
            n += 1
        except socket.timeout:
            return n


def rule(*args):
    ok(" ".join(args), "rule-new", "table-name=t", *args)


def test_queue():
    rule("rule-id=1", "rule-proto=17", "rule-dport-min=7001",
         "rule-action=6", "rule-queue-num=5")
    rule("rule-id=2", "rule-proto=17", "rule-dport-min=7002",
         "rule-action=6", "rule-queue-num=6", "rule-queue-bypass=")
    rule("rule-id=3", "rule-proto=17", "rule-dport-min=7003",
         "rule-action=6", "rule-queue-num=7")
    q = Nfnl(NFNL_SUBSYS_QUEUE)
    err = q.send(NFQNL_MSG_CONFIG, 5,
                 nla(NFQA_CFG_CMD, struct.pack("!BxH", 1, 0)) +
                 nla(NFQA_CFG_PARAMS, struct.pack("!IBxxx", 0xffff, 2)))
    check(err == 0, "NFQUEUE bind of queue 5: %d" % err)
    l1, l2, l3 = listener(7001), listener(7002), listener(7003)
    send_udp(7001)
    pkts = q.packets(1)
    check(len(pkts) == 1 and pkts[0][0] == NFQNL_MSG_PACKET and
          udp_port(pkts[0][1].get(NFQA_PAYLOAD, b"\0" * 28)) == 7001,
          "the reader of queue 5 got the datagram: %s" % pkts)
    if pkts:
        pid = struct.unpack("!I", pkts[0][1][NFQA_PACKET_HDR][:4])[0]
        q.send(NFQNL_MSG_VERDICT, 5,
               nla(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, pid)),
               ack=False)
    check(received(l1) == 1, "accepted by the reader, delivered")
    send_udp(7002)
    check(received(l2) == 1, "queue 6 has no reader, bypass: delivered")
    send_udp(7003)
    check(received(l3) == 0, "queue 7 has no reader: dropped")
    log_test("queue: to the reader, its verdict; bypass; no reader drops")


def dmesg_count(text):
    out = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if text in line)


def test_log():
    rule("rule-id=4", "rule-proto=17", "rule-dport-min=7004", "rule-log=",
         "rule-log-prefix=tmtest-log4: ", "rule-log-level=4")
    send_udp(7004)
    time.sleep(0.3)
    check(dmesg_count("tmtest-log4: ") == 1 and
          dmesg_count("DPT=7004") >= 1,
          "one line in the kernel log, with the prefix")
    rule("rule-id=5", "rule-proto=17", "rule-dport-min=7005", "rule-log=",
         "rule-log-prefix=tmtest-rate5: ", "rule-log-rate=2")
    send_udp(7005, 30)
    time.sleep(0.3)
    n = dmesg_count("tmtest-rate5: ")
    check(1 <= n <= 4, "30 packets, rate 2: %d lines" % n)
    g = Nfnl(NFNL_SUBSYS_ULOG)
    err = g.send(NFULNL_MSG_CONFIG, 3,
                 nla(NFULA_CFG_CMD, struct.pack("B", 1)) +
                 nla(NFULA_CFG_MODE, struct.pack("!IBx", 0xffff, 2)))
    check(err == 0, "nflog bind of group 3: %d" % err)
    rule("rule-id=6", "rule-proto=17", "rule-dport-min=7006", "rule-log=",
         "rule-log-prefix=tmtest-g3", "rule-log-group=3")
    send_udp(7006)
    pkts = g.packets(1)
    check(len(pkts) == 1 and
          pkts[0][1].get(NFULA_PREFIX, b"").rstrip(b"\0") == b"tmtest-g3"
          and udp_port(pkts[0][1].get(NFULA_PAYLOAD, b"\0" * 28)) == 7006,
          "nflog group 3 got the packet with the prefix: %s" % pkts)
    check(dmesg_count("tmtest-g3") == 0, "and the kernel log did not")
    rc, out, _ = req("rule-get", "table-name=t", "rule-id=6")
    check(rc == 0 and out and out[0].get("rule-log-group") == 3 and
          out[0].get("rule-log-prefix") == "tmtest-g3" and
          out[0].get("rule-log-rate") == 10,
          "rule 6 reports its log: %s" % out)
    log_test("log: kernel log with prefix and rate, nflog group")


def trace_socket():
    """A generic netlink socket joined to the family's trace group."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
    s.bind((0, 0))
    s.settimeout(3)
    nl = tmnl.Genl()
    nl.send(0x10, 3, tmnl.attr(2, b"tuplemerge\0"), 0)
    group = None
    # One reply, no ack: read it alone.
    for mtype, _, body in nl.recv():
        attrs = nla_parse(body[4:])
        for grp in nla_parse(attrs.get(7, b"")).values():
            g = nla_parse(grp)
            if g.get(1, b"").rstrip(b"\0") == b"trace":
                group = struct.unpack("I", g[2])[0]
        break
    return s, group


def test_trace():
    s, group = trace_socket()
    check(group is not None, "the family has a trace group")
    if group is None:
        log_test("trace")
        return
    pid = os.fork()
    if pid == 0:
        os.setgid(65534)
        os.setuid(65534)
        try:
            s.setsockopt(270, 1, group)
            os._exit(1)
        except PermissionError:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    check(os.WEXITSTATUS(status) == 0, "an unprivileged socket joined")
    s.setsockopt(270, 1, group)
    rule("rule-id=8", "rule-proto=17", "rule-dport-min=7008",
         "rule-trace=", "rule-action=1")
    send_udp(7008)
    events = []
    try:
        while not events:
            data = s.recv(65536)
            events.append(tmnl.decode(tmtest.SPEC[1], data[20:]))
    except socket.timeout:
        pass
    ev = events[0] if events else {}
    check(ev.get("table-name") == "t" and ev.get("rule-id") == 8 and
          ev.get("trace-verdict") == 0 and ev.get("trace-hook") == 1 and
          ev.get("key-dport") == 7008 and ev.get("key-proto") == 17 and
          ev.get("key-src") == "10.0.1.1", "the event: %s" % ev)
    log_test("trace: an event naming table, rule, verdict and headers")


def main():
    test_queue()
    test_log()
    test_trace()
    return tmtest.exit_status


if __name__ == "__main__":
    sys.exit(main())
