#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The server of the SRLB experiment (selftests/exp/srlb_exp.sh).

A minimal HTTP/1.0 server with a fixed pool of WORKERS threads, each of
which calls accept() only when it is free, so that connections beyond the
pool wait in the listener's accept queue: the load the acceptance policies
see (connections not closed, the accept queue) is the real one.  A request
"GET /?ms=N" is served by sleeping N milliseconds (the client draws the
service time), then answering with the server's NAME.

usage: httpd.py ADDR PORT WORKERS NAME
"""
import socket
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit


def serve(conn):
    conn.settimeout(60)
    req = b""
    while b"\r\n\r\n" not in req and len(req) < 4096:
        chunk = conn.recv(1024)
        if not chunk:
            return
        req += chunk
    try:
        target = req.split(b" ", 2)[1].decode()
        ms = float(parse_qs(urlsplit(target).query).get("ms", ["0"])[0])
    except (IndexError, ValueError, UnicodeDecodeError):
        conn.sendall(b"HTTP/1.0 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        return
    time.sleep(max(ms, 0) / 1000)
    body = NAME.encode()
    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                 % (len(body), body))


def worker(sock):
    while True:
        conn, _ = sock.accept()
        try:
            serve(conn)
        except OSError:
            pass
        finally:
            conn.close()


if len(sys.argv) != 5:
    sys.exit(__doc__.strip().splitlines()[-1])
ADDR, PORT, WORKERS, NAME = (sys.argv[1], int(sys.argv[2]),
                             int(sys.argv[3]), sys.argv[4])
listener = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((ADDR, PORT))
listener.listen(1024)
threads = [threading.Thread(target=worker, args=(listener,), daemon=True)
           for _ in range(WORKERS)]
for t in threads:
    t.start()
print("ready", flush=True)
for t in threads:
    t.join()
