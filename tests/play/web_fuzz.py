#!/usr/bin/python3
"""A bounded fuzz of `othello-zero serve` over loopback: malformed and random JSON
bodies on every endpoint, bodies far over the 64 KiB limit, wrong methods, malformed
HTTP (garbage request lines, broken headers, requests cut short, very long URLs, bytes
that are not UTF-8), and many connections at once, some of them left open and silent.
After every batch the server must still answer GET /api/state with 200, and every
HTTP reply must be one the API documents (200, 400, 404, 405, 413, 414 or 431) with a
JSON body. Prints what was sent and the status codes seen; exits 1 on a failure.
Usage: web_fuzz.py OTHELLO_ZERO MODEL [SEED]"""
import collections
import http.client
import json
import random
import socket
import subprocess
import sys
import threading
import time

ENDPOINTS = ["/", "/index.html", "/api/state", "/api/new", "/api/move", "/api/hints",
             "/api/undo", "/api/redo", "/api/step", "/api/goto", "/api/pause", "/api/load",
             "/api/game", "/api/analysis", "/api/analysis/cancel", "/api/nowhere", "/x"]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
ALLOWED = {200, 400, 404, 405, 413, 414, 431}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Fuzz:
    def __init__(self, port, seed):
        self.port = port
        self.rng = random.Random(seed)
        self.sent = collections.Counter()
        self.statuses = collections.Counter()
        self.failures = []
        self.lock = threading.Lock()

    def http(self, method, path, body=None, category="requests", headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            reply = conn.getresponse()
            data = reply.read()
            status = reply.status
        except (ConnectionError, http.client.HTTPException, socket.timeout) as e:
            status, data = type(e).__name__, b""
        finally:
            conn.close()
        with self.lock:
            self.sent[category] += 1
            self.statuses[status] += 1
            # A connection the server closed (its 2 s read timeout, on a loaded machine) ends
            # with a FIN (RemoteDisconnected) or, when the request was still unread, a reset;
            # the liveness checks show that the server itself keeps answering.
            if status not in ALLOWED and status not in ("RemoteDisconnected", "BadStatusLine",
                                                        "ConnectionResetError"):
                self.failures.append(f"{category}: {method} {path[:60]} -> {status}")
            elif isinstance(status, int) and method != "HEAD" and not path.startswith("/index") \
                    and path != "/" and data:
                try:
                    json.loads(data)
                except ValueError:
                    self.failures.append(f"{category}: {method} {path[:60]} -> {status} not JSON")
        return status

    def raw(self, payload, category, wait=True):
        """Sends raw bytes on a fresh connection; reads what comes back (if anything)."""
        with self.lock:
            self.sent[category] += 1
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
                s.sendall(payload)
                if wait:
                    s.shutdown(socket.SHUT_WR)
                    reply = s.recv(65536)
                    status = reply.split(b" ")[1].decode() if reply.startswith(b"HTTP/") else "none"
                    with self.lock:
                        self.statuses[f"raw {status}"] += 1
        except OSError as e:
            with self.lock:
                self.statuses[f"raw {type(e).__name__}"] += 1

    def alive(self, after):
        for _ in range(3):
            if self.http("GET", "/api/state", category="liveness checks") == 200:
                return
            time.sleep(1)
        self.failures.append(f"the server stopped answering after {after}")

    def random_json(self, depth=0):
        r = self.rng.random()
        if depth > 3 or r < 0.3:
            return self.rng.choice([None, True, 1, -1, 10**30, 1.5e308, "f5", "pass", "x" * 100,
                                    "\u00e9", "", 8, 6, 10, 7, "white", "reversi", "handicap", "ai-ai",
                                    "human-human", "f5d6c3", "(;GM[Othello]BO[8 x];)", 0.25])
        if r < 0.6:
            keys = ["move", "size", "start", "color", "level", "mode", "time", "increment", "board",
                    "to_move", "ply", "paused", "game", "visits", "exact_empties", "reply", "junk"]
            return {self.rng.choice(keys): self.random_json(depth + 1) for _ in range(self.rng.randint(0, 4))}
        return [self.random_json(depth + 1) for _ in range(self.rng.randint(0, 4))]

    def run(self):
        rng = self.rng
        # 1. Random and malformed JSON bodies on every endpoint and method.
        for _ in range(600):
            method, path = rng.choice(METHODS), rng.choice(ENDPOINTS)
            kind = rng.random()
            if kind < 0.4:
                body = json.dumps(self.random_json()).encode()
            elif kind < 0.7:
                body = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
            else:
                good = json.dumps(self.random_json()).encode()
                body = good[:rng.randint(0, len(good))]
            self.http(method, path, body if method not in ("GET",) else None, "random bodies")
        self.alive("random bodies")
        # 2. Bodies over the limit (64 KiB), with and without a length.
        for size in (65 * 1024, 1 << 20, 8 << 20):
            self.http("POST", "/api/move", b"{" + b" " * size + b"}", "huge bodies")
        self.raw(b"POST /api/move HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
                 b"100000\r\n" + b"a" * 70000 + b"\r\n0\r\n\r\n", "huge bodies")
        self.alive("huge bodies")
        # 3. Malformed HTTP.
        garbage = [b"\x00\x01\x02\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                   b"GET /api/state HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                   b"POST /api/move HTTP/1.1\r\nContent-Length: 10\r\n\r\n{\"mo",
                   b"GET /api/state HTTP/1.1\r\n" + b"X-A: " + b"b" * 100000 + b"\r\n\r\n",
                   b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n\r\n",
                   b"GET /\xff\xfe HTTP/1.1\r\nHost: \xc3\x28\r\n\r\n",
                   b"GET /api/state HTTP/1.1\r\n" + b"".join(b"H%d: v\r\n" % i for i in range(5000)) + b"\r\n"]
        for payload in garbage * 5:
            self.raw(payload, "malformed HTTP")
        for _ in range(100):
            self.raw(bytes(rng.randrange(256) for _ in range(rng.randint(1, 400))), "malformed HTTP")
        self.alive("malformed HTTP")
        # 4. Many connections: 150 left open and silent (more than the server has workers),
        #    200 requests from 20 threads meanwhile (they may wait for the silent ones'
        #    read timeout, but must all be answered).
        idle = []
        for _ in range(150):
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                s.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")  # never finished
                idle.append(s)
            except OSError:
                break
        with self.lock:
            self.sent["silent open connections"] += len(idle)

        def worker():
            for _ in range(10):
                self.http(rng.choice(["GET", "POST"]), rng.choice(ENDPOINTS),
                          b"{}", "concurrent requests")
        threads = [threading.Thread(target=worker) for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.alive("many connections (with the silent ones still open)")
        for s in idle:
            s.close()
        self.alive("many connections")


def main():
    exe, model = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    port = free_port()
    server = subprocess.Popen([exe, "serve", "--model", model, "--port", str(port), "--level", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    fuzz = Fuzz(port, seed)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        start = time.monotonic()
        fuzz.run()
        elapsed = time.monotonic() - start
        if server.poll() is not None:
            fuzz.failures.append(f"the server exited ({server.returncode})")
    finally:
        server.terminate()
        try:
            out = server.communicate(timeout=10)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            server.kill()
            out = ""
    print(f"sent in {elapsed:.1f} s: " + ", ".join(f"{n} {what}" for what, n in fuzz.sent.items()))
    print("replies: " + ", ".join(f"{status}: {n}" for status, n in sorted(fuzz.statuses.items(), key=str)))
    if fuzz.failures:
        print("FAILURES:\n  " + "\n  ".join(fuzz.failures[:30]))
        print("server output:\n" + out[-3000:])
        return 1
    print("the server answered throughout")
    return 0


if __name__ == "__main__":
    sys.exit(main())
