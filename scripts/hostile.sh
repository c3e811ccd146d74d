#!/usr/bin/env bash
# Hostile-input figures of the mock server (issue 43), measured against the built binary and
# printed as Markdown lines for docs/RELIABILITY.md. Each attack starts a fresh server on a
# database of its own in a temporary directory and stops it afterwards.
#
#   bash scripts/hostile.sh [BUILD_DIR] [ATTACK...]     (default: build, every attack)
#
# Attacks (more are added here as the HTTP edge is measured):
#   amplification  a 64 KiB create whose items are 21,816 `{}`: answer bytes, their ratio to the
#                  request, and the time to answer (median of 5, over loopback)
#   stored-bytes   500 cancels with 60 KB of unknown fields, and 500 creates with 30 KB of
#                  unknown item fields: database bytes per request (file size after a
#                  checkpoint) and /proc/PID/io write_bytes per request where the kernel counts it
#   metrics        GET /metrics at 40,000 orders: mean time of 200 calls
#   locked-db      another process holds BEGIN IMMEDIATE: status and time of a create, and a
#                  bystander's /healthz latency while 5 creates are queued
#   smuggling      GET /healthz with `Transfer-Encoding: gzip` whose body is a whole create, on
#                  one connection: statuses, whether the server closed, orders created, bytes
#                  the server read (/proc/PID/io rchar)
#   flood          300 connections each sending the amplification body at once: a bystander's
#                  /healthz latency, the server's peak RSS
#   descriptors    the server at RLIMIT_NOFILE 256, 300 connections with unfinished heads: a
#                  bystander's create and /healthz (status, latency), stderr lines
#   idle-slots     one client holds --max-connections 256 idle keep-alive connections: a
#                  bystander's /healthz and create (status, latency)
#
# HOSTILE_ORDERS   orders for the metrics attack (default 40000)
# Needs python3 (standard library only) and the built idem-mock-server (IDEM_TARGETS=
# idem-mock-server bash scripts/build.sh BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift || true
binary="$build/mock_server/idem-mock-server"
if [ ! -x "$binary" ]; then
  echo "hostile: no $binary; build it first (IDEM_TARGETS=idem-mock-server scripts/build.sh $build)" >&2
  exit 2
fi
exec python3 - "$binary" "$@" <<'PY'
import http.client, json, os, signal, socket, sqlite3, statistics, subprocess, sys, tempfile
import threading, time

binary = sys.argv[1]
wanted = sys.argv[2:]
ADMIN = "hostile-admin"
TOKEN_FILE = "--admin-token-file" in subprocess.run([binary, "--help"], capture_output=True,
                                                    text=True).stdout
TENANT = {"Authorization": "Bearer hostile-tenant", "Content-Type": "application/json"}


class Server:
    """idem-mock-server on 127.0.0.1:0 with a database in a temporary directory."""

    def __init__(self, *extra, prefix=(), stderr=subprocess.DEVNULL):
        self.dir = tempfile.TemporaryDirectory(prefix="idem_hostile_")
        self.db = os.path.join(self.dir.name, "mock.db")
        token = os.path.join(self.dir.name, "admin-token")
        with open(token, "w") as f:
            f.write(ADMIN + "\n")
        args = [binary, "--listen", "127.0.0.1:0", "--db", self.db]
        # From a file where the server can (not on a command line anyone reads in /proc); a
        # server older than --admin-token-file takes it on the command line.
        args += ["--admin-token-file", token] if TOKEN_FILE else ["--admin-token", ADMIN]
        self.proc = subprocess.Popen(list(prefix) + args + list(extra), stdout=subprocess.PIPE,
                                     stderr=stderr, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("listening on http://"):
            raise SystemExit("hostile: the server did not start: " + line)
        self.port = int(line.strip().rsplit(":", 1)[1])

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def proc_field(self, name, field):
        """An integer field of /proc/PID/<name> (io, status), None where the kernel hides it."""
        try:
            with open(f"/proc/{self.proc.pid}/{name}") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def write_bytes(self):
        return self.proc_field("io", "write_bytes")

    def peak_rss_mb(self):
        kb = self.proc_field("status", "VmHWM")
        return None if kb is None else kb / 1024

    def orders(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.request("GET", "/_mock/stats", headers={"Authorization": "Bearer " + ADMIN})
        return json.loads(c.getresponse().read())["orders"]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        if self.proc.poll() is None:
            self.stop()
        self.dir.cleanup()


def request(conn, method, target, body=None, headers=None):
    """(status, body bytes, seconds) of one request on a kept-alive connection."""
    start = time.perf_counter()
    conn.request(method, target, body=body, headers=headers or {})
    res = conn.getresponse()
    data = res.read()
    return res.status, data, time.perf_counter() - start, res


def post(conn, target, key, body):
    return request(conn, "POST", target, body, dict(TENANT, **{"Idempotency-Key": key}))


def order(mid, extra_item=None):
    item = {"sku": "book", "quantity": 1, "unit_price_minor": 1500}
    if extra_item:
        item.update(extra_item)
    return {"merchant_order_id": mid, "customer_id": "cus_1", "currency": "EUR",
            "amount_minor": 1500, "items": [item]}


def say(line):
    print(line, flush=True)


def amplification():
    server = Server()
    try:
        body = ('{"items":[' + ",".join(["{}"] * 21816) + "]}").encode()
        conn = server.connection()
        times, size, status = [], 0, 0
        for i in range(5):
            status, data, seconds, _ = post(conn, "/v1/orders", f"k-{i}", body)
            times.append(seconds)
            size = len(data)
        answer = json.loads(data)
        say(f"- amplification: request {len(body):,} B -> {status}, answer {size:,} B "
            f"({size / len(body):.3f}x), {len(answer.get('errors', [])):,} errors listed, "
            f"errors_omitted {answer.get('errors_omitted', 0):,}; "
            f"{statistics.median(times) * 1000:.1f} ms to answer (median of 5)")
    finally:
        server.close()


def db_bytes(server):
    server.stop()
    with sqlite3.connect(server.db) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return os.path.getsize(server.db)


def stored_bytes():
    n = 500
    for name in ("cancel", "create"):
        server = Server()
        try:
            conn = server.connection()
            status, data, _, _ = post(conn, "/v1/orders", "k-order", json.dumps(order("m-0")))
            oid = json.loads(data)["id"]
            baseline_writes = server.write_bytes()
            with sqlite3.connect(server.db) as db:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            baseline = os.path.getsize(server.db)
            start = time.perf_counter()
            for i in range(n):
                if name == "cancel":
                    body = json.dumps({"reason": "x", "extra": "y" * 60000})
                    post(conn, f"/v1/orders/{oid}/cancel", f"c-{i}", body)
                else:
                    body = json.dumps(order(f"m-{i + 1}", {"note": "z" * 30000}))
                    post(conn, "/v1/orders", f"k-{i}", body)
            seconds = time.perf_counter() - start
            writes = server.write_bytes()
            grown = db_bytes(server) - baseline
            written = "" if writes is None or baseline_writes is None else (
                f", write_bytes {(writes - baseline_writes) / n:,.0f} B/request "
                f"({(writes - baseline_writes) / seconds / 1e6:.1f} MB/s)")
            say(f"- stored-bytes, {n} {name}s with {len(body):,} B bodies: database grew "
                f"{grown / n:,.0f} B/request{written}")
        finally:
            server.close()


def metrics():
    orders = int(os.environ.get("HOSTILE_ORDERS", "40000"))
    server = Server()
    try:
        conn = server.connection()
        for i in range(orders):
            status, data, _, _ = post(conn, "/v1/orders", f"k-{i}", json.dumps(order(f"m-{i}")))
            if status != 201:
                raise SystemExit(f"hostile: create {i} answered {status}: {data[:200]!r}")
        anyone = server.connection()
        times = [request(anyone, "GET", "/metrics")[2] for _ in range(200)]
        say(f"- metrics at {orders:,} orders: {statistics.mean(times) * 1000:.2f} ms a call "
            f"(mean of 200; median {statistics.median(times) * 1000:.2f} ms)")
    finally:
        server.close()


QUEUED = 5


def locked_db():
    server = Server()
    try:
        conn = server.connection()
        post(conn, "/v1/orders", "k-warm", json.dumps(order("m-warm")))
        outside = sqlite3.connect(server.db, isolation_level=None)
        outside.execute("BEGIN IMMEDIATE")
        status, data, seconds, res = post(conn, "/v1/orders", "k-1", json.dumps(order("m-1")))
        say(f"- locked-db: a create while another process holds the write lock: {status} "
            f"(Retry-After {res.getheader('Retry-After')}) in {seconds * 1000:.1f} ms")
        results = []

        def queued(i):
            try:
                c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
                results.append(post(c, "/v1/orders", f"q-{i}", json.dumps(order(f"q-{i}")))[0])
            except OSError as e:
                results.append(type(e).__name__)

        threads = [threading.Thread(target=queued, args=(i,)) for i in range(QUEUED)]
        for t in threads:
            t.start()
        time.sleep(0.2)  # the creates reach the server first
        healthz = request(http.client.HTTPConnection("127.0.0.1", server.port, timeout=120),
                          "GET", "/healthz")
        for t in threads:
            t.join()
        say(f"- locked-db: bystander /healthz with {QUEUED} creates queued: {healthz[0]} in "
            f"{healthz[2] * 1000:.1f} ms; the creates: "
            + ", ".join(f"{results.count(s)}x {s}" for s in sorted(set(results))))
        outside.execute("ROLLBACK")
        outside.close()
    finally:
        server.close()


def raw_exchange(port, data, timeout=10):
    """Sends raw bytes; returns (status lines of every answer, closed by the server, seconds)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    start = time.perf_counter()
    sock.sendall(data)
    received, closed = b"", False
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                closed = True
                break
            received += chunk
    except socket.timeout:
        pass
    sock.close()
    statuses = [line.split(b" ")[1].decode() for line in received.split(b"\r\n")
                if line.startswith(b"HTTP/1.")]
    return statuses, closed, time.perf_counter() - start


def bystander(port, target, timeout=30):
    """(status or what went wrong, milliseconds) of one GET on a new connection."""
    start = time.perf_counter()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("GET", target, headers=TENANT)
        status = c.getresponse().status
    except (OSError, http.client.HTTPException) as e:
        status = type(e).__name__
    return status, (time.perf_counter() - start) * 1000


def smuggling():
    server = Server()
    try:
        create = json.dumps(order("m-smuggled")).encode()
        hidden = (b"POST /v1/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer hostile-tenant"
                  b"\r\nIdempotency-Key: smuggled\r\nContent-Type: application/json\r\n"
                  b"Content-Length: " + str(len(create)).encode() + b"\r\n\r\n" + create)
        read_before = server.proc_field("io", "rchar")
        statuses, closed, seconds = raw_exchange(
            server.port, b"GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n"
            + hidden, timeout=3)
        read = server.proc_field("io", "rchar") - read_before
        say(f"- smuggling: answers {statuses}, closed by the server: {closed}, orders created: "
            f"{server.orders()}; the server read {read:,} B (rchar) of {len(hidden) + 62:,} B sent")
    finally:
        server.close()


def flood():
    server = Server()
    try:
        body = ('{"items":[' + ",".join(["{}"] * 21816) + "]}").encode()
        head = (b"POST /v1/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer hostile-tenant\r\n"
                b"Content-Type: application/json\r\nIdempotency-Key: f\r\nContent-Length: "
                + str(len(body)).encode() + b"\r\n\r\n")
        socks = []
        for _ in range(300):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=120)
            socks.append(sock)
        senders = [threading.Thread(target=s.sendall, args=(head + body,)) for s in socks]
        for t in senders:
            t.start()
        time.sleep(0.05)
        status, ms = bystander(server.port, "/healthz", timeout=120)
        for t in senders:
            t.join()
        for s in socks:
            s.close()
        say(f"- flood of 300 x {len(body):,} B creates of 21,816 {{}}: bystander /healthz "
            f"{status} in {ms:,.1f} ms; server peak RSS {server.peak_rss_mb():.1f} MB")
    finally:
        server.close()


def descriptors():
    log = tempfile.NamedTemporaryFile(prefix="idem_hostile_", suffix=".log", delete=False)
    server = Server(prefix=("prlimit", "--nofile=256:256"), stderr=log)
    start = time.perf_counter()
    try:
        held = []
        for _ in range(300):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            held.append(sock)
        create = bystander(server.port, "/v1/orders?merchant_order_id=m", timeout=10)
        health = bystander(server.port, "/healthz", timeout=10)
        time.sleep(2)
        for sock in held:
            sock.close()
        server.stop()
        seconds = time.perf_counter() - start
        with open(log.name) as f:
            lines = f.read().splitlines()
        say(f"- descriptors (RLIMIT_NOFILE 256, 300 unfinished heads): bystander GET order "
            f"{create[0]} in {create[1]:,.1f} ms, /healthz {health[0]} in {health[1]:,.1f} ms; "
            f"stderr {len(lines)} line(s) in {seconds:.0f} s"
            + (f": \"{lines[0]}\"" if lines else ""))
    finally:
        server.close()
        os.unlink(log.name)


def idle_slots():
    server = Server("--max-connections", "256")
    try:
        held = []
        for _ in range(256):
            c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            request(c, "GET", "/healthz")
            held.append(c)
        health = bystander(server.port, "/healthz", timeout=10)
        create = bystander(server.port, "/v1/orders?merchant_order_id=m", timeout=10)
        say(f"- idle-slots (256 idle keep-alive connections at --max-connections 256): bystander "
            f"/healthz {health[0]} in {health[1]:,.1f} ms, GET order {create[0]} in "
            f"{create[1]:,.1f} ms")
        for c in held:
            c.close()
    finally:
        server.close()


attacks = {"amplification": amplification, "stored-bytes": stored_bytes, "metrics": metrics,
           "locked-db": locked_db, "smuggling": smuggling, "flood": flood,
           "descriptors": descriptors, "idle-slots": idle_slots}
for name in wanted or list(attacks):
    if name not in attacks:
        raise SystemExit(f"hostile: unknown attack '{name}' (known: {', '.join(attacks)})")
    attacks[name]()
PY
