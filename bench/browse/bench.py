#!/usr/bin/env python3
"""`make bench-browse`: how often an ordinary browse of real shop pages
asks the user (issue 27: the gate at the wire must not ask for a site's own
page loads, images, scripts and telemetry). The aim is none.

usage: bench.py HALLEY_BIN [--chromium PATH] [--pages N] [--show]

Serves the saved pages of ../shared/datasets/products-dev on loopback (as its
score.py does: external hosts fail at once), and runs one `halley tools
script` session with nobody to approve (`--confirm deny`): for each page,
navigate, scroll down, read its text, open its gallery (a thumbnail), open
its description tabs (`role=tab`) and scroll back up. A call that needed the
user's yes comes back `denied`: each is an ask, listed with its reason under
--show. A control the page does not have is `element_not_found`, not an ask.
"""
import collections, gzip, json, os, subprocess, sys, tempfile, threading, time
from functools import partial
from http.server import ThreadingHTTPServer, SimpleHTTPRequestHandler

HERE = os.path.dirname(os.path.abspath(__file__))
DATASET = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "datasets", "products-dev"))

# What a person does on a product page that changes nothing.
STEPS = [
    ("scroll", "browser_scroll", {"amount_px": 900}),
    ("read", "browser_read_text", {}),
    ("gallery", "browser_click", {"selector": "[class*=thumb] img, [class*=Thumb] img, [class*=gallery] img"}),
    ("tab", "browser_click", {"selector": "[role=tab]"}),
    ("scroll back", "browser_scroll", {"amount_px": -900}),
]


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    halley = os.path.abspath(args[0])
    chromium = args[args.index("--chromium") + 1] if "--chromium" in args else "/usr/bin/chromium"
    show = "--show" in args
    gt_path = os.path.join(DATASET, "ground-truth.json")
    if not os.path.exists(gt_path):
        sys.exit(f"bench-browse: {DATASET} not found (the products-dev dataset)")
    ids = sorted(json.load(open(gt_path)))
    if "--pages" in args:
        ids = ids[: int(args[args.index("--pages") + 1])]
    work = tempfile.mkdtemp(prefix="bench-browse-")
    site = os.path.join(work, "site")
    os.makedirs(site)
    for i in ids:
        with gzip.open(os.path.join(DATASET, "html.gz", i + ".html.gz")) as f, open(os.path.join(site, i + ".html"), "wb") as o:
            o.write(f.read())
    wrapper = os.path.join(work, "chromium")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec {chromium} --host-resolver-rules="MAP * ~NOTFOUND , EXCLUDE 127.0.0.1" "$@"\n')
    os.chmod(wrapper, 0o755)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=site))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    script, plan = os.path.join(work, "script.jsonl"), []
    with open(script, "w") as f:
        for i in ids:
            steps = [("navigate", "browser_navigate", {"url": f"{base}/{i}.html", "wait_until": "domcontentloaded"})]
            for name, tool, a in steps + STEPS:
                f.write(json.dumps({"tool": tool, "args": a}) + "\n")
                plan.append((i, name))
    env = dict(os.environ, HALLEY_DATA_DIR=os.path.join(work, "data"), HALLEY_CHROMIUM=wrapper)
    t0 = time.time()
    out = subprocess.run([halley, "tools", "script", script, "--headless", "--keep-going", "--confirm", "deny"],
                         capture_output=True, text=True, env=env)
    elapsed = time.time() - t0
    results = [json.loads(l) for l in out.stdout.splitlines() if l.strip().startswith("{")]
    if len(results) != len(plan):
        sys.stderr.write(out.stderr[-3000:])
        sys.exit(f"bench-browse: {len(results)} results for {len(plan)} calls")
    done, asks, errors = collections.Counter(), [], collections.Counter()
    for (page, step), r in zip(plan, results):
        res = r.get("result", r)
        err = (res.get("error") or {}) if isinstance(res, dict) else {}
        code = err.get("code")
        if code is None:
            done[step] += 1
        elif code == "denied":
            asks.append((page, step, err.get("message", "")))
        else:
            errors[code] += 1
    actions = sum(done.values()) + len(asks)
    print(f"ordinary browse of {len(ids)} real product pages ({elapsed:.0f} s): {actions} actions done or asked")
    for name, *_ in [("navigate",)] + STEPS:
        print(f"  {name:12} {done[name]:4} done")
    print(f"  not on the page or failed (not asks): {dict(errors)}")
    pages_asked = len({p for p, _, _ in asks})
    print(f"asks: {len(asks)} ({pages_asked} of {len(ids)} pages; aim: none)")
    if show:
        for page, step, msg in asks:
            print(f"  page {page} {step}: {msg[:300]}")


if __name__ == "__main__":
    main()
