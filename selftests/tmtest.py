# SPDX-License-Identifier: GPL-2.0
"""What the Python selftests that talk to the kernel through tmnl share
(priv.py, rule_errors.py, txn_objects.py): kselftest-style checks, as
lib.sh's check_err and log_test, and requests whose answers are checked.

Importing it loads the spec (SPEC), opens a socket (NL) and looks up the
family (FAM, None without the module).  A test makes its checks with
check(), reports them with log_test() and exits with exit_status, 1 once
a test failed.
"""
import sys

import tmnl

SPEC = tmnl.load_spec()
NL = tmnl.Genl()
FAM = NL.family_id("tuplemerge")
failures = []
exit_status = 0


def check(ok, msg):
    """One check of the current test: the first that fails gives msg."""
    if not ok and not failures:
        failures.append(msg)


def log_test(desc):
    """Report the checks made since the last log_test."""
    global exit_status
    if failures:
        exit_status = 1
        print("TEST: %-60s [FAIL]\n\t%s" % (desc, failures[0]))
    else:
        print("TEST: %-60s [ OK ]" % desc)
    failures.clear()
    sys.stdout.flush()


def req(cmd, *args, dump=False, nl=None):
    """One request, on nl (default NL): (rc, replies, error) as
    tmnl.request returns them."""
    flags = tmnl.NLM_F_ACK | (tmnl.NLM_F_DUMP if dump else 0)
    return tmnl.request(nl or NL, FAM, SPEC, cmd, list(args), flags)


def ok(desc, cmd, *args, nl=None):
    """A request that must succeed; its replies."""
    rc, out, error = req(cmd, *args, nl=nl)
    check(rc == 0, "%s: %s" % (desc, error))
    return out


def refused(errno, text, desc, cmd, *args, nl=None):
    """A request the kernel must refuse with errno, its extack saying
    text."""
    rc, _, error = req(cmd, *args, nl=nl)
    if rc != 2:
        check(False, "%s: accepted, want errno -%d" % (desc, errno))
    elif not error.startswith("-%d: " % errno):
        check(False, "%s: got '%s', want errno -%d" % (desc, error, errno))
    elif text not in error:
        check(False, "%s: got '%s', want '%s'" % (desc, error, text))


def generation():
    """The namespace's generation (stats-get)."""
    return req("stats-get")[1][0]["net-generation"]
