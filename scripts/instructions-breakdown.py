#!/usr/bin/env python3
"""The gateway's instructions per notification, taken apart, from callgrind's counts over one load
(scripts/bench-gateway.sh with INSTRUCTIONS=1 runs it):

    scripts/instructions-breakdown.py CALLGRIND_OUT NOTIFICATIONS

CALLGRIND_OUT is a callgrind dump of `herald serve` covering exactly the load of NOTIFICATIONS requests. Unlike
time, these counts repeat from run to run whatever else the machine does (the kernel's share is not in them). Prints
the total per notification, each part's share (scripts/cost_parts.py's parts), the functions that execute most
themselves, and Herald's own functions by what they cost with what they call.
"""
import os, re, subprocess, sys
from collections import defaultdict

from cost_parts import part_of

callgrind_out, notifications = sys.argv[1], int(sys.argv[2])


def read_counts(path):
    """(self instructions by (object, function), inclusive instructions by function, the dump's total).

    callgrind's format: `ob=`/`fn=` name the current object and function ("(id) name" the first time, "(id)" after);
    a line of numbers is "position cost"; the line after `calls=` is what that call cost, its callee included."""
    names = {"ob": {}, "fn": {}, "cfn": {}}
    self_cost, inclusive = defaultdict(int), defaultdict(int)
    total, obj, fn, after_call, callee = 0, "?", "?", False, None

    def resolve(kind, value):
        match = re.match(r"\((\d+)\)(?: (.*))?", value)
        if not match:
            return value
        table = names["fn"] if kind in ("fn", "cfn") else names[kind]
        if match.group(2) is not None:
            table[match.group(1)] = match.group(2)
        return table.get(match.group(1), value)

    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        if line[0].isdigit() or line[0] in "+-*":
            cost = int(line.split()[1]) if len(line.split()) > 1 else 0
            if after_call:
                if callee != fn:
                    inclusive[fn] += cost
                after_call = False
            else:
                self_cost[(obj, fn)] += cost
                inclusive[fn] += cost
            continue
        key, _, value = line.partition("=")
        if key == "ob":
            obj = os.path.basename(resolve("ob", value))
        elif key == "fn":
            fn = resolve("fn", value)
        elif key == "cfn":
            callee = resolve("cfn", value)
        elif key == "cob":
            resolve("ob", value)
        elif key == "calls":
            after_call = True
        elif line.startswith(("summary:", "totals:")):
            total = max(total, int(line.split()[1]))
    return self_cost, inclusive, total


def demangled(symbols):
    result = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(symbols),
                            capture_output=True, text=True)
    lines = result.stdout.splitlines()
    return lines if result.returncode == 0 and len(lines) == len(symbols) else list(symbols)


self_cost, inclusive, total = read_counts(callgrind_out)
total = total or sum(self_cost.values())
per = lambda count: count / notifications

parts = defaultdict(int)
for (obj, fn), cost in self_cost.items():
    parts[part_of(f"{obj} {fn}", f"other ({obj})")] += cost

print(f"instructions per notification: {per(total):,.0f} ({total:,} over {notifications:,} notifications; user space, "
      "every thread)")
print(f"  {'part':<50} {'share':>7} {'instr/notif':>12}")
for part, cost in sorted(parts.items(), key=lambda item: -item[1]):
    print(f"  {part:<50} {cost / total * 100:6.1f}% {per(cost):12,.0f}")

top = sorted(self_cost.items(), key=lambda item: -item[1])[:25]
print("the 25 functions that execute most instructions themselves:")
for ((obj, _), cost), name in zip(top, demangled([fn for (_, fn), _ in top])):
    print(f"  {cost / total * 100:5.2f}% {per(cost):8,.0f}  {obj}: {name[:100]}")

own = sorted(((cost, fn) for fn, cost in inclusive.items() if re.search(r"\d+Herald(Gateway|Wire|Store)", fn)),
             reverse=True)[:25]
print("Herald's functions with what they call (inclusive; a caller includes its callees):")
for (cost, _), name in zip(own, demangled([fn for _, fn in own])):
    print(f"  {cost / total * 100:5.1f}% {per(cost):8,.0f}  {name[:110]}")
