# analyze.py DIR: the figures of compare-go-tpc.sh's runs: New-Orders per
# minute, client CPU seconds per 1,000 New-Orders, the lowest 1 s tick of
# New-Orders after the first 10 s over the median tick, retries per 1,000
# transactions and errors; go-tpc's from its summary lines. With
# BENCHRIG2's runs (cmp-b2-*), a line for each build, each against the
# round's go-tpc run, and b2's CPU per New-Order over br's.
import json,re,statistics,os,sys
os.chdir(sys.argv[1])
def br(f):
    d=json.load(open(f+'.json'))
    u,s=map(float,open(f+'.time').read().split()[1:3])
    no=[t for t in d['transactions'] if t.get('name')=='newOrder'] if isinstance(d['transactions'],list) else None
    ticks=[json.loads(l) for l in open(f+'.ticks.jsonl')]
    nt=[t for t in ticks if t.get('name')=='newOrder' and t.get('phase')=='run']
    per=[t['count']/t['interval_s']*60 for t in nt if t['elapsed_s']>10]
    med=statistics.median(per)
    nocount=d['tpmc']*d['elapsed_s']/60
    errs=sum(t.get('errors',0) for t in d['transactions']) if isinstance(d['transactions'],list) else 0
    return d['tpmc'],(u+s)*1000/nocount,min(per)/med,d['retries_per_1000'],errs
def gt(f):
    txt=open(f+'.out').read()
    tpmc=float(re.search(r'tpmC: ([\d.]+)',txt).group(1))
    cnt=int(re.search(r'\[Summary\] NEW_ORDER - .*?Count: (\d+)',txt).group(1))
    u,s=map(float,open(f+'.time').read().split()[1:3])
    errs=sum(int(x) for x in re.findall(r'\[Summary\] \w+_ERR - .*?Count: (\d+)',txt))
    return tpmc,(u+s)*1000/cnt,errs
rounds=sorted({f.split('-')[3].split('.')[0] for f in os.listdir('.') if f.startswith('cmp-') and f.count('-')==3}, key=int)
for lvl in ['RC','RR','SER']:
    for r in rounds:
        g='cmp-gt-%s-%s'%(lvl,r)
        have_g=os.path.exists(g+'.time')
        if have_g: t2,c2,e2=gt(g)
        cpu={}
        for tag in ['br','b2']:
            b='cmp-%s-%s-%s'%(tag,lvl,r)
            line='%s %s %s'%(lvl,r,tag)
            if os.path.exists(b+'.json'):
                t,c,mn,rp,e=br(b); cpu[tag]=c
                line+=' tpmC %.0f cpu %.2fs/1kNO mintick/med %.2f retries/1k %.0f errs %d'%(t,c,mn,rp,e)
                if have_g: line+=' | gt tpmC %.0f cpu %.2fs/1kNO errs %d | ratio %.2fx cpu %.2fx'%(t2,c2,e2,t/t2,c/c2)
                print(line)
        if 'br' not in cpu and have_g: print('%s %s gt tpmC %.0f cpu %.2fs/1kNO errs %d'%(lvl,r,t2,c2,e2))
        if 'br' in cpu and 'b2' in cpu: print('%s %s b2/br cpu per New-Order %.2fx'%(lvl,r,cpu['b2']/cpu['br']))
