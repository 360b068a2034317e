# analyze-hammerdb.py DIR: the figures of compare-hammerdb.sh's runs. Per
# run: New-Orders per minute counted by the server (sum(d_next_o_id) over
# the measured window), client and server CPU seconds per 1,000 New-Orders,
# the load average when the run ended (and HammerDB's own NOPM line, as a
# cross-check); then per tool the range, the ratio of each benchrig variant
# to HammerDB (medians), and the load phase (wall, client user+sys).
import os, re, statistics, sys

os.chdir(sys.argv[1])
runs = {}
for line in open('runs.txt'):
    f = line.split()
    name, hz = f[0], float(f[2])
    # NA: the tool had exited before the sample (its client CPU is unknown).
    s = [float('nan') if x == 'NA' else float(x) for x in f[4:8]]
    e = [float('nan') if x == 'NA' else float(x) for x in f[9:13]]
    secs = e[0] - s[0]
    no = e[1] - s[1]
    tool = name.rsplit('-', 1)[0]
    r = dict(name=name, nopm=no / secs * 60, secs=secs, no=no,
             client=(e[2] - s[2]) / hz * 1000 / no, server=(e[3] - s[3]) / hz * 1000 / no,
             load=f[14])
    if tool == 'hdb':
        m = re.search(r'achieved (\d+)', open(name + '.out').read())
        r['own'] = 'HammerDB says %s NOPM' % m.group(1) if m else ''
    else:
        r['own'] = ''
    runs.setdefault(tool, []).append(r)

print('| run | New-Orders/min | window s | client CPU s/1k NO | server CPU s/1k NO | load avg (1 min) | |')
print('|---|---|---|---|---|---|---|')
for tool in sorted(runs):
    for r in runs[tool]:
        print('| %s | %.0f | %.1f | %.3f | %.3f | %s | %s |' % (
            r['name'], r['nopm'], r['secs'], r['client'], r['server'], r['load'], r['own']))
print()
med = {t: {k: statistics.median([r[k] for r in rs if r[k] == r[k]] or [float('nan')]) for k in ('nopm', 'client', 'server')} for t, rs in runs.items()}
print('| tool | New-Orders/min (range) | client CPU s/1k NO | server CPU s/1k NO | vs HammerDB (medians): NOPM / client / server |')
print('|---|---|---|---|---|')
for tool in sorted(runs):
    rs = runs[tool]
    vals = lambda k: [r[k] for r in rs if r[k] == r[k]] or [float('nan')]
    rng = lambda k, fmt: '-'.join(fmt % v for v in sorted({min(vals(k)), max(vals(k))}))
    ratio = ''
    if tool != 'hdb' and 'hdb' in med:
        h, m = med['hdb'], med[tool]
        ratio = '%.2fx / %.2fx / %.2fx' % (m['nopm'] / h['nopm'], m['client'] / h['client'], m['server'] / h['server'])
    print('| %s | %s | %s | %s | %s |' % (tool, rng('nopm', '%.0f'), rng('client', '%.2f'), rng('server', '%.2f'), ratio))
print()
print('| load W=4 | wall s | client user+sys s |')
print('|---|---|---|')
loads = {}
for f in sorted(os.listdir('.')):
    m = re.match(r'load-(.+?)(-init|-load)?\.time$', f)
    if not m:
        continue
    w, u, s = [float(x) for x in open(f).read().split()[-3:]]
    t = loads.setdefault(m.group(1), [0, 0])
    t[0] += w
    t[1] += u + s
for tool, (w, c) in sorted(loads.items()):
    print('| %s | %.1f | %.2f |' % (tool, w, c))
