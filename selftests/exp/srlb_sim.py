#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The dyn policy against every static threshold, in simulation.

Runs srlb_sim (the model of the SRLB experiment, srlb_sim.c) for each
distribution, choices k, load and seed: SR_c for c = 1 to 8 and dyn 8, and
prints, per distribution and k, an reStructuredText table: at each load,
the static c of the lowest mean and that of the lowest p99 (chosen after
the fact, averaged over the seeds: an oracle), and dyn 8's ratios to
them, with the half-width of a 95 % interval over the seeds (Student's t;
every mode of a seed sees the same requests).

usage: srlb_sim.py [--sim PATH] [--dists exp,wiki] [--choices 2,3]
                   [--loads 0.5,0.7,0.8,0.9,0.95] [--seeds 4]
                   [--requests 5000000] [--servers 4] [--dyn dyn8]
"""
import argparse
import collections
import concurrent.futures
import os
import subprocess
import sys

# Student's t, 97.5 % quantile, by degrees of freedom.
T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36,
        8: 2.31, 9: 2.26}
STATIC = range(1, 9)


def sim(args, dist, k, load, seed):
    suffix = "k%d" % k if k != 2 else ""
    modes = ["sr%d%s" % (c, suffix) for c in STATIC] + [args.dyn + suffix]
    out = subprocess.run([args.sim, "-n", str(args.servers), "-d", dist,
                          "-l", str(load), "-r", str(args.requests),
                          "-s", str(seed)] + modes,
                         check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        f = dict(x.split("=", 1) for x in line.split())
        res[f["mode"].removesuffix(suffix)] = (float(f["mean"]),
                                               float(f["p99"]),
                                               float(f["c"]))
    return (dist, k, load), seed, res


def interval(xs):
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, float("nan")
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, T975.get(n - 1, 1.96) * (var / n) ** 0.5


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--sim", default=os.path.join(here, "../../build/exp/srlb_sim"))
    p.add_argument("--dists", default="exp,wiki")
    p.add_argument("--choices", default="2,3")
    p.add_argument("--loads", default="0.5,0.7,0.8,0.9,0.95")
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--requests", type=int, default=5000000)
    p.add_argument("--servers", type=int, default=4)
    p.add_argument("--dyn", default="dyn8")
    args = p.parse_args()

    jobs = [(d, int(k), float(r), s)
            for d in args.dists.split(",") for k in args.choices.split(",")
            for r in args.loads.split(",") for s in range(1, args.seeds + 1)]
    runs = collections.defaultdict(dict)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as ex:
        for key, seed, res in ex.map(lambda j: sim(args, *j), jobs):
            runs[key][seed] = res

    head = ("load", "best mean", "mean/best", "best p99", "p99/best", "c")
    for dist in args.dists.split(","):
        for k in map(int, args.choices.split(",")):
            rows = [head]
            for load in map(float, args.loads.split(",")):
                seeds = runs[(dist, k, load)]
                avg = {m: [sum(r[m][i] for r in seeds.values()) / len(seeds)
                           for i in range(3)] for m in next(iter(seeds.values()))}
                static = ["sr%d" % c for c in STATIC]
                bm = min(static, key=lambda m: avg[m][0])
                bp = min(static, key=lambda m: avg[m][1])
                rm = interval([r[args.dyn][0] / r[bm][0] for r in seeds.values()])
                rp = interval([r[args.dyn][1] / r[bp][1] for r in seeds.values()])
                rows.append(("%.2f" % load, "%s %.3f" % (bm, avg[bm][0]),
                             "%.3f+-%.3f" % rm, "%s %.2f" % (bp, avg[bp][1]),
                             "%.3f+-%.3f" % rp, "%.2f" % avg[args.dyn][2]))
            print("\n%s, k = %d, %d servers, %d seeds x %d requests (%s):\n"
                  % (dist, k, args.servers, args.seeds, args.requests, args.dyn))
            widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
            rule = "  ".join("=" * w for w in widths)
            print(rule)
            for i, r in enumerate(rows):
                print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
                if i == 0:
                    print(rule)
            print(rule)
    return 0


if __name__ == "__main__":
    sys.exit(main())
