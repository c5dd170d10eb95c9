#!/usr/bin/env python3
"""`make bench-watch`: the same 1,000 price watches in Halley and in
changedetection.io, side by side, in one run.

usage: bench.py HALLEY_BIN [--watches N] [--only halley|changedetection]

A loopback fixture serves N product pages (JSON-LD and a visible VND price,
`21.490.000 ₫`; one page in ten renders its price with a script). Each system
gets one watch per page and runs three passes: cold, unchanged, then with the
price of one page in ten lowered by 10 %. Reported per system and pass: wall
time, checks per second, peak memory (PSS of the whole process tree), alerts sent
(pass 2: 0 expected; pass 3: exactly N/10), and prices read correctly after
the pass.

changedetection.io (PyPI `changedetection-io`, restock/price processor, its
default 5 workers) is installed by this script into bench/watch/.venv and
started paused with its API; its watches are created through the API with a
JSON notification URL that points at the fixture, which counts the alerts.
A pass is: `GET /api/v1/watch?recheck_all=1`, then done when the queue is empty
(`/api/v1/systeminfo`) and every watch's `check_count` advanced.

Halley's watches are imported with `halley watch import` (a rule: alert when
the price drops by 5 % or more against the first price read); a pass is
`halley watch poll --all` (one process: its peak memory includes the managed
Chromium it starts for the script-rendered pages). Its
alerts are the native notifications counted on the session's D-Bus (run it
inside scripts/with-session.sh, as `make bench-watch` does).
"""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, threading, time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, ".venv")
CD_VERSION = "0.60.10"


# ---------------------------------------------------------------- fixture

def vnd(amount):
    """21490000 -> '21.490.000 ₫', the way Vietnamese shops print prices."""
    return f"{amount:,}".replace(",", ".") + " ₫"


class Shop:
    """N product pages whose prices the bench changes between passes."""

    def __init__(self, n):
        self.n = n
        self.prices = {i: 5_000_000 + (i * 7_919 % 40_000) * 1_000 for i in range(n)}
        self.alerts = 0
        self.lock = threading.Lock()

    def scripted(self, i):
        return i % 10 == 9

    def lowered(self, i):
        return i % 10 == 3

    def lower(self):
        for i in range(self.n):
            if self.lowered(i):
                self.prices[i] = self.prices[i] * 9 // 10 // 1000 * 1000

    def page(self, i):
        name = f"Laptop ASUS TUF Gaming F15 #{i}"
        price = self.prices[i]
        if self.scripted(i):
            body = (f"<div id=app>Đang tải…</div><script>document.getElementById('app').innerHTML = "
                    f"'<h1>{name}</h1><p class=price>{vnd(price)}</p><button>Thêm vào giỏ</button>';</script>")
            return f"<!doctype html><html lang=vi><head><meta charset=utf-8><title>{name}</title></head><body>{body}</body></html>"
        ld = json.dumps({"@context": "https://schema.org", "@type": "Product", "name": name, "sku": f"TUF-{i}",
                         "offers": {"@type": "Offer", "price": str(price), "priceCurrency": "VND",
                                    "availability": "https://schema.org/InStock"}}, ensure_ascii=False)
        return (f"<!doctype html><html lang=vi><head><meta charset=utf-8><title>{name}</title>"
                f"<script type=application/ld+json>{ld}</script></head><body><h1>{name}</h1>"
                f"<p class=price>{vnd(price)}</p><p>Còn hàng</p><button>Thêm vào giỏ</button></body></html>")


def serve(shop):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            m = re.fullmatch(r"/p/(\d+)", self.path)
            if not m or int(m.group(1)) >= shop.n:
                self.send_error(404)
                return
            body = shop.page(int(m.group(1))).encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path.startswith("/alert"):
                with shop.lock:
                    shop.alerts += 1
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------- memory

def tree_pss_kb(root):
    """Proportional set size of `root` and all its descendants, in kB: each
    shared page counted once across the tree (Chromium's processes share
    most of their code; a sum of RSS would count it once per process)."""
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(pid))
        except (OSError, IndexError, ValueError):
            pass
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


class PeakMemory:
    """Samples a process tree's PSS every 100 ms until stopped."""

    def __init__(self, pid):
        self.pid, self.peak, self.running = pid, 0, True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            self.peak = max(self.peak, tree_pss_kb(self.pid))
            time.sleep(0.1)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak / 1024


# ---------------------------------------------------------------- changedetection.io

def cd_install():
    exe = os.path.join(VENV, "bin", "changedetection.io")
    if os.path.exists(exe):
        return exe
    print(f"bench-watch: installing changedetection-io {CD_VERSION} into {VENV}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", f"changedetection-io=={CD_VERSION}"], check=True)
    return exe


class ChangeDetection:
    def __init__(self, exe, work):
        self.dir = os.path.join(work, "changedetection")
        os.makedirs(self.dir)
        self.port = free_port()
        env = dict(os.environ, ALLOW_IANA_RESTRICTED_ADDRESSES="true")
        self.log = open(os.path.join(work, "changedetection.log"), "w")
        self.proc = subprocess.Popen([exe, "-d", self.dir, "-p", str(self.port), "-P", "true"], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}/api/v1"
        deadline = time.time() + 60
        self.key = None
        while time.time() < deadline:
            try:
                with open(os.path.join(self.dir, "changedetection.json")) as f:
                    self.key = json.load(f)["settings"]["application"]["api_access_token"]
                self.get("/systeminfo")
                break
            except (OSError, ValueError, KeyError):
                time.sleep(0.3)
        else:
            raise SystemExit("bench-watch: changedetection.io did not start (see its log)")

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"x-api-key": self.key, "content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            text = r.read().decode()
        return json.loads(text) if text.strip() else None

    def get(self, path):
        return self.request("GET", path)

    def setup(self, urls, alert_url):
        for uuid in list(self.get("/watch")):  # the example watches of a fresh data dir
            self.request("DELETE", f"/watch/{uuid}")
        self.uuids = {}
        for url in urls:
            made = self.request("POST", "/watch", {"url": url, "processor": "restock_diff",
                                                   "notification_urls": [alert_url]})
            self.uuids[made["uuid"]] = url

    def counts(self, uuids):
        return {u: self.get(f"/watch/{u}").get("check_count", 0) for u in uuids}

    def run_pass(self):
        before = self.counts(self.uuids)
        start = time.monotonic()
        self.get("/watch?recheck_all=1")
        waiting = set(self.uuids)
        while waiting:
            time.sleep(0.2)
            if self.get("/systeminfo").get("queue_size", 1) != 0:
                continue
            sweep = time.monotonic()
            now = self.counts(waiting)
            waiting = {u for u, c in now.items() if c <= before[u]}
            if not waiting:
                return sweep - start  # done by the start of the sweep that saw them all
        return time.monotonic() - start

    def prices(self):
        """Watch URL -> the price it read (from each watch's saved state)."""
        out = {}
        for uuid, url in self.uuids.items():
            try:
                with open(os.path.join(self.dir, uuid, "watch.json")) as f:
                    restock = json.load(f).get("restock") or {}
                out[url] = restock.get("price")
            except (OSError, ValueError):
                out[url] = None
        return out

    def stop(self):
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_alerts(shop, settle=3.0, limit=60.0):
    """The alert count once it has not moved for `settle` seconds."""
    deadline, last, since = time.monotonic() + limit, -1, time.monotonic()
    while time.monotonic() < deadline:
        with shop.lock:
            now = shop.alerts
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= settle:
            break
        time.sleep(0.2)
    return last


def bench_changedetection(shop, urls, work, site):
    cd = ChangeDetection(cd_install(), work)
    try:
        cd.setup(urls, f"json://127.0.0.1:{site.server_port}/alert")
        rows = []
        for n, label in enumerate(["cold", "unchanged", "10 % lowered"]):
            if n == 2:
                shop.lower()
            with shop.lock:
                shop.alerts = 0
            mem = PeakMemory(cd.proc.pid)
            secs = cd.run_pass()
            peak = mem.stop()
            alerts = wait_alerts(shop)
            rows.append((label, secs, peak, alerts, right_prices(shop, cd.prices())))
        return rows
    finally:
        cd.stop()


# ---------------------------------------------------------------- Halley

def bench_halley(shop, urls, work, halley):
    data = os.path.join(work, "halley-data")
    base = [halley, "--data-dir", data, "--headless"]
    watches = [{"target": {"url": u}, "trigger_rules": [{"op": "drop_pct", "value": 5}], "frequency": "1d",
                "label": f"Laptop #{i}"} for i, u in enumerate(urls)]
    listing = os.path.join(work, "watches.json")
    with open(listing, "w") as f:
        json.dump(watches, f)
    made = subprocess.run(base + ["watch", "import", listing], check=True, capture_output=True, text=True)
    ids = [line for line in made.stdout.splitlines() if line and not line.startswith("imported")]
    if len(ids) != len(urls):
        raise SystemExit(f"bench-watch: halley imported {len(ids)} watches of {len(urls)}")
    url_of = dict(zip(ids, urls))
    monitor = subprocess.Popen(["dbus-monitor", "--session",
                                "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"],
                               stdout=subprocess.PIPE, text=True)
    notified = [0]

    def count():
        for line in monitor.stdout:
            if "member=Notify" in line:
                notified[0] += 1
    threading.Thread(target=count, daemon=True).start()
    time.sleep(0.5)  # the monitor is listening
    rows = []
    try:
        for n, label in enumerate(["cold", "unchanged", "10 % lowered"]):
            if n == 2:
                shop.lower()
            notified[0] = 0
            start = time.monotonic()
            p = subprocess.Popen(base + ["watch", "poll", "--all", "--json"], stdout=subprocess.PIPE, text=True)
            mem = PeakMemory(p.pid)
            out, _ = p.communicate()
            secs = time.monotonic() - start
            peak = mem.stop()
            if p.returncode != 0:
                raise SystemExit(f"bench-watch: halley watch poll failed ({p.returncode})")
            time.sleep(1.0)  # the last notifications reach the bus
            checks = json.loads(out).get("checks", [])
            prices = {url_of.get(c.get("watch_id")): c.get("price") for c in checks}
            rows.append((label, secs, peak, notified[0], right_prices(shop, prices)))
        return rows
    finally:
        monitor.terminate()


# ---------------------------------------------------------------- report

def right_prices(shop, read):
    """How many pages' current price the system read exactly."""
    ok = 0
    for i in range(shop.n):
        got = read.get(page_url(i))
        try:
            ok += got is not None and round(float(got)) == shop.prices[i]
        except (TypeError, ValueError):
            pass
    return ok


BASE = [None]


def page_url(i):
    return f"{BASE[0]}/p/{i}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("halley")
    ap.add_argument("--watches", type=int, default=1000)
    ap.add_argument("--only", choices=["halley", "changedetection"])
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bench-watch-")
    results = {}
    try:
        for system in ["halley", "changedetection"]:
            if a.only and a.only != system:
                continue
            shop = Shop(a.watches)  # each system starts from the same prices
            site = serve(shop)
            BASE[0] = f"http://127.0.0.1:{site.server_port}"
            urls = [page_url(i) for i in range(a.watches)]
            print(f"bench-watch: {system}, {a.watches} watches", flush=True)
            if system == "halley":
                results[system] = bench_halley(shop, urls, work, os.path.abspath(a.halley))
            else:
                results[system] = bench_changedetection(shop, urls, work, site)
            site.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    n = a.watches
    print(f"\n{n} watches ({n // 10} script-rendered pages, {n // 10} prices lowered by 10 % before pass 3)\n")
    print("| System | Pass | Wall s | Checks/s | Peak MB | Alerts | Prices right |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for system, rows in results.items():
        for label, secs, peak, alerts, right in rows:
            print(f"| {system} | {label} | {secs:.1f} | {n / secs:.0f} | {peak:.0f} | {alerts} | {right}/{n} |")
    if len(results) == 2:
        ratio = [h[1] / c[1] for h, c in zip(results["halley"], results["changedetection"])]
        print("\nHalley's time / changedetection.io's, per pass: " + ", ".join(f"{r:.2f}×" for r in ratio))
    print(f"Targets: Halley ≤ 0.2× changedetection.io's time per pass, {n} checks ≤ 60 s; pass 2: 0 alerts, "
          f"pass 3: exactly {n // 10}; every price right.")


if __name__ == "__main__":
    main()
