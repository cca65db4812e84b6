"""One attacking connection (`Conn`), how each kind is set up (TCP, TLS, HTTP/2, WebSocket up to the challenge),
and the groups of connections an attack opens."""
import asyncio
import errno
import socket
import ssl
import time

from attack.wire import H2Parser, PREFACE, SETTINGS_ACK, WSParser, settings_frame, upgrade_request


def errname(error):
    if isinstance(error, OSError) and error.errno:
        return errno.errorcode.get(error.errno, str(error.errno))
    return type(error).__name__


TCP_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT", 7: "CLOSE",
              8: "CLOSE_WAIT", 9: "LAST_ACK", 11: "CLOSING"}


def tcp_state(sock):
    try:
        return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
    except OSError:
        return 7


class SetupRefused(Exception):
    pass


class Conn:
    """One attacking connection: a non-blocking socket with TLS through an SSLObject on memory BIOs, so that the
    attacker reads from the socket only when it chooses to (never, for the no-read attacks)."""

    def __init__(self, worker, group):
        self.worker, self.group = worker, group
        self.sock = None
        self.tls = None
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.opened_at = self.closed_at = None
        self.how = None
        self.closed = asyncio.Event()
        self.parser = None
        self.reader = None
        self.polled = False
        self.in_setup = True
        self.stream = 1

    async def connect(self):
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        if self.group.rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.group.rcvbuf)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, ("127.0.0.1", self.group.port)), 10)
        except BaseException:
            sock.close()
            raise
        self.sock = sock
        self.opened_at = time.monotonic()

    async def handshake(self):
        loop = asyncio.get_running_loop()
        self.tls = self.worker.contexts[self.group.port].wrap_bio(self.incoming, self.outgoing, server_hostname="localhost")
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                await self.flush()
                raw = await loop.sock_recv(self.sock, 65536)
                if not raw:
                    raise EOFError("FIN")
                self.incoming.write(raw)
        await self.flush()

    async def flush(self):
        out = self.outgoing.read()
        if out:
            await asyncio.get_running_loop().sock_sendall(self.sock, out)

    async def send(self, data, frames=1):
        """Write plaintext (encrypted when TLS is up); waits while the kernel's send buffer is full."""
        if self.tls:
            self.tls.write(data)
            wire = self.outgoing.read()
        else:
            wire = data
        await asyncio.get_running_loop().sock_sendall(self.sock, wire)
        self.worker.bytes_sent += len(wire)
        self.worker.frames_sent += frames

    async def recv(self):
        """Plaintext from the gateway; b"" at its end of stream."""
        loop = asyncio.get_running_loop()
        while True:
            if self.tls:
                try:
                    data = self.tls.read(65536)
                    if data:
                        return data
                except ssl.SSLWantReadError:
                    pass
                except ssl.SSLZeroReturnError:
                    return b""
            raw = await loop.sock_recv(self.sock, 65536)
            if not raw:
                return b""
            if not self.tls:
                return raw
            self.incoming.write(raw)

    def drain(self):
        """After the gateway closed (or at the end): read what is already in the receive buffer, without waiting,
        to learn what the gateway said. Never called while an attack that must not read is running."""
        if self.sock is None or self.parser is None:
            return
        try:
            for _ in range(256):
                raw = self.sock.recv(65536)
                if not raw:
                    break
                if self.tls:
                    self.incoming.write(raw)
                    while True:
                        try:
                            data = self.tls.read(65536)
                        except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                            break
                        if not data:
                            break
                        self.parser.feed(data)
                else:
                    self.parser.feed(raw)
        except (BlockingIOError, OSError, ssl.SSLError):
            pass

    def mark_closed(self, how):
        if self.closed_at is None:
            self.closed_at = time.monotonic()
            self.how = ("during setup: " if self.in_setup else "") + how
            self.closed.set()

    def describe(self):
        said = self.parser.said() if self.parser else None
        return f"{said} → {self.how}" if said else self.how

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass


async def read_loop(conn):
    """For attacks that may read: parse everything the gateway sends, and notice its close at once."""
    try:
        while True:
            data = await conn.recv()
            if not data:
                conn.mark_closed("FIN")
                return
            conn.parser.feed(data)
            if isinstance(conn.parser, WSParser) and conn.parser.close:
                conn.mark_closed("close frame")
                return
    except ssl.SSLError as error:
        conn.mark_closed(f"TLS {error.reason or error}")
    except OSError as error:
        conn.mark_closed(errname(error))


async def setup_h2(conn, settings=()):
    await conn.handshake()
    if conn.tls.selected_alpn_protocol() != "h2":
        raise SetupRefused(f"ALPN {conn.tls.selected_alpn_protocol()}")
    conn.parser = H2Parser()
    await conn.send(PREFACE + settings_frame(*settings))


async def setup_tls(conn):
    await conn.handshake()
    conn.parser = WSParser()


async def setup_ws(conn):
    """TLS, the upgrade to /v1/link, and the challenge."""
    await setup_tls(conn)
    await conn.send(upgrade_request(conn.group.port))
    while conn.parser.status is None or (conn.parser.status == 101 and not conn.parser.texts):
        data = await conn.recv()
        if not data:
            raise EOFError("FIN")
        conn.parser.feed(data)
    if conn.parser.status != 101:
        raise SetupRefused(f"HTTP {conn.parser.status_line!r}")


# Each runs after the setup until it is cancelled (the gateway closed the connection, or the attack is over).


async def forever(_conn):
    await asyncio.Future()


def ack_settings(conn):
    """For attacks that read: acknowledge the gateway's SETTINGS, as a client must."""
    if conn.parser and conn.parser.settings_unacked:
        count, conn.parser.settings_unacked = conn.parser.settings_unacked, 0
        return SETTINGS_ACK * count
    return b""


class Group:
    def __init__(self, label, count, port, setup, behaviour, reads, rcvbuf=None, measure_rss=False):
        self.label, self.count, self.port, self.setup, self.behaviour = label, count, port, setup, behaviour
        self.reads, self.rcvbuf, self.measure_rss = reads, rcvbuf, measure_rss
        self.opened = 0


NO_READ_RCVBUF = 4096
