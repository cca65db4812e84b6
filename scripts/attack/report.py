"""Measuring the gateway and the machine around an attack, and the rows and tables printed from it."""
import json
import os
import re
import resource
import time
import urllib.error
import urllib.request

from attack.catalog import ATTACKS, port_label


def cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def fd_count(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def machine_cpu_seconds():
    """CPU time (user + nice + system) the whole machine used, to tell what other processes took."""
    with open("/proc/stat") as stat:
        fields = stat.readline().split()
    return (int(fields[1]) + int(fields[2]) + int(fields[3])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class OtherCPU:
    """CPU seconds used on the machine by processes other than the gateway, herald-bench and the attacker (the
    orchestrator's reaped children) between start() and stop(): work someone else ran meanwhile (a build, tests)
    takes the cores the measurement needs, and makes its p99 worthless."""

    def __init__(self, pid):
        self.pid = pid
        self.machine, self.gateway, self.children = machine_cpu_seconds(), cpu_seconds(pid), children_cpu_seconds()
        self.own = time.process_time()

    def stop(self):
        gateway = cpu_seconds(self.pid)
        if gateway is None or self.gateway is None:
            return None
        return max(0.0, (machine_cpu_seconds() - self.machine) - (gateway - self.gateway)
                   - (children_cpu_seconds() - self.children) - (time.process_time() - self.own))


def io_bytes(pid):
    """(rchar, wchar): bytes the gateway read and wrote through system calls, sockets included."""
    try:
        with open(f"/proc/{pid}/io") as io:
            values = dict(line.split(":") for line in io)
        return int(values["rchar"]), int(values["wchar"])
    except (OSError, KeyError, ValueError):
        return None


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as refs:
            refs.write("5")  # resets VmHWM to the current RSS
    except OSError:
        pass


def metrics(options):
    url = f"http://127.0.0.1:{options.console_port}/metrics"
    request = urllib.request.Request(url)
    try:
        try:
            body = urllib.request.urlopen(request, timeout=5).read().decode()
        except urllib.error.HTTPError as error:
            if error.code not in (401, 403):
                raise
            with open(os.path.join(options.data, "admin-token")) as token:
                request.add_header("authorization", f"bearer {token.read().strip()}")
            body = urllib.request.urlopen(request, timeout=5).read().decode()
    except OSError:
        return {}
    values = {}
    for line in body.splitlines():
        if line.startswith("herald_") and "_bucket{" not in line:
            name, _, value = line.rpartition(" ")
            try:
                values[name] = float(value)
            except ValueError:
                pass
    return values


def metric_changes(before, after):
    lines = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name, 0.0), after.get(name, 0.0)
        if old != new:
            delta = new - old
            lines.append(f"{name} {f'{delta:+.0f}' if float(delta).is_integer() else f'{delta:+.4g}'}")
    return lines


def parse_bench(output):
    result = {"timed": None, "accepted": None, "delivered": None, "provider_p99": None, "device_p99": None,
              "outcomes": {}}
    match = re.search(r"timed (\d+) in [\d.]+ ms, accepted (\d+), delivered (\d+)", output)
    if match:
        result["timed"], result["accepted"], result["delivered"] = map(int, match.groups())
    match = re.search(r"^provider 200:.*?\bp99 ([\d.]+) ms", output, re.M)
    if match:
        result["provider_p99"] = float(match.group(1))
    match = re.search(r"^provider→device:.*?\bp99 ([\d.]+) ms", output, re.M)
    if match:
        result["device_p99"] = float(match.group(1))
    for count, outcome in re.findall(r"^\s+(\d+) × (.*)$", output, re.M):
        result["outcomes"][outcome] = int(count)
    return result


def bench_failures(bench):
    if bench["provider_p99"] is None or bench["timed"] is None:
        last = bench["output"].strip().splitlines()[-1:] or ["no output"]
        return [f"herald-bench failed (exit {bench['exit']}): {last[0][:200]}"]
    reasons = []
    if bench["provider_p99"] >= 20:
        reasons.append(f"provider p99 {bench['provider_p99']} ms ≥ 20 ms")
    if bench["accepted"] < bench["timed"]:
        reasons.append(f"{bench['timed'] - bench['accepted']} of {bench['timed']} not accepted {bench['outcomes']}")
    if bench["delivered"] < bench["accepted"]:
        reasons.append(f"{bench['accepted'] - bench['delivered']} accepted but not delivered")
    return reasons


def fmt_ms(value):
    return "-" if value is None else f"{value:.2f}" if value < 10 else f"{value:.0f}"


def fmt_s(value):
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def mib(kib):
    return "?" if kib is None else f"{kib / 1024:.1f}"


def bench_line(bench):
    if bench["timed"] is None:
        return "herald-bench: " + " | ".join(bench["output"].strip().splitlines()[-3:])
    outcomes = ", ".join(f"{count} × {outcome}" for outcome, count in bench["outcomes"].items())
    return (f"well-behaved: timed {bench['timed']}, accepted {bench['accepted']}, delivered {bench['delivered']}"
            f"{' (' + outcomes + ')' if outcomes else ''}; provider 200 p99 {fmt_ms(bench['provider_p99'])} ms, "
            f"provider→device p99 {fmt_ms(bench['device_p99'])} ms (herald-bench ran {bench['wall_s']:.1f} s)")


def row(name, bench=None, result=None, hwm=None, cpu=None, reasons=(), status=None, other=None):
    close = result["close_s"] if result else None
    return {
        "attack": name, "port": port_label(name) if name in ATTACKS else "-",
        "closed": f"{result['closed']}/{result['opened']}" if result else "-",
        "time_to_close": f"{fmt_s(close['min'])}/{fmt_s(close['median'])}/{fmt_s(close['max'])}" if close else "-",
        "provider_p99": fmt_ms(bench["provider_p99"]) if bench else "-",
        "device_p99": fmt_ms(bench["device_p99"]) if bench else "-",
        "accepted": f"{bench['accepted']}/{bench['delivered']} of {bench['timed']}" if bench and bench["timed"] is not None else "-",
        "peak_rss": f"{hwm / 1024:.0f}" if hwm else "-",
        "cpu": f"{cpu:.1f}" if cpu is not None else "-",
        "other_cpu": f"{other:.1f}" if other is not None else "-",
        "result": status or ("PASS" if not reasons else "FAIL"), "reasons": list(reasons),
    }


def gateway_log_tail(options):
    if options.gateway_log and os.path.exists(options.gateway_log):
        with open(options.gateway_log, errors="replace") as log:
            return "".join(log.readlines()[-30:])
    return ""


def print_other(other):
    if other is not None:
        print(f"   other processes on the machine: {other:.1f} CPU s"
              + (" (more than a little: this row's latencies are suspect; run it again on a quiet machine)"
                 if other >= OTHER_CPU_WARNING else ""))


OTHER_CPU_WARNING = 2.0


def print_summary(rows):
    headers = ["attack", "port", "closed/opened", "close s min/med/max", "prov p99 ms", "dev p99 ms",
               "accepted/delivered", "peak RSS MiB", "gw CPU s", "other CPU s", "result"]
    keys = ["attack", "port", "closed", "time_to_close", "provider_p99", "device_p99", "accepted", "peak_rss", "cpu",
            "other_cpu", "result"]
    widths = [max(len(header), *(len(str(each[key])) for each in rows)) for header, key in zip(headers, keys)]
    print("\n" + " | ".join(header.ljust(width) for header, width in zip(headers, widths)))
    print("-+-".join("-" * width for width in widths))
    for each in rows:
        print(" | ".join(str(each[key]).ljust(width) for key, width in zip(keys, widths)).rstrip())
    failed = [each for each in rows if each["result"] != "PASS"]
    print()
    for each in failed:
        print(f"{each['result']} {each['attack']}: {'; '.join(each['reasons'])}")
    busy = [each["attack"] for each in rows if each.get("other_cpu", "-") != "-" and float(each["other_cpu"]) >= OTHER_CPU_WARNING]
    if busy:
        print(f"other processes took {OTHER_CPU_WARNING:.0f}+ CPU s during: {', '.join(busy)}; their latencies are suspect")
    print(f"{len(rows) - len(failed)} of {len(rows)} passed (goal: provider p99 < 20 ms, every notification accepted "
          f"and delivered, the gateway alive, no attacking connection left open GRACE (15) s after its attack)", flush=True)


def summary(options):
    rows = []
    if os.path.exists(options.results):
        with open(options.results) as results:
            rows = [json.loads(line) for line in results if line.strip()]
    seen = {each["attack"] for each in rows}
    for name in [name for name in options.expect.split(",") if name]:
        if name not in seen:
            rows.append(row(name, reasons=["no result (the run of this attack failed)"], status="NO RESULT"))
    print_summary(rows)
    return 1 if not rows or any(each["result"] != "PASS" for each in rows) else 0
