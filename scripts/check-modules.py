#!/usr/bin/env python3
"""The module map holds (docs/architecture.md): Package.swift declares Herald's modules so that each depends only on
modules declared above it; a file imports only modules its target declares as dependencies; and
docs/architecture.md's table names each module's dependencies exactly and its text presents every module of
Sources/ in that same order. Run by scripts/test.sh; prints what breaks
the map and exits 1.

    scripts/check-modules.py
"""
import json, os, re, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
targets = package["targets"]
names = {target["name"] for target in targets}
problems = []


def dependencies(target):
    found = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dependency:
                found.add(dependency[kind][0])
    return found & names


def folder(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])


# 1. The modules of Sources/ in declaration order; each depends only on modules above it.
modules = [t for t in targets if t["type"] != "test" and not t.get("path")]
order = [t["name"] for t in modules]
for index, target in enumerate(modules):
    for dependency in sorted(dependencies(target)):
        if dependency not in order[:index]:
            problems.append(f"Package.swift: {target['name']} depends on {dependency}, declared below it")

# 2. Every import of a module of this package is a declared dependency of the importing target.
imports = re.compile(r"^\s*(?:@testable\s+|@_exported\s+|public\s+|package\s+|internal\s+)*import\s+(\w+)", re.M)
for target in targets:
    allowed = dependencies(target) | {target["name"]}
    base = os.path.join(root, folder(target))
    for directory, _, files in os.walk(base, followlinks=True):
        for file in files:
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            for module in imports.findall(open(path, encoding="utf-8").read()):
                if module in names and module not in allowed:
                    problems.append(f"{os.path.relpath(path, root)} imports {module}, which {target['name']} does not depend on")

# 3. docs/architecture.md presents every module of Sources/ (as **Name**), in Package.swift's order.
text = open(os.path.join(root, "docs/architecture.md"), encoding="utf-8").read()
text = text.split("\n## ", 1)[0]  # the map is the first part; later sections may name modules again
presented = []
for name in re.findall(r"\*\*([A-Za-z0-9-]+)\*\*", text):
    if name in order and name not in presented:
        presented.append(name)
missing = [name for name in order if name not in presented]
if missing:
    problems.append(f"docs/architecture.md does not present {', '.join(missing)}")
expected = [name for name in order if name in presented]
if presented != expected:
    problems.append(f"docs/architecture.md presents the modules as {presented}; Package.swift declares them as {expected}")

# 4. Its table of modules names each module's Herald dependencies exactly, in Package.swift's order.
by_name = {target["name"]: target for target in modules}
table = {}
for name, uses in re.findall(r"^\| `([A-Za-z0-9-]+)` \| (.*) \|$", text, re.M):
    table[name] = re.findall(r"`([A-Za-z0-9-]+)`", uses)
if list(table) != order:
    problems.append(f"docs/architecture.md's table lists {list(table)}; Package.swift declares {order}")
for name, uses in table.items():
    if name in by_name:
        declared = [module for module in order if module in dependencies(by_name[name])]
        if uses != declared:
            problems.append(f"docs/architecture.md's table says {name} uses {uses}; Package.swift says {declared}")

for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"module map: {len(order)} modules in order, every import declared")
