"""The attacker process (`attack-network.py worker ATTACK`): opens and reopens an attack's connections and reports
how the gateway closed them."""
import asyncio
import collections
import errno
import json
import resource
import socket
import ssl
import statistics
import sys
import threading
import time
import traceback

from attack.wire import H2Parser, random_p256_public_key
from attack.connection import Conn, SetupRefused, TCP_STATES, errname, read_loop, tcp_state
from attack.catalog import attack_groups


def vm_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Worker:
    def __init__(self, options):
        self.options = options
        self.contexts = {}
        for port, alpn in ((options.provider_port, ["h2"]), (options.device_port, None)):
            context = ssl.create_default_context(cafile=options.ca)
            if alpn:
                context.set_alpn_protocols(alpn)
            self.contexts[port] = context
        self.phase = "window"
        self.end = asyncio.Event()
        self.setup_slots = asyncio.Semaphore(64)
        self.live = set()
        self.opened = self.closed_by_gateway = self.left_open = self.setup_timeouts = 0
        self.bytes_sent = self.frames_sent = 0
        self.close_times = []
        self.said = collections.Counter()
        self.left_open_said = collections.Counter()
        self.rst = collections.Counter()
        self.server_frames = collections.Counter()
        self.connect_failures = collections.Counter()
        self.errors = collections.Counter()
        self.public_keys = []
        self.printed_traceback = False
        self.groups = 1

    def log(self, message):
        print(f"    [{self.options.attack}] {message}", file=sys.stderr, flush=True)

    def label(self, conn):
        return f"[{conn.group.label}] " if self.groups > 1 else ""

    def tally(self, conn):
        parser = conn.parser
        if isinstance(parser, H2Parser):
            self.rst.update(parser.rst)
        if parser is not None:
            self.server_frames.update(parser.frames)

    async def slot(self, group):
        while self.phase == "window":
            conn = Conn(self, group)
            try:
                await conn.connect()
            except (OSError, asyncio.TimeoutError) as error:
                self.connect_failures[errname(error)] += 1
                await asyncio.sleep(0.2)
                continue
            self.opened += 1
            group.opened += 1
            self.live.add(conn)
            try:
                outcome = await self.run(conn)
            finally:
                self.live.discard(conn)
                conn.close()
            if outcome == "end":
                return
            if outcome in ("timeout", "error"):
                await asyncio.sleep(0.2)

    async def run(self, conn):
        group = conn.group

        async def body():
            if group.setup:
                async with self.setup_slots:
                    await asyncio.wait_for(group.setup(conn), 15)
            conn.in_setup = False
            if group.reads and conn.parser is not None:
                conn.reader = asyncio.create_task(read_loop(conn))
            else:
                conn.polled = True
            await group.behaviour(conn)
            await asyncio.Future()

        task = asyncio.create_task(body())
        closed = asyncio.create_task(conn.closed.wait())
        end = asyncio.create_task(self.end.wait())
        done, _ = await asyncio.wait({task, closed, end}, return_when=asyncio.FIRST_COMPLETED)
        outcome = None
        if task in done and not task.cancelled():
            error = task.exception()
            if isinstance(error, asyncio.TimeoutError):
                self.setup_timeouts += 1
                outcome = "timeout"
            elif isinstance(error, EOFError):
                conn.mark_closed("FIN")
            elif isinstance(error, SetupRefused):
                conn.mark_closed(f"refused: {error}")
            elif isinstance(error, ssl.SSLError):
                conn.mark_closed(f"TLS {error.reason or error}")
            elif isinstance(error, OSError):
                conn.mark_closed(errname(error))
            elif error is not None:
                self.errors[repr(error)[:120]] += 1
                if not self.printed_traceback:
                    self.printed_traceback = True
                    traceback.print_exception(error, file=sys.stderr)
                outcome = "error"
        for waiter in (task, closed, end):
            waiter.cancel()
        if conn.closed_at is not None:
            if conn.reader and not conn.reader.done():
                await asyncio.wait({conn.reader}, timeout=1)
            if conn.reader is None:
                conn.drain()
            self.closed_by_gateway += 1
            self.close_times.append(conn.closed_at - conn.opened_at)
            self.said[self.label(conn) + conn.describe()] += 1
            outcome = "closed"
        elif outcome is None:
            # Still open when the attack is over: what has the gateway said so far, and what state is TCP in?
            if conn.reader is None:
                conn.drain()
            state = TCP_STATES.get(tcp_state(conn.sock), "?") if conn.sock else "?"
            said = conn.parser.said() if conn.parser else None
            self.left_open += 1
            self.left_open_said[f"{self.label(conn)}{said + ', ' if said else ''}TCP {state}{' (in setup)' if conn.in_setup else ''}"] += 1
            outcome = "end"
        if conn.reader:
            conn.reader.cancel()
        self.tally(conn)
        return outcome

    async def monitor(self):
        """Notices the gateway's close on connections nobody reads: the TCP state moves out of ESTABLISHED."""
        while True:
            for conn in list(self.live):
                if conn.polled and conn.closed_at is None and conn.sock is not None:
                    state = tcp_state(conn.sock)
                    if state not in (1, 2):
                        if state == 8:
                            conn.mark_closed("FIN")
                        else:
                            error = conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                            conn.mark_closed(errno.errorcode.get(error, TCP_STATES.get(state, str(state))) if error
                                             else TCP_STATES.get(state, str(state)))
            await asyncio.sleep(0.1 if len(self.live) <= 1000 else 0.25)

    async def main(self):
        options = self.options
        loop = asyncio.get_running_loop()
        stop, abort = asyncio.Event(), asyncio.Event()

        def command(line):
            if line != "STOP":  # ABORT, or the orchestrator is gone: end now, without the grace period
                abort.set()
            stop.set()

        def read_commands():
            for line in sys.stdin:
                loop.call_soon_threadsafe(command, line.strip())
            loop.call_soon_threadsafe(command, "EOF")

        threading.Thread(target=read_commands, daemon=True).start()
        if options.attack == "device-bad-hello":
            self.public_keys = [random_p256_public_key() for _ in range(32)]
        monitor = asyncio.create_task(self.monitor())
        slots, stages = [], []
        groups = attack_groups(options.attack, options)
        self.groups = len(groups)
        for group in groups:
            before = vm_kib(options.gateway_pid, "VmRSS")
            slots += [asyncio.create_task(self.slot(group)) for _ in range(group.count)]
            deadline = time.monotonic() + 60
            while group.opened < group.count and time.monotonic() < deadline and not stop.is_set():
                await asyncio.sleep(0.05)
            if group.measure_rss:
                await asyncio.sleep(1)
                open_now = sum(1 for conn in self.live if conn.group is group and conn.closed_at is None)
                after = vm_kib(options.gateway_pid, "VmRSS")
                stages.append({"group": group.label, "opened": group.opened, "open": open_now, "rss_before_kib": before,
                               "rss_after_kib": after,
                               "kib_per_connection": round((after - before) / open_now, 1) if open_now and after and before else None})
                self.log(f"{group.label}: {open_now} open of {group.opened} opened; gateway RSS {before / 1024:.1f} → {after / 1024:.1f} MiB")
        print("READY", flush=True)
        started = time.monotonic()
        try:
            await asyncio.wait_for(stop.wait(), options.max_seconds)
        except asyncio.TimeoutError:
            self.log(f"no STOP within {options.max_seconds} s: stopping")
        window = time.monotonic() - started
        self.phase = "grace"
        open_at_stop = len(self.live)
        window_bytes = self.bytes_sent
        grace_started = time.monotonic()
        while self.live and time.monotonic() - grace_started < options.grace and not abort.is_set():
            await asyncio.sleep(0.1)
        grace = time.monotonic() - grace_started
        self.phase = "end"
        self.end.set()
        done, pending = await asyncio.wait(slots, timeout=20)
        for task in pending:
            task.cancel()
        monitor.cancel()
        times = sorted(self.close_times)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        result = {
            "attack": options.attack, "window_s": round(window, 2), "grace_s": round(grace, 2),
            "aborted": abort.is_set(),
            "opened": self.opened, "closed": self.closed_by_gateway, "open_at_stop": open_at_stop,
            "left_open": self.left_open, "setup_timeouts": self.setup_timeouts,
            "close_s": {"min": times[0], "median": statistics.median(times), "max": times[-1]} if times else None,
            "said": dict(self.said.most_common()), "left_open_said": dict(self.left_open_said.most_common()),
            "rst": dict(self.rst), "server_frames": dict(self.server_frames),
            "connect_failures": dict(self.connect_failures), "errors": dict(self.errors), "stages": stages,
            "bytes_sent": self.bytes_sent, "window_bytes_sent": window_bytes, "frames_sent": self.frames_sent,
            "attacker_cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        }
        print("RESULT " + json.dumps(result), flush=True)
