#!/usr/bin/env python3
"""check-moved.py: every figure a README's Performance section held is in docs/measure.

Extracts each number with a unit, ratio or percent sign (and each bare number of
three or more digits) from the Performance section of README.md at REV, and
looks for it, whitespace-normalized, in docs/measure/*.md of the working tree.
Prints the counts and every figure not found; exits 1 if one is missing.

    python3 docs/measure/check-moved.py 2af830a
"""
import glob, re, subprocess, sys

rev = sys.argv[1] if len(sys.argv) > 1 else "HEAD"
old = subprocess.run(["git", "show", f"{rev}:README.md"], capture_output=True, text=True, check=True).stdout
m = re.search(r"^## Performance\n(.*?)^## ", old, re.S | re.M)
perf = m.group(1)
docs = " ".join(open(f).read() for f in sorted(glob.glob("docs/measure/*.md")))
docs = re.sub(r"\s+", " ", docs)

NUM = r"\d[\d,]*(?:\.\d+)?k?"
UNIT = r"(?:×|x\b|%|kB\b|MB\b|GB\b|GiB\b|MiB\b|KiB\b|B\b|ms\b|us\b|s\b|min\b|h\b|tpmC\b|rows/s\b|MB/s\b)"
with_unit = re.compile(rf"{NUM}(?:\s?[–-]\s?{NUM})?\s?{UNIT}")
bare = re.compile(r"(?<![\w.,])\d[\d,]{2,}(?:\.\d+)?(?![\w,])")

def norm(s): return re.sub(r"\s+", " ", s)
figs = sorted(set(norm(x) for x in with_unit.findall(perf)))
nums = sorted(set(bare.findall(perf)) - set(figs))
missing = [f for f in figs + nums if f not in docs]
print(f"{len(figs)} figures with a unit or ratio, {len(nums)} further bare numbers in {rev}:README.md's Performance section")
print(f"{len(figs) + len(nums) - len(missing)} found in docs/measure/*.md, {len(missing)} missing")
for f in missing: print("  missing:", f)
sys.exit(1 if missing else 0)
