#!/usr/bin/env python3
"""Checks that a device showed every notification answered 200 exactly once (for the crash scripts).

    scripts/shown-once.py ACCEPTED DEVICE_JSONL FIRST_LINE [LABEL [EXTRA]]

ACCEPTED holds one apns-id per line (herald-bench flood writes each 200 there as it arrives); DEVICE_JSONL is
`herald device --json` output, read from line FIRST_LINE on. Waits up to 60 s for the device to show every accepted
id, then prints one line (LABEL first, EXTRA last) and exits 1 on a missing or doubled notification.
"""
import json
import sys
import time

accepted_path, device_path, first_line = sys.argv[1], sys.argv[2], int(sys.argv[3])
label = sys.argv[4] + ": " if len(sys.argv) > 4 else "  "
extra = "; " + sys.argv[5] if len(sys.argv) > 5 else ""
accepted = [line.strip() for line in open(accepted_path) if line.strip()]
deadline = time.time() + 60
while True:
    lines = open(device_path).read().splitlines()[first_line:]
    events = [json.loads(line) for line in lines if line.strip()]
    shown = [event["apnsID"] for event in events if event["event"] == "notification"]
    missing = set(accepted) - set(shown)
    if not missing or time.time() > deadline:
        break
    time.sleep(0.2)
counts = {}
for apns_id in shown:
    counts[apns_id] = counts.get(apns_id, 0) + 1
twice = [apns_id for apns_id, count in counts.items() if count > 1]
unanswered = len(set(shown) - set(accepted))
print(f"{label}answered 200: {len(accepted)}; shown: {len(set(accepted) & set(shown))}; missing: {len(missing)}; "
      f"shown twice: {len(twice)}; shown without a 200 seen (warm-ups, answers lost): {unanswered}{extra}")
if missing:
    print("  missing, first few: " + " ".join(sorted(missing)[:5]))
if twice:
    print("  shown twice, first few: " + " ".join(sorted(twice)[:5]))
sys.exit(1 if missing or twice else 0)
