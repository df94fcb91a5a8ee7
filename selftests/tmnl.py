#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A raw client of the "tuplemerge" generic netlink family, driven by the
YAML spec (Documentation/netlink/specs/tuplemerge.yaml) and independent of
tmctl: the selftests use it to send what tmctl would never send (bad
lengths, out-of-range values, missing attributes) and to check the kernel's
own answers, extack messages included.

    tmnl.py [--dump] [--echo] CMD [NAME=VALUE]...

CMD and NAME are the spec's names (rule-new, rule-src-len, ...).  VALUE is
an integer for integer types, a string for strings, an IPv4/IPv6 address
or hex bytes (0x...) for binary attributes, empty for flags, and for a
nest a JSON list of [NAME, VALUE] pairs (VALUE again a list for a nest
inside), e.g. rule-dport-set='[["rule-set-elem", [["rule-dport-min",
"22"]]]]'; replies print nests the same way.  Prints
each reply as one JSON object per line.  On an error prints
"error: ERRNO: EXTACK-MESSAGE" (and the offending attribute's name when
the kernel names one) on stderr and exits 2.
"""
import ipaddress
import json
import os
import socket
import struct
import sys

import yaml

NETLINK_GENERIC = 16
NETLINK_EXT_ACK = 11
NETLINK_CAP_ACK = 10
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 1
NLM_F_MULTI = 2
NLM_F_ACK = 4
NLM_F_ECHO = 8
NLM_F_DUMP_INTR = 16
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_MISS_TYPE = 5
NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3fff

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "Documentation", "netlink", "specs", "tuplemerge.yaml")


def load_spec():
    with open(SPEC) as f:
        spec = yaml.load(f, Loader=getattr(yaml, "CSafeLoader",
                                           yaml.SafeLoader))
    attrs = {}
    for a in spec["attribute-sets"][0]["attributes"]:
        attrs[a["name"]] = a
    # Attributes number from 1 (pad) in order, unless a value is given.
    num, byname, bynum = 0, {}, {}
    for name, a in attrs.items():
        num = a.get("value", num + 1)
        byname[name] = (num, a["type"])
        bynum[num] = (name, a["type"])
    cmds, num = {}, 0
    for op in spec["operations"]["list"]:
        num = op.get("value", num + 1)
        cmds[op["name"]] = num
    return byname, bynum, cmds


def attr(num, payload):
    hdr = struct.pack("HH", 4 + len(payload), num)
    return hdr + payload + b"\0" * ((4 - len(payload) % 4) % 4)


def encode(byname, name, value):
    num, typ = byname[name]
    if typ == "nest":
        if isinstance(value, str):
            value = json.loads(value)
        return attr(num | NLA_F_NESTED,
                    b"".join(encode(byname, n, v) for n, v in value))
    if typ == "u8":
        return attr(num, struct.pack("B", int(value, 0)))
    if typ == "u16":
        return attr(num, struct.pack("H", int(value, 0)))
    if typ == "u32":
        return attr(num, struct.pack("I", int(value, 0)))
    if typ == "s32":
        return attr(num, struct.pack("i", int(value, 0)))
    if typ == "u64":
        return attr(num, struct.pack("Q", int(value, 0)))
    if typ == "string":
        return attr(num, value.encode() + b"\0")
    if typ == "flag":
        return attr(num, b"")
    if typ == "binary":
        if value.startswith("0x"):
            return attr(num, bytes.fromhex(value[2:]))
        return attr(num, ipaddress.ip_address(value).packed)
    raise SystemExit("tmnl: cannot encode type %s" % typ)


def decode(bynum, data):
    out, off = {}, 0
    while off + 4 <= len(data):
        alen, anum = struct.unpack_from("HH", data, off)
        anum &= NLA_TYPE_MASK
        payload = data[off + 4:off + alen]
        name, typ = bynum.get(anum, (str(anum), "binary"))
        if typ == "u8":
            val = payload[0]
        elif typ == "u16":
            val = struct.unpack("H", payload)[0]
        elif typ == "u32":
            val = struct.unpack("I", payload)[0]
        elif typ == "s32":
            val = struct.unpack("i", payload)[0]
        elif typ == "u64":
            val = struct.unpack("Q", payload)[0]
        elif typ == "string":
            val = payload.rstrip(b"\0").decode()
        elif typ == "flag":
            val = True
        elif typ == "nest":
            val = decode_nest(bynum, payload)
        elif len(payload) in (4, 16):
            val = str(ipaddress.ip_address(payload))
        else:
            val = payload.hex()
        if typ != "pad":
            out[name] = val
        off += (alen + 3) & ~3
    return out


def decode_nest(bynum, data):
    """A nest as a list of [name, value] pairs, repeats kept."""
    out, off = [], 0
    while off + 4 <= len(data):
        alen = struct.unpack_from("H", data, off)[0]
        out.extend([k, v] for k, v in decode(bynum, data[off:off + alen])
                   .items())
        off += (alen + 3) & ~3
    return out


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(270, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(270, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def send(self, family, cmd, payload, flags):
        self.seq += 1
        msg = struct.pack("BBH", cmd, 1, 0) + payload
        hdr = struct.pack("IHHII", 16 + len(msg), family,
                          NLM_F_REQUEST | flags, self.seq, 0)
        self.sock.send(hdr + msg)

    def recv(self):
        """Yield (type, flags, payload) until the ack, done or error."""
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off < len(data):
                mlen, mtype, mflags, _, _ = struct.unpack_from("IHHII",
                                                               data, off)
                body = data[off + 16:off + mlen]
                yield mtype, mflags, body
                if mtype in (NLMSG_ERROR, NLMSG_DONE):
                    return
                off += (mlen + 3) & ~3

    def family_id(self, name):
        self.send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                  attr(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"), 0)
        for mtype, _, body in self.recv():
            if mtype == NLMSG_ERROR:
                return None
            off = 4
            while off < len(body):
                alen, anum = struct.unpack_from("HH", body, off)
                if anum == CTRL_ATTR_FAMILY_ID:
                    return struct.unpack_from("H", body, off + 4)[0]
                off += (alen + 3) & ~3
        return None


def extack(body, bynum):
    """The error code, message and missing or offending attribute."""
    err = struct.unpack_from("i", body)[0]
    inner_len = struct.unpack_from("I", body, 4)[0]
    off = 4 + (16 if err else inner_len)
    msg, where = "", ""
    while off + 4 <= len(body):
        alen, anum = struct.unpack_from("HH", body, off)
        payload = body[off + 4:off + alen]
        if anum == NLMSGERR_ATTR_MSG:
            msg = payload.rstrip(b"\0").decode()
        elif anum == NLMSGERR_ATTR_MISS_TYPE:
            miss = struct.unpack("I", payload)[0]
            where = " [missing %s]" % bynum.get(miss, (miss,))[0]
        elif anum == NLMSGERR_ATTR_OFFS:
            where = " [offset %d]" % struct.unpack("I", payload)[0]
        off += (alen + 3) & ~3
    return err, msg, where


def request(nl, fam, spec, cmd, args, flags=NLM_F_ACK):
    """Send one request; return (rc, replies, error text).  rc is 0, or 2
    when the kernel refused it; replies are dicts; the error text is
    "ERRNO: MESSAGE [missing NAME|offset N]"."""
    byname, bynum, cmds = spec
    payload = b""
    for arg in args:
        name, _, value = arg.partition("=")
        if name not in byname:
            raise SystemExit("tmnl: unknown attribute " + name)
        payload += encode(byname, name, value)
    nl.send(fam, cmds[cmd], payload, flags)
    rc, replies, error = 0, [], ""
    for mtype, mflags, body in nl.recv():
        if mtype == NLMSG_ERROR:
            err, msg, where = extack(body, bynum)
            if err:
                error = "%d: %s%s" % (err, msg, where)
                rc = 2
        elif mtype == NLMSG_DONE:
            if mflags & NLM_F_DUMP_INTR:
                replies.append({"dump-interrupted": True})
        else:
            out = decode(bynum, body[4:])
            if mflags & NLM_F_DUMP_INTR:
                out["dump-interrupted"] = True
            replies.append(out)
    return rc, replies, error


def main(argv):
    flags = NLM_F_ACK
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--dump":
            flags |= NLM_F_DUMP
        elif opt == "--echo":
            flags |= NLM_F_ECHO
        else:
            raise SystemExit("tmnl: unknown option " + opt)
    if not argv:
        raise SystemExit(__doc__)
    spec = load_spec()
    cmd = argv.pop(0)
    if cmd not in spec[2]:
        raise SystemExit("tmnl: unknown command " + cmd)
    nl = Genl()
    fam = nl.family_id("tuplemerge")
    if fam is None:
        print("error: family tuplemerge not found", file=sys.stderr)
        return 3
    rc, replies, error = request(nl, fam, spec, cmd, argv, flags)
    for out in replies:
        print(json.dumps(out, sort_keys=True))
    if rc:
        print("error: " + error, file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
