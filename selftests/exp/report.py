#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables and plots of the SRLB experiment (selftests/exp/srlb_exp.sh).

Reads RESULTS (CSV lines "dist,mode,rho,seq,service_ms,response_ms,server"
as loadgen.py prints them under the experiment's tag) and writes, in OUTDIR:

  table.rst         per distribution, load and mode: requests, failed,
                    mean, median, p90, p99 of the response time (ms), and
                    the mean and p99 over those of mode "random" at the
                    same load; then, when there are dynN modes, each
                    against the best static srC of the same choices
                    (suffix kK) at the same load: the srC of the lowest
                    mean and that of the lowest p99, and dynN's ratios to
                    them, the first with the half-width of its 95 %
                    interval (batch means over the requests in order);
  load-DIST.png     mean and p99 response time against the load, per mode;
  cdf-DIST.png      distribution of the response times at the highest load.

The table also goes to stdout.  Plots need gnuplot; without it, only the
table is written.

usage: report.py RESULTS OUTDIR
"""
import collections
import os
import re
import shutil
import subprocess
import sys


def pct(xs, p):
    """The p-th percentile of sorted xs, nearest rank."""
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, int(round(p / 100 * len(xs) + 0.5)) - 1))
    return xs[k]


def load(path):
    runs = collections.OrderedDict()
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) != 7:
                continue
            dist, mode, rho, seq, _, resp, _ = parts
            run = runs.setdefault((dist, mode, float(rho)), [[], 0, {}])
            if resp:
                run[0].append(float(resp))
                run[2][int(seq)] = float(resp)
            else:
                run[1] += 1
    for run in runs.values():
        run[0].sort()
    return runs


def stats(times):
    n = len(times)
    mean = sum(times) / n if n else float("nan")
    return mean, pct(times, 50), pct(times, 90), pct(times, 99)


HEAD = ("load", "mode", "requests", "failed", "mean_ms", "median_ms",
        "p90_ms", "p99_ms", "mean/rnd", "p99/rnd")


def rst(rows):
    """An reStructuredText simple table of rows (the first is the head)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rule = "  ".join("=" * w for w in widths)

    def line(r):
        return "  ".join(c.rjust(w) if i > 1 else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    return [rule, line(rows[0]), rule] + [line(r) for r in rows[1:]] + [rule]


def table(runs):
    out = []
    for dist in sorted({d for d, _, _ in runs}):
        rows = [HEAD]
        for rho in sorted({r for d, _, r in runs if d == dist}):
            base = runs.get((dist, "random", rho))
            bmean = bp99 = None
            if base and base[0]:
                bmean, _, _, bp99 = stats(base[0])
            for (d, mode, r), (times, failed, _) in runs.items():
                if d != dist or r != rho:
                    continue
                mean, med, p90, p99 = stats(times)
                rows.append(("%.2f" % rho, mode, str(len(times) + failed),
                             str(failed), "%.0f" % mean, "%.0f" % med,
                             "%.0f" % p90, "%.0f" % p99,
                             "%.2f" % (mean / bmean) if bmean else "-",
                             "%.2f" % (p99 / bp99) if bp99 else "-"))
        out += ["", "Service times: %s" % dist, ""] + rst(rows)
    return "\n".join(out).lstrip("\n") + "\n"


def split_mode(mode):
    """("sr", "2", "k3") of "sr2k3"; None for a mode not of this form."""
    m = re.fullmatch(r"(random|sr|backlog|dyn)(\d*)(k\d+)?", mode)
    return m.groups(default="") if m else None


DYN_HEAD = ("load", "mode", "mean_ms", "best mean", "mean/best", "p99_ms",
            "best p99", "p99/best")
BATCHES = 10
T_975 = 2.262    # Student's t, 9 degrees of freedom


def batch_ratio(a, b):
    """The half-width of a 95 % interval of mean(a) / mean(b), a and b
    {seq: response} of two modes fed the same requests: the requests both
    answered, in order, cut into BATCHES batches (batch means: a batch
    holds hundreds of requests, long against a queue's memory), the
    ratio's spread over them."""
    seqs = sorted(set(a) & set(b))
    n = len(seqs) // BATCHES
    if n < 2:
        return float("nan")
    rs = []
    for i in range(BATCHES):
        part = seqs[i * n:(i + 1) * n]
        rs.append(sum(a[q] for q in part) / sum(b[q] for q in part))
    mean = sum(rs) / BATCHES
    var = sum((r - mean) ** 2 for r in rs) / (BATCHES - 1)
    return T_975 * (var / BATCHES) ** 0.5


def dyn_table(runs):
    """Each dynN against the best srC of its choices at the same load."""
    out = []
    for dist in sorted({d for d, _, _ in runs}):
        rows = [DYN_HEAD]
        for rho in sorted({r for d, _, r in runs if d == dist}):
            here = {m: (split_mode(m), stats(t))
                    for (d, m, r), (t, _, _) in runs.items()
                    if d == dist and r == rho and t and split_mode(m)}
            for mode, ((kind, _, k), (mean, _, _, p99)) in here.items():
                if kind != "dyn":
                    continue
                static = {m: st for m, ((sk, _, kk), st) in here.items()
                          if sk == "sr" and kk == k}
                if not static:
                    continue
                bm = min(static, key=lambda m: static[m][0])
                bp = min(static, key=lambda m: static[m][3])
                hw = batch_ratio(runs[(dist, mode, rho)][2],
                                 runs[(dist, bm, rho)][2])
                rows.append(("%.2f" % rho, mode, "%.0f" % mean,
                             "%s %.0f" % (bm, static[bm][0]),
                             "%.2f+-%.2f" % (mean / static[bm][0], hw),
                             "%.0f" % p99,
                             "%s %.0f" % (bp, static[bp][3]),
                             "%.2f" % (p99 / static[bp][3])))
        if len(rows) > 1:
            out += ["", "The dyn policy against the best static c (%s)"
                    % dist, ""] + rst(rows)
    return "\n".join(out) + "\n" if out else ""


def plots(runs, outdir):
    gp = shutil.which("gnuplot")
    if not gp:
        print("report: no gnuplot, no plots", file=sys.stderr)
        return
    for dist in sorted({d for d, _, _ in runs}):
        modes = list(dict.fromkeys(m for d, m, _ in runs if d == dist))
        loads = sorted({r for d, _, r in runs if d == dist})
        script = ["set terminal png size 900,600",
                  "set datafile separator ','", "set key left top",
                  "set grid"]
        data = {}
        for mode in modes:
            name = os.path.join(outdir, "load-%s-%s.dat" % (dist, mode))
            with open(name, "w") as f:
                for rho in loads:
                    run = runs.get((dist, mode, rho))
                    if run and run[0]:
                        mean, _, _, p99 = stats(run[0])
                        f.write("%g,%g,%g\n" % (rho, mean, p99))
            data[mode] = name
        script += ["set output '%s'" % os.path.join(outdir,
                                                     "load-%s.png" % dist),
                   "set title 'Response time against load (%s service "
                   "times)'" % dist, "set xlabel 'load (of total capacity)'",
                   "set ylabel 'response time (ms)'", "set logscale y"]
        curves = []
        for i, mode in enumerate(modes):
            curves.append("'%s' using 1:2 with linespoints lc %d pt 7 "
                          "title '%s mean'" % (data[mode], i + 1, mode))
            curves.append("'%s' using 1:3 with linespoints lc %d dt 2 pt 6 "
                          "title '%s p99'" % (data[mode], i + 1, mode))
        script.append("plot " + ", ".join(curves))
        top = loads[-1]
        curves = []
        for i, mode in enumerate(modes):
            run = runs.get((dist, mode, top))
            if not run or not run[0]:
                continue
            name = os.path.join(outdir, "cdf-%s-%s.dat" % (dist, mode))
            with open(name, "w") as f:
                n = len(run[0])
                for k, t in enumerate(run[0]):
                    f.write("%g,%g\n" % (t, (k + 1) / n))
            curves.append("'%s' using 1:2 with lines lc %d lw 2 "
                          "title '%s'" % (name, i + 1, mode))
        script += ["unset logscale", "set logscale x",
                   "set output '%s'" % os.path.join(outdir,
                                                     "cdf-%s.png" % dist),
                   "set title 'Response times at load %.2f (%s)'"
                   % (top, dist), "set xlabel 'response time (ms)'",
                   "set ylabel 'fraction of requests'", "set key right bottom",
                   "plot " + ", ".join(curves)]
        subprocess.run([gp], input="\n".join(script) + "\n", text=True,
                       check=True)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    runs = load(sys.argv[1])
    if not runs:
        sys.exit("report: no results in %s" % sys.argv[1])
    os.makedirs(sys.argv[2], exist_ok=True)
    text = table(runs) + dyn_table(runs)
    with open(os.path.join(sys.argv[2], "table.rst"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    plots(runs, sys.argv[2])


main()
