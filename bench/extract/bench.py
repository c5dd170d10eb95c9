#!/usr/bin/env python3
"""`make bench-extract`: score `browser_extract` on the real shop pages of
../shared/datasets/products-dev (score.py there, unchanged) and time the
extraction of each page; then the precision view: per attribute F1,
precision and recall, the precision and recall of each availability value
(InStock, OutOfStock) beside Zyte's published figures, and the pages where a
value was given and is wrong listed apart from those where it is missing.

usage: bench.py HALLEY_BIN [--dump FILE] [score.py options, e.g. --show-errors]

score.py runs one `halley tools script` session (navigate, extract, navigate,
...). It is given a wrapper in place of the binary that forwards everything and
stamps each result line as it arrives: an extraction's time is from the
navigate result to the extract result (the call alone: navigation excluded).
The wrapper also keeps the result lines, which this script scores again the
way score.py does (same matching) to break the figures down. `--dump FILE`
writes every page's extraction (data, sources, confidence, notes) and its
annotation as JSON, for looking at the misses. Some annotations say
something else than the page shows (peso prices read with the thousands dot
as decimals, a stock state the page contradicts): `corrections.json` lists
them, each with what the page shows, and the figures are given twice, against
the annotations as they are and against what a user sees.
"""
import json, os, statistics, subprocess, sys, tempfile, time
from decimal import Decimal, InvalidOperation

HERE = os.path.dirname(os.path.abspath(__file__))
DATASET = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "datasets", "products-dev"))
# Zyte's published F1 (the figures this bench has always shown) and the
# first figures of issue 13.
PUBLISHED = {"price": (0.93, 0.80), "sku": (0.89, 0.30), "availability": (0.92, 0.56)}
# Zyte's published precision and recall of each availability value, on the
# benchmark's 140 pages (its README; per-page figures of the development half
# are not published).
ZYTE_VALUES = {"InStock": (0.970, 0.985), "OutOfStock": (0.714, 0.556)}


def wrapped(real, stamps, lines):
    """Run the real binary as score.py would, stamping and keeping each stdout line."""
    p = subprocess.Popen([real] + sys.argv[3:], stdout=subprocess.PIPE, text=True)
    with open(stamps, "w") as log, open(lines, "w") as kept:
        for line in p.stdout:
            log.write(f"{time.monotonic():.6f}\n")
            log.flush()
            kept.write(line)
            sys.stdout.write(line)
            sys.stdout.flush()
    return p.wait()


def availability(v):
    """score.py's reading of an availability value."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "InStock" if v else "OutOfStock"
    s = str(v).lower().replace(" ", "").replace("_", "")
    if any(w in s for w in ("outofstock", "soldout", "unavailable", "discontinued", "false")):
        return "OutOfStock"
    if any(w in s for w in ("instock", "available", "true", "limitedavailability", "onlineonly", "preorder")):
        return "InStock"
    return str(v)


def decimal(v):
    try:
        return Decimal(str(v)).normalize() if v is not None else None
    except InvalidOperation:
        return None


def predictions(lines_file, ids):
    """Each page's extraction output (score.py's pairing: navigate, extract)."""
    with open(lines_file) as f:
        lines = [json.loads(l) for l in f if l.strip().startswith("{")]
    out = {}
    for k, i in enumerate(ids):
        r = lines[2 * k + 1] if 2 * k + 1 < len(lines) else {}
        d = r.get("data") or {}
        out[i] = d if isinstance(d, dict) else {}
    return out


def values_of(d):
    vals = d.get("data", d)
    return vals if isinstance(vals, dict) else {}


def score(gt, outputs):
    """F1 per attribute, per availability value, and the wrong / missing pages."""
    report = {}
    for attr in ("price", "sku", "availability"):
        tp = fp = fn = 0
        wrong, missing = [], []
        for i, truth in gt.items():
            raw = values_of(outputs.get(i, {})).get(attr)
            if attr == "price":
                p, true = decimal(raw), {Decimal(x).normalize() for x in truth.get(attr, [])}
            elif attr == "availability":
                p, true = availability(raw), set(truth.get(attr, []))
            else:
                p, true = (None if raw is None else str(raw)), set(truth.get(attr, []))
            if p is None:
                fn += 1 if true else 0
                if true:
                    missing.append((i, sorted(map(str, true)), None))
            elif p in true:
                tp += 1
            else:
                fp += 1
                fn += 1 if true else 0
                wrong.append((i, sorted(map(str, true)), p))
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        report[attr] = {"f1": f1, "precision": prec, "recall": rec, "wrong": wrong, "missing": missing}
    per_value = {}
    for value in ("InStock", "OutOfStock"):
        said = right = truly = 0
        for i, truth in gt.items():
            p = availability(values_of(outputs.get(i, {})).get("availability"))
            t = value in truth.get("availability", [])
            said += p == value
            right += p == value and t
            truly += t
        per_value[value] = {"said": said, "right": right, "pages": truly,
                            "precision": right / said if said else None, "recall": right / truly if truly else None}
    report["values"] = per_value
    return report


def corrected(gt):
    """The annotations with corrections.json applied: what a user sees."""
    with open(os.path.join(HERE, "corrections.json")) as f:
        fixes = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
    out = json.loads(json.dumps(gt))
    for i, fix in fixes.items():
        if i not in out:
            continue
        for attr in ("price", "availability", "sku"):
            if attr in fix:
                out[i][attr] = [fix[attr]]
    return out, fixes


def notes_for(output, attr):
    notes = output.get("notes") or []
    return [n for n in notes if isinstance(n, str) and n.startswith(attr + ":")]


def show_values(report):
    print("availability   said  right  pages  precision  recall   Zyte precision  Zyte recall (published, 140 pages)")
    for value, v in report["values"].items():
        zp, zr = ZYTE_VALUES[value]
        fmt = lambda x: "  -  " if x is None else f"{x:.3f}"
        print(f"{value:13} {v['said']:>5}  {v['right']:>5}  {v['pages']:>5}  {fmt(v['precision']):>9}  {fmt(v['recall']):>6}"
              f"   {zp:>14.3f}  {zr:>11.3f}")


def show_user(report):
    """The figures against what the pages show (corrections.json)."""
    print()
    print("as a user sees the pages (the annotations with bench/extract/corrections.json):")
    print("attribute      F1     precision  recall")
    for attr in ("price", "availability", "sku"):
        r = report[attr]
        print(f"{attr:13}  {r['f1']:.3f}  {r['precision']:.3f}      {r['recall']:.3f}")
    show_values(report)


def show(report, gt, outputs):
    print()
    print("attribute      F1     precision  recall   Zyte F1 (published)  before (issue 13)")
    for attr in ("price", "availability", "sku"):
        r, (zyte, before) = report[attr], PUBLISHED[attr]
        print(f"{attr:13}  {r['f1']:.3f}  {r['precision']:.3f}      {r['recall']:.3f}    {zyte:>17.2f}  {before:>17.2f}")
    print()
    show_values(report)
    for attr in ("price", "availability", "sku"):
        r = report[attr]
        print(f"\n{attr}: {len(r['wrong'])} page(s) with a wrong value, {len(r['missing'])} with none")
        for i, true, got in r["wrong"]:
            got = format(got, "f") if isinstance(got, Decimal) else got
            print(f"  wrong    {i[:12]}  expected {true} got {got!r}")
            for n in notes_for(outputs.get(i, {}), attr)[:2]:
                print(f"             {n[:150]}")
        for i, true, _ in r["missing"]:
            print(f"  missing  {i[:12]}  expected {true}")
            for n in notes_for(outputs.get(i, {}), attr)[:2]:
                print(f"             {n[:150]}")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--wrap":
        real = sys.argv[2]
        sys.exit(wrapped(real, os.environ["HALLEY_BENCH_STAMPS"], os.environ["HALLEY_BENCH_LINES"]))
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    real = os.path.abspath(sys.argv[1])
    rest = sys.argv[2:]
    dump = None
    if "--dump" in rest:
        k = rest.index("--dump")
        if k + 1 >= len(rest):
            sys.exit("bench-extract: --dump needs a file")
        dump = rest[k + 1]
        rest = rest[:k] + rest[k + 2:]
    score_py = os.path.join(DATASET, "score.py")
    if not os.path.exists(score_py):
        sys.exit(f"bench-extract: {score_py} not found (the products-dev dataset)")
    gt = json.load(open(os.path.join(DATASET, "ground-truth.json")))
    ids = sorted(gt)
    work = tempfile.mkdtemp(prefix="bench-extract-")
    stamps = os.path.join(work, "stamps")
    kept = os.path.join(work, "lines")
    wrapper = os.path.join(work, "halley")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec "{sys.executable}" "{os.path.abspath(__file__)}" --wrap "{real}" "$@"\n')
    os.chmod(wrapper, 0o755)
    # Saved pages name their sites' hosts: those fail at once (no network
    # here), as in bench/browse, instead of each load waiting on them.
    chromium = os.path.join(work, "chromium")
    with open(chromium, "w") as f:
        real_chromium = os.environ.get("HALLEY_CHROMIUM") or "/usr/bin/chromium"
        f.write(f'#!/bin/sh\nexec {real_chromium} --host-resolver-rules="MAP * ~NOTFOUND , EXCLUDE 127.0.0.1" "$@"\n')
    os.chmod(chromium, 0o755)
    env = dict(os.environ, HALLEY_BENCH_STAMPS=stamps, HALLEY_BENCH_LINES=kept, HALLEY_CHROMIUM=chromium)
    out = subprocess.run([sys.executable, score_py, wrapper] + rest, capture_output=True, text=True, env=env)
    sys.stdout.write(out.stdout)
    sys.stderr.write(out.stderr)
    if out.returncode != 0:
        sys.exit(out.returncode)
    outputs = predictions(kept, ids)
    show(score(gt, outputs), gt, outputs)
    user_gt, fixes = corrected(gt)
    show_user(score(user_gt, outputs))
    print(f"  ({len(fixes)} annotations corrected: " + ", ".join(f"{i[:12]} {next(k for k in v if k != 'why')}" for i, v in fixes.items()) + ")")
    if dump:
        with open(dump, "w") as f:
            json.dump({i: {"truth": gt[i], "output": outputs.get(i, {})} for i in ids}, f, ensure_ascii=False, indent=1)
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
