#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The client of the SRLB experiment (selftests/exp/srlb_exp.sh).

Open-loop Poisson arrivals: requests start at exponentially distributed
intervals of mean 1 / RATE seconds for DURATION seconds, whatever the
earlier ones are doing (a closed loop would slow down with the servers and
hide their queues).  Each request is a new TCP connection to [VIP]:PORT
carrying "GET /?ms=N", N its service time drawn from DIST:

  exp     exponential, mean MEAN ms;
  wiki    a heavy-tailed page mix of the same mean: 85 % light pages
          (exponential, mean 0.4 MEAN), 15 % heavy ones (bounded Pareto,
          alpha 1.5, from 1.70 MEAN to 85 MEAN), like the few expensive
          pages (edits, searches, uncached renders) among many cheap
          reads of a wiki.

Prints one CSV line per request: TAG,seq,service_ms,response_ms,server
(response_ms and server empty for a request that failed), response time
measured from the request's scheduled start, so that a client falling
behind counts against the system, not for it.  With WARMUP, the load
first runs for WARMUP seconds more, and the requests that start in them
(while the queues and adaptive thresholds settle) are sent but not
printed.

usage: loadgen.py VIP PORT RATE DURATION DIST MEAN SEED TAG [WARMUP]
"""
import asyncio
import random
import sys


def service_time(rng, dist, mean):
    if dist == "exp":
        return rng.expovariate(1 / mean)
    if rng.random() < 0.85:
        return rng.expovariate(1 / (0.4 * mean))
    alpha, low = 1.5, 1.703 * mean
    high = 50 * low
    u = rng.random()
    # Inverse of the bounded Pareto's distribution function.
    return low / (1 - u * (1 - (low / high) ** alpha)) ** (1 / alpha)


async def request(vip, port, seq, ms, start, tag, loop, counted):
    server = ""
    done = None
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(vip, port), 60)
        writer.write(b"GET /?ms=%d HTTP/1.0\r\n\r\n" % round(ms))
        data = await asyncio.wait_for(reader.read(), 120)
        writer.close()
        head, _, body = data.partition(b"\r\n\r\n")
        if head.startswith(b"HTTP/1.0 200"):
            server = body.decode(errors="replace")
            done = loop.time()
    except (OSError, asyncio.TimeoutError):
        pass
    if not counted:
        return
    resp = "%.1f" % ((done - start) * 1000) if done else ""
    print("%s,%d,%.1f,%s,%s" % (tag, seq, ms, resp, server), flush=True)


async def main():
    vip, port = sys.argv[1], int(sys.argv[2])
    rate, duration = float(sys.argv[3]), float(sys.argv[4])
    dist, mean, seed, tag = (sys.argv[5], float(sys.argv[6]),
                             int(sys.argv[7]), sys.argv[8])
    warmup = float(sys.argv[9]) if len(sys.argv) > 9 else 0
    if dist not in ("exp", "wiki"):
        sys.exit("loadgen: unknown distribution '%s' (exp, wiki)" % dist)
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    at = t0
    tasks = []
    seq = 0
    while True:
        at += rng.expovariate(rate)
        if at - t0 >= warmup + duration:
            break
        ms = service_time(rng, dist, mean)
        delay = at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(
            request(vip, port, seq, ms, at, tag, loop,
                    at - t0 >= warmup)))
        seq += 1
    await asyncio.gather(*tasks)


if len(sys.argv) not in (9, 10):
    sys.exit(__doc__.strip().splitlines()[-1])
asyncio.run(main())
