#!/usr/bin/env python3
"""Known network attacks on a running TLS gateway, and what each does to everyone else.

    scripts/attack-network.sh          # starts a TLS `herald serve` and runs this against it

    attack-network.py run --provider-port P --device-port D --console-port C --gateway-pid PID \
        --data DATA_DIR --jwt JWT --bench HERALD_BENCH [--attacks a,b] [--seconds N] ...

For each attack (ATTACKS below), a worker process (this file, `worker ATTACK`, niced so that the attacker's own
Python does not take the CPU the gateway and the well-behaved traffic need: a real attacker is on another
machine) attacks one port from several connections that reconnect as soon as the gateway closes them, while
`herald-bench latency` sends 500 notifications/s to 10 devices over well-behaved connections. When the bench is
done (the attack window), the attacker opens no new connections but goes on attacking on the ones it holds for up
to GRACE (15) s; any connection the gateway has not closed by then is "left open". Measured per attack: the
bench's provider-200 p99, provider->device p99, accepted/delivered; the gateway's peak RSS (VmHWM, reset through
/proc/PID/clear_refs before the attack), RSS before/after, CPU seconds (utime+stime) during the window, open
descriptors; how many attacking connections the gateway closed, how long after they were opened, and what it said
(GOAWAY code and debug data, RST_STREAM codes, WebSocket close code and reason, HTTP status, or a bare FIN/RST);
the herald_* lines of /metrics that changed.

An attack fails when the provider p99 is >= 20 ms, a notification is not accepted or not delivered, the gateway
process is gone, or attacking connections are still open GRACE s after the window. Exit status 1 if any failed.

The attacks (each from --connections 8 connections unless said otherwise; "never reads" means the socket is not
read after the TLS handshake, with a 4 KiB SO_RCVBUF, and the gateway's close is seen in the TCP state or a failed
write; what it said is read from the receive buffer only after it closed):
  provider port, HTTP/2 over TLS (ALPN h2):
    rapid-reset         HEADERS (POST /3/device/<hex>, apns-topic, no JWT, END_STREAM) + RST_STREAM(CANCEL),
                        stream ids 1, 3, 5, … as fast as possible; reads (and acks SETTINGS)
    continuation-flood  HEADERS without END_HEADERS, its last header a literal whose value claims 256 MiB, then
                        CONTINUATION frames of one byte of that value, never END_HEADERS; reads
    hpack-bomb          one HEADERS frame: a 4,000-byte header inserted into the HPACK table, then ~12,000
                        references to it (0xbe, index 62), on new streams over and over; reads
    settings-flood      SETTINGS frames (3 parameters each) as fast as possible; never reads
    ping-flood          PING frames as fast as possible; never reads
    zero-window         SETTINGS_INITIAL_WINDOW_SIZE=0, then requests (HEADERS + DATA, bad JWT) continuously;
                        never reads
    zero-window-hold    SETTINGS_INITIAL_WINDOW_SIZE=0 and one request whose answer's DATA cannot be sent, then
                        nothing; never reads (a stalled stream, within the 1-stream limit before authentication)
    no-read             normal SETTINGS, requests (bad JWT) continuously; never reads
    slow-tls            --slow-connections 200: TCP, then a real ClientHello one byte a second
    idle-connections    --idle-connections 2000: half TCP only, half TLS + preface + SETTINGS then silent (they
                        read, and answer nothing, not even the SETTINGS ack); RSS per connection of each half
  device port, WebSocket over TLS (/v1/link; client frames masked):
    device-slow-tls     as slow-tls
    device-slow-upgrade TLS, then the upgrade request one byte a second; reads
    device-header-bomb  TLS, then an upgrade request whose X-Bomb header value never ends (64 KiB writes); reads
    device-ping-flood   upgrade, challenge, then PING frames of 125 bytes as fast as possible; never reads
    device-continuation-flood  upgrade, challenge, a text frame "{" without FIN, then empty continuation frames
                        without FIN forever; reads
    device-oversized    upgrade, challenge, a text frame announcing 1 GiB, then its bytes; reads
    device-bad-hello    upgrade, challenge, a hello with a real random P-256 public key (so the gateway has to run
                        a real ECDSA verify) and a random 64-byte signature; reads the close (1008 expected);
                        new connections as fast as possible
    device-idle         --device-idle-connections 2000 upgraded that never send the hello, and 2000 TCP only;
                        at least 15 s; RSS per connection of each kind
Every attacker reconnects as soon as the gateway closes its connection, during the window.

Standard library only (Python 3.11). Loopback only; everything is bounded in time.
"""
import argparse
import asyncio
import json
import os
import resource
import sys
import time

from attack.wire import TOPIC
from attack.catalog import ATTACKS, MIN_SECONDS, port_label
from attack.worker import Worker, vm_kib
from attack.report import (
    OtherCPU, alive, bench_failures, bench_line, cpu_seconds, fd_count, fmt_s, gateway_log_tail, io_bytes,
    metric_changes, metrics, mib, parse_bench, print_other, print_summary, reset_peak, row, summary,
)


async def run_bench(options, seconds):
    """`herald-bench latency`: 10 devices on TLS device links, 500 notifications/s over 4 HTTP/2 connections."""
    command = [
        options.bench, "latency", "--provider", f"https://localhost:{options.provider_port}", "--ca", options.ca,
        "--jwt", options.jwt, "--topic", TOPIC.decode(), "--device-gateway", f"https://localhost:{options.device_port}",
        "--devices", "10", "--rate", "500", "--seconds", str(seconds),
    ]
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.STDOUT)
    try:
        output, _ = await asyncio.wait_for(process.communicate(), seconds + 150)
    except asyncio.TimeoutError:
        process.kill()
        output, _ = await process.communicate()
        output += b"\n(herald-bench killed: no end within its time + 150 s)"
    text = output.decode("utf-8", "replace")
    result = parse_bench(text)
    result["exit"] = process.returncode
    result["output"] = text
    result["wall_s"] = time.monotonic() - started
    return result


async def tell(worker, command):
    try:
        worker.stdin.write(command.encode() + b"\n")
        await worker.stdin.drain()
    except (BrokenPipeError, ConnectionResetError, RuntimeError):
        pass


async def watch_gateway(options, worker, tripped):
    """During the window: abort the attack if the gateway is gone or its RSS passes the cap (the machine's memory
    is shared; a gateway that grows without bound would take it all)."""
    cap_kib = options.max_rss_mib * 1024
    while True:
        await asyncio.sleep(0.2)
        rss = vm_kib(options.gateway_pid, "VmRSS")
        if rss is None or not alive(options.gateway_pid):
            tripped.append("the gateway process is gone")
            await tell(worker, "ABORT")
            return
        if rss > cap_kib:
            tripped.append(f"gateway RSS {rss / 1024:.0f} MiB passed the {options.max_rss_mib} MiB cap: attack aborted")
            await tell(worker, "ABORT")
            return


async def run_attack(options, name):
    pid = options.gateway_pid
    seconds = max(options.seconds, MIN_SECONDS.get(name, 0))
    print(f"\n== {name} ({port_label(name)} port), {seconds} s", flush=True)
    before_metrics = metrics(options)
    rss_before, fds_before, io_before = vm_kib(pid, "VmRSS"), fd_count(pid), io_bytes(pid)
    reset_peak(pid)
    cpu_start = cpu_seconds(pid)
    others = OtherCPU(pid)
    nice = options.attacker_nice
    worker = await asyncio.create_subprocess_exec(
        sys.executable, os.path.abspath(__file__), "worker", name, "--provider-port", str(options.provider_port),
        "--device-port", str(options.device_port), "--gateway-pid", str(pid), "--ca", options.ca,
        "--connections", str(options.connections), "--slow-connections", str(options.slow_connections),
        "--idle-connections", str(options.idle_connections),
        "--device-idle-connections", str(options.device_idle_connections), "--grace", str(options.grace),
        "--max-seconds", str(seconds + 240),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        preexec_fn=(lambda: os.nice(nice)) if nice else None)
    result = bench = None
    reasons, tripped = [], []
    rss_ready = rss_window_end = fds_window_end = cpu_window = io_window = None

    async def read_line(prefix, timeout):
        deadline = time.monotonic() + timeout
        while True:
            line = await asyncio.wait_for(worker.stdout.readline(), max(0.1, deadline - time.monotonic()))
            if not line:
                return None
            if line.decode().startswith(prefix):
                return line.decode()[len(prefix):].strip()

    try:
        if await read_line("READY", 150) is None:
            raise RuntimeError("the attacker ended before it was ready")
        rss_ready = vm_kib(pid, "VmRSS")
        watch = asyncio.create_task(watch_gateway(options, worker, tripped))
        bench = await run_bench(options, seconds)
        watch.cancel()
        cpu_now, io_now = cpu_seconds(pid), io_bytes(pid)
        if cpu_now is not None and cpu_start is not None:
            cpu_window = cpu_now - cpu_start
        if io_now and io_before:
            io_window = (io_now[0] - io_before[0], io_now[1] - io_before[1])
        rss_window_end, fds_window_end = vm_kib(pid, "VmRSS"), fd_count(pid)
        await tell(worker, "STOP")
        line = await read_line("RESULT ", options.grace + 60)
        result = json.loads(line) if line else None
    except (asyncio.TimeoutError, RuntimeError, json.JSONDecodeError) as error:
        reasons.append(f"attacker failed: {error!r}")
    finally:
        if worker.returncode is None:
            try:
                await asyncio.wait_for(worker.wait(), 10)
            except asyncio.TimeoutError:
                worker.kill()
                await worker.wait()

    gone = not alive(pid)
    other = others.stop()
    hwm, rss_after = vm_kib(pid, "VmHWM"), vm_kib(pid, "VmRSS")
    # A moment for the gateway to let go of what the attacker has now closed, then count its descriptors.
    for _ in range(50):
        if gone or (fd_count(pid) or 0) <= (fds_before or 0) + 2:
            break
        await asyncio.sleep(0.1)
    fds_after = fd_count(pid)
    after_metrics = metrics(options) if not gone else {}

    if result:
        said = result["said"]
        for description, count in list(said.items())[:8]:
            print(f"   gateway closed {count} × {description}")
        if len(said) > 8:
            print(f"   … and {sum(list(said.values())[8:])} more in {len(said) - 8} other ways")
        if result["rst"]:
            print("   RST_STREAM from the gateway: " + ", ".join(f"{count} × {code}" for code, count in result["rst"].items()))
        if result["server_frames"]:
            print("   frames from the gateway (read, or drained after the close): "
                  + ", ".join(f"{count} {kind}" for kind, count in sorted(result["server_frames"].items())))
        close = result["close_s"]
        print(f"   attacking connections: opened {result['opened']}, closed by the gateway {result['closed']}"
              + (f" ({fmt_s(close['min'])} / {fmt_s(close['median'])} / {fmt_s(close['max'])} s after opening, "
                 "min/median/max)" if close else "")
              + f"; open when the window ended {result['open_at_stop']}; "
              + (f"still open {result['grace_s']:.1f} s later {result['left_open']}" if not result["aborted"]
                 else f"attack aborted, {result['left_open']} closed by the attacker"))
        for description, count in result["left_open_said"].items():
            print(f"   {'left open' if not result['aborted'] else 'open at the abort'}: {count} × {description}")
        for stage in result["stages"]:
            per = stage["kib_per_connection"]
            print(f"   {stage['group']}: {stage['open']} open; gateway RSS {mib(stage['rss_before_kib'])} → "
                  f"{mib(stage['rss_after_kib'])} MiB" + (f", {per} KiB per connection" if per is not None else ""))
        if result["connect_failures"]:
            print(f"   connect failures: {result['connect_failures']}")
        if result["setup_timeouts"]:
            print(f"   setups (TLS, preface, upgrade) not done within 15 s: {result['setup_timeouts']}")
        if result["errors"]:
            print(f"   attacker errors: {result['errors']}")
        print(f"   attacker: sent {result['window_bytes_sent'] / 1e6:.1f} MB in the window, {result['bytes_sent'] / 1e6:.1f} MB "
              f"in all, {result['frames_sent']} frames or writes, own CPU "
              f"{result['attacker_cpu_s']:.1f} s (nice {options.attacker_nice}); window {result['window_s']:.1f} s")
    if bench:
        print("   " + bench_line(bench))
        reasons += bench_failures(bench)
    print(f"   gateway: RSS {mib(rss_before)} MiB before, {mib(rss_ready)} with the attack up, {mib(rss_window_end)} at the "
          f"end of the window, {mib(rss_after)} after; peak (VmHWM) {mib(hwm)} MiB; CPU "
          f"{'?' if cpu_window is None else f'{cpu_window:.1f}'} s in the window"
          + (f"; read {io_window[0] / 1e6:.1f} MB, wrote {io_window[1] / 1e6:.1f} MB" if io_window else "")
          + f"; descriptors {fds_before} → {fds_window_end} → {fds_after}")
    print_other(other)
    changes = metric_changes(before_metrics, after_metrics)
    if changes:
        print("   metrics: " + "; ".join(changes))
    reasons += tripped
    if gone:
        if "the gateway process is gone" not in reasons:
            reasons.append("the gateway process is gone")
        print("   the gateway is gone; the end of its log:\n" + gateway_log_tail(options))
    if result and result["left_open"] and not result["aborted"]:
        reasons.append(f"{result['left_open']} attacking connections still open {result['grace_s']:.0f} s after the attack")
    if result is None and not any(reason.startswith("attacker failed") for reason in reasons):
        reasons.append("attacker failed: no result")
    print(f"   {'PASS' if not reasons else 'FAIL: ' + '; '.join(reasons)}", flush=True)
    return row(name, bench, result, hwm, cpu_window, reasons, other=other)


async def run_baseline(options):
    pid = options.gateway_pid
    print("\n== baseline (no attack)", flush=True)
    reset_peak(pid)
    cpu_start = cpu_seconds(pid)
    others = OtherCPU(pid)
    bench = await run_bench(options, options.seconds)
    other = others.stop()
    cpu = cpu_seconds(pid) - cpu_start if alive(pid) else None
    hwm = vm_kib(pid, "VmHWM")
    reasons = bench_failures(bench)
    print("   " + bench_line(bench))
    print(f"   gateway: RSS {mib(vm_kib(pid, 'VmRSS'))} MiB, peak {mib(hwm)} MiB, CPU "
          f"{'?' if cpu is None else f'{cpu:.1f}'} s, descriptors {fd_count(pid)}")
    print_other(other)
    print(f"   {'PASS' if not reasons else 'FAIL: ' + '; '.join(reasons)}", flush=True)
    return row("(baseline)", bench, None, hwm, cpu, reasons, other=other)


async def run(options):
    names = [name.strip() for name in options.attacks.split(",") if name.strip()]
    unknown = [name for name in names if name not in ATTACKS]
    if unknown:
        print(f"unknown attacks {unknown}; known: {', '.join(ATTACKS)}", file=sys.stderr)
        return 2
    pid = options.gateway_pid
    rows = []
    if options.warmup:
        bench = await run_bench(options, options.warmup)
        print(f"   (warm-up, not counted: {bench_line(bench)})", flush=True)
    if options.baseline:
        rows.append(await run_baseline(options))
    for index, name in enumerate(names):
        if not alive(pid):
            rows += [row(rest, reasons=["the gateway was gone before it"], status="NOT RUN") for rest in names[index:]]
            break
        rows.append(await run_attack(options, name))
        await asyncio.sleep(1)
    if options.results:
        with open(options.results, "a") as results:
            for each in rows:
                results.write(json.dumps(each) + "\n")
    else:
        print_summary(rows)
    return 1 if any(each["result"] != "PASS" for each in rows) else 0


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="print the attacks' names")
    p = sub.add_parser("summary", help="print the table of a results file; exit 1 if anything failed")
    p.add_argument("--results", required=True)
    p.add_argument("--expect", default="", help="comma-separated rows that must be there")
    for command in ("run", "worker"):
        p = sub.add_parser(command)
        if command == "worker":
            p.add_argument("attack", choices=ATTACKS)
        p.add_argument("--provider-port", type=int, required=True)
        p.add_argument("--device-port", type=int, required=True)
        p.add_argument("--gateway-pid", type=int, required=True)
        p.add_argument("--ca", help="the gateway's CA (default DATA/tls/ca.pem)")
        p.add_argument("--connections", type=int, default=8, help="attacking connections per flood")
        p.add_argument("--slow-connections", type=int, default=200)
        p.add_argument("--idle-connections", type=int, default=2000)
        p.add_argument("--device-idle-connections", type=int, default=2000, help="of each kind")
        p.add_argument("--grace", type=float, default=15, help="seconds the gateway has to close attack connections")
        if command == "run":
            p.add_argument("--console-port", type=int, required=True)
            p.add_argument("--data", required=True)
            p.add_argument("--jwt", required=True)
            p.add_argument("--bench", required=True, help="path of herald-bench")
            p.add_argument("--attacks", default="", help="comma-separated; none: only the baseline")
            p.add_argument("--baseline", action="store_true", help="first, the bench alone")
            p.add_argument("--warmup", type=int, default=2, help="seconds of bench first, not counted (0: none)")
            p.add_argument("--seconds", type=int, default=10)
            p.add_argument("--attacker-nice", type=int, default=10)
            p.add_argument("--max-rss-mib", type=int, default=4096, help="abort an attack when the gateway passes it")
            p.add_argument("--results", help="append the rows (JSON lines) here instead of printing the table")
            p.add_argument("--gateway-log", help="the gateway's stderr, shown if it dies")
        else:
            p.add_argument("--max-seconds", type=float, default=300)
    options = parser.parse_args()
    if options.command == "list":
        print("\n".join(ATTACKS))
        return
    if options.command == "summary":
        sys.exit(summary(options))
    raise_fd_limit()
    if options.command == "run":
        options.ca = options.ca or os.path.join(options.data, "tls", "ca.pem")
        sys.exit(asyncio.run(run(options)))
    asyncio.run(Worker(options).main())
if __name__ == "__main__":
    main()
