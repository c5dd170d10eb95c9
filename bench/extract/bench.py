#!/usr/bin/env python3
"""`make bench-extract`: score `browser_extract` on the real shop pages of
../shared/datasets/products-dev (score.py there, unchanged) and time the
extraction of each page.

usage: bench.py HALLEY_BIN [score.py options, e.g. --show-errors]

score.py runs one `halley tools script` session (navigate, extract, navigate,
...). It is given a wrapper in place of the binary that forwards everything and
stamps each result line as it arrives: an extraction's time is from the
navigate result to the extract result (the call alone: navigation excluded).
"""
import os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
DATASET = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "datasets", "products-dev"))
PUBLISHED = {"price": (0.93, 0.80), "sku": (0.89, 0.30), "availability": (0.92, 0.56)}


def wrapped(real, stamps):
    """Run the real binary as score.py would, stamping each stdout line."""
    p = subprocess.Popen([real] + sys.argv[3:], stdout=subprocess.PIPE, text=True)
    with open(stamps, "w") as log:
        for line in p.stdout:
            log.write(f"{time.monotonic():.6f}\n")
            log.flush()
            sys.stdout.write(line)
            sys.stdout.flush()
    return p.wait()


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--wrap":
        real, stamps = sys.argv[2], os.environ["HALLEY_BENCH_STAMPS"]
        sys.exit(wrapped(real, stamps))
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    real = os.path.abspath(sys.argv[1])
    score = os.path.join(DATASET, "score.py")
    if not os.path.exists(score):
        sys.exit(f"bench-extract: {score} not found (the products-dev dataset)")
    work = tempfile.mkdtemp(prefix="bench-extract-")
    stamps = os.path.join(work, "stamps")
    wrapper = os.path.join(work, "halley")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec "{sys.executable}" "{os.path.abspath(__file__)}" --wrap "{real}" "$@"\n')
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, HALLEY_BENCH_STAMPS=stamps)
    out = subprocess.run([sys.executable, score, wrapper] + sys.argv[2:], capture_output=True, text=True, env=env)
    sys.stdout.write(out.stdout)
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        sys.exit(out.returncode)
    f1 = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] in PUBLISHED:
            f1[parts[0]] = float(parts[1])
    print()
    print("attribute      this build  Zyte (published)  before (issue 13)")
    for attr in ("price", "availability", "sku"):
        zyte, before = PUBLISHED[attr]
        got = f"{f1[attr]:.3f}" if attr in f1 else "?"
        print(f"{attr:13}  {got:>10}  {zyte:>16.2f}  {before:>17.2f}")
    with open(stamps) as f:
        t = [float(x) for x in f if x.strip()]
    # Lines alternate: navigate result, extract result.
    ms = sorted((t[k + 1] - t[k]) * 1000 for k in range(0, len(t) - 1, 2))
    if ms:
        p90 = ms[min(len(ms) - 1, int(round(0.9 * (len(ms) - 1))))]
        print(f"\nextraction per page ({len(ms)} pages, navigation excluded): "
              f"median {statistics.median(ms):.0f} ms, p90 {p90:.0f} ms, max {ms[-1]:.0f} ms")


if __name__ == "__main__":
    main()
