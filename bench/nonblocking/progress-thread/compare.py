# Side by side: native and weft overlap (percent) and pure times (us), thread off and on.
# usage: python3 compare.py sleep|busy [DIR]
import sys,re
mode=sys.argv[1]; d=sys.argv[2] if len(sys.argv)>2 else '.'
def parse(f):
    out={}; coll=None
    for l in open(f):
        m=re.match(r'# (\w+) overlap',l)
        if m: coll=m.group(1); continue
        if coll and re.match(r'\s+\d',l):
            p=l.split(); out[(coll,int(p[0]))]=(float(p[1]),float(p[2]),float(p[3]),float(p[4]))
    return out
a=parse(f'{d}/{mode}-thread-off.txt'); b=parse(f'{d}/{mode}-thread-on.txt')
print(f"{'coll':15s} {'size':>8s} {'nat%':>6s} {'off%':>6s} {'on%':>6s} | {'nat_us':>9s} {'off_us':>9s} {'on_us':>9s}")
for k in a:
    if k in b and k[0] != 'alltoallv': print(f"{k[0]:15s} {k[1]:8d} {a[k][1]:6.1f} {a[k][3]:6.1f} {b[k][3]:6.1f} | {a[k][0]:9.2f} {a[k][2]:9.2f} {b[k][2]:9.2f}")
