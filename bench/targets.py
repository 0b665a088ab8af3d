"""Issue 24's targets, in one place, and the verdict of runs of bench/run against them.

bench/run imports this module: each section records its figures (`record`) as it prints them, and the run ends with
its verdict (`python3 bench/targets.py verdict OUT`): each figure held or missed, and the most CPU time the
hypervisor stole in any section. bench/tally reads the verdicts of many runs' logs (`tally`).
"""

import re
import statistics
import sys

# key: (figure, "<=" or ">=", limit, unit). The figure is tether's median (the medians of interleaved runs, as the
# issue measures them); (b)'s speed is the time the check adds, from the medians of three commands.
TARGETS = {
    "a16": ("(a) 2,000 contracts --jobs 16 / curl --parallel --parallel-max 16", "<=", 0.85, "x"),
    "a1": ("(a) 2,000 contracts --jobs 1 / curl sequential", "<=", 0.65, "x"),
    "d": ("(d) one tiny contract / one curl request", "<=", 1.3, "x"),
    "e": ("(e) 100,000 contracts / curl", "<=", 0.9, "x"),
    "eg": ("(e) 100,000 contracts / 2,000", "<=", 50, "x"),
    "em": ("(e) peak memory at 100,000 / the manifest's bytes", "<=", 1.4, "x"),
    "b": ("(b) 20 MB body: what the check adds", ">=", 1500, "MB/s"),
    "bm": ("(b) 20 MB body: memory above a 1-target run / the body", "<=", 1.2, "x"),
    "h": ("(h) 2,000 contracts at 5 git tags / at one tag", "<=", 1.3, "x"),
    "i": ("(i) Swift API / the CLI, 2,000 targets", "<=", 1.0, "x"),
}
# A section run at more stolen CPU than this is run again, not counted (issue 24's "done when").
STOLEN_LIMIT = 15

VERDICT = re.compile(r"^  (held|MISSED) +(\w+) +(-?[\d.]+|inf) ")
STOLEN = re.compile(r"^  stolen +(\d+) % ")


def limit(key):
    """The target as the figures' lines print it: `target <= 0.85`."""
    _, op, value, unit = TARGETS[key]
    return f"{op} {value:,}" + ("" if unit == "x" else f" {unit}")


def held(key, value):
    _, op, target, _ = TARGETS[key]
    return value <= target if op == "<=" else value >= target


def record(out, key, value):
    """Keeps one figure of this run for its verdict (a figure measured twice keeps its last), or with the key
    `stolen`, a section's share of stolen CPU time in per cent (the verdict keeps the most)."""
    with open(f"{out}/figures.tsv", "a") as figures:
        figures.write(f"{key}\t{value!r}\n")


def verdict(out):
    """Prints each recorded figure against its target, then how many held."""
    figures, stolen = {}, 0.0
    try:
        with open(f"{out}/figures.tsv") as lines:
            for line in lines:
                key, value = line.split("\t")
                if key == "stolen":
                    stolen = max(stolen, float(value))
                else:
                    figures[key] = float(value)
    except FileNotFoundError:
        pass
    print("== verdict: issue 24's targets, by this run's medians (bench/targets.py)")
    for key, (figure, _, _, unit) in TARGETS.items():
        if key in figures:
            value = figures[key]
            mark = "held" if held(key, value) else "MISSED"
            print(f"  {mark:6s} {key:4s} {value:10.3f} {unit:4s} target {limit(key):14s} {figure}")
        else:
            print(f"  {'-':6s} {key:4s} {'':10s} {'':4s} target {limit(key):14s} {figure} (section not run)")
    counted = [key for key in TARGETS if key in figures]
    print(f"  stolen {stolen:.0f} % of the CPU time at most, in a section (one above {STOLEN_LIMIT} % is to be run again)")
    print(f"  {sum(held(key, figures[key]) for key in counted)} of {len(counted)} targets held")


def tally(paths):
    """Across runs' logs: in how many runs each target held, the median and range of its figure, and how many runs
    held every target. A run with a section above STOLEN_LIMIT % stolen CPU is left out, as the issue says."""
    runs, skipped = [], []
    for path in paths:
        figures, stolen = {}, 0
        with open(path) as log:
            for line in log:
                if match := VERDICT.match(line):
                    figures[match[2]] = float(match[3])
                elif match := STOLEN.match(line):
                    stolen = max(stolen, int(match[1]))
        if not figures:
            skipped.append(f"{path}: no verdict (an unfinished run, or a log of bench/run before bench/targets.py)")
        elif stolen > STOLEN_LIMIT:
            skipped.append(f"{path}: {stolen} % stolen CPU in a section (more than {STOLEN_LIMIT} %)")
        else:
            runs.append((path, figures))
    for reason in skipped:
        print(f"left out: {reason}")
    if not runs:
        print("no run to count")
        return 1
    print(f"{len(runs)} runs")
    print(f"  {'':4s} {'held in':>10s} {'median':>10s} {'range':>21s}  {'target':14s} figure")
    for key, (figure, _, _, unit) in TARGETS.items():
        values = [figures[key] for _, figures in runs if key in figures]
        if not values:
            continue
        count = f"{sum(held(key, value) for value in values)} of {len(values)}"
        spread = f"{min(values):.3f}-{max(values):.3f}"
        print(f"  {key:4s} {count:>10s} {statistics.median(values):10.3f} {spread:>21s}  {limit(key):14s} {figure}"
              + ("" if unit == "x" else f" ({unit})"))
    every = [path for path, figures in runs if all(key in figures and held(key, figures[key]) for key in TARGETS)]
    whole = sum(all(key in figures for key in TARGETS) for _, figures in runs)
    print(f"every target held in {len(every)} of the {whole} runs of every section"
          + (f": {', '.join(every)}" if every else ""))
    return 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "verdict" and len(sys.argv) == 3:
        verdict(sys.argv[2])
    elif command == "tally" and len(sys.argv) > 2:
        sys.exit(tally(sys.argv[2:]))
    else:
        sys.exit("usage: targets.py verdict OUT | targets.py tally LOG ...")
