#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md names a file or folder of the repository. Run by scripts/test.sh."""
import glob, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
broken = []
for page in ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root)):
    folder = os.path.dirname(os.path.join(root, page))
    text = open(os.path.join(root, page), encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target and not target.startswith("mailto:") and not os.path.exists(os.path.join(folder, target)):
            broken.append(f"{page}: {target}")
for link in broken:
    print(f"broken link in {link}", file=sys.stderr)
sys.exit(1 if broken else 0)
