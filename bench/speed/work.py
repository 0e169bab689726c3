# CPU-bound workload recorded by bench/speed.sh: pure-Python text diffing and
# sorting (difflib, sorted with a key function) on generated lines, so the
# time goes to the interpreter itself (python3.11's eval loop, object and
# string code) rather than to a C extension.
#
# usage: python3 bench/speed/work.py CPU_SECONDS [SEED]
# Runs until the process has used CPU_SECONDS of CPU time, so a per-process
# cpu-clock recording gets the same number of samples on a busy machine.
import difflib
import random
import sys
import time

limit = float(sys.argv[1])
rnd = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
words = ["cache", "set", "line", "way", "hot", "cold", "text", "section",
         "order", "miss", "hit", "pad", "align", "span", "unit", "map"]


def lines(n):
    return ["%s %d %s %s" % (rnd.choice(words), rnd.randrange(1000),
                             rnd.choice(words), rnd.choice(words))
            for _ in range(n)]


while time.process_time() < limit:
    a = lines(400)
    b = list(a)
    for _ in range(40):
        b[rnd.randrange(len(b))] = " ".join(rnd.sample(words, 3))
    sum(1 for _ in difflib.unified_diff(a, b, lineterm=""))
    sorted(a, key=lambda s: s[::-1])
    "".join(sorted(set(" ".join(a).split())))
