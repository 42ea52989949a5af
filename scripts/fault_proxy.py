#!/usr/bin/env python3
"""A fault-injecting TCP proxy for tests that drive a client against a real server on loopback.

How to run
----------
    python3 scripts/fault_proxy.py --listen 127.0.0.1:0 --target 127.0.0.1:PORT [--seed N]
        [--reset P] [--delay P] [--truncate P] [--max-delay SECONDS] [--max-cut BYTES]
        [--faults-after N] [--only-first K] [--port-file FILE]

Standard library only.  Every accepted connection is forwarded both ways to the target, one
thread per direction.  For each new connection, in accept order, one fate is drawn from
`random.Random(seed)` (three numbers a connection, whatever its fate, so a run with a given
seed and the same traffic repeats itself):

  * reset (probability --reset): forward a part of the response (the bytes the target sends
    back), maybe none, then close the client socket with a TCP RST (SO_LINGER 0);
  * delay (probability --delay): hold the response back, once, for up to --max-delay seconds
    (default 2) when its first bytes arrive, then forward faithfully;
  * truncate (probability --truncate): forward a part of the response, maybe none, then close
    both sockets normally (the client sees a FIN: an early end of stream);
  * faithful otherwise.

Where the cut falls: a fraction f in [0, 1) is drawn, and the connection is cut after
f * (header bytes + Content-Length) bytes of the target's bytes when the first response is
HTTP with a Content-Length (so within that response, unless it is the answer to a HEAD),
else after f * --max-cut bytes (default 2048), counted over the connection's whole response
stream; with f * ... = 0 the cut comes as the first bytes arrive, none of them forwarded.  A
reset or truncation whose connection ends first never fires: a line says so.  The request
direction (client to target) is always forwarded faithfully, so a fault never stops a request
from reaching the target whole: the client only loses (part of) the answer.

The first --faults-after connections are always faithful (so a setup phase passes), and at most
--only-first faults are dealt in all (so a test is sure to finish).  The seed (random when not
given) is printed on stderr at start, then one line per connection with its fate.  Once
listening, the port is written to --port-file, through a temporary name and a rename, so a
reader never sees a partial file.  SIGTERM (or SIGINT) stops it cleanly with status 0.
"""

import argparse
import os
import random
import re
import signal
import socket
import struct
import sys
import threading
import time

CHUNK = 64 * 1024
HEAD_LIMIT = 64 * 1024

_print_lock = threading.Lock()


def log(message):
    """Print one line on stderr, whole, whichever thread calls."""
    with _print_lock:
        print(f"fault_proxy: {message}", file=sys.stderr, flush=True)


def host_port(text):
    """Parse `HOST:PORT` (argparse type)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def probability(text):
    """Parse a probability in [0, 1] (argparse type)."""
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a probability is in [0, 1], got {text}")
    return value


class Fate:
    """What happens to one connection: kind is faithful, reset, delay or truncate."""

    def __init__(self, kind, fraction=0.0, delay=0.0, note=""):
        self.kind = kind
        self.fraction = fraction
        self.delay = delay
        self.note = note

    @property
    def cuts(self):
        return self.kind in ("reset", "truncate")

    def describe(self):
        if self.cuts:
            return f"{self.kind} at {self.fraction:.3f} of the response"
        if self.kind == "delay":
            return f"delay {self.delay:.3f}s"
        return f"faithful{self.note}"


class Dealer:
    """Draws the fate of each new connection, in accept order, from one seeded generator."""

    def __init__(self, args):
        self.rng = random.Random(args.seed)
        self.args = args
        self.count = 0
        self.faults = 0

    def next_fate(self):
        args = self.args
        pick, fraction, delay_fraction = self.rng.random(), self.rng.random(), self.rng.random()
        index = self.count
        self.count += 1
        if pick < args.reset:
            kind = "reset"
        elif pick < args.reset + args.delay:
            kind = "delay"
        elif pick < args.reset + args.delay + args.truncate:
            kind = "truncate"
        else:
            return Fate("faithful")
        if index < args.faults_after:
            return Fate("faithful", note=" (faults-after)")
        if args.only_first is not None and self.faults >= args.only_first:
            return Fate("faithful", note=" (fault budget spent)")
        self.faults += 1
        return Fate(kind, fraction=fraction, delay=delay_fraction * args.max_delay)


def response_length(head, max_cut):
    """Bytes the cut fraction applies to: HTTP header + Content-Length when known, else max_cut."""
    end = head.find(b"\r\n\r\n")
    if not head.startswith(b"HTTP/") or end < 0:
        return max_cut
    match = re.search(rb"\r\ncontent-length:[ \t]*(\d+)", head[:end + 2], re.IGNORECASE)
    return end + 4 + (int(match.group(1)) if match else max_cut)


def close_quietly(sock):
    try:
        sock.close()
    except OSError:
        pass


def shutdown(sock, how):
    try:
        sock.shutdown(how)
    except OSError:
        pass


def close_gracefully(sock):
    """Close with a FIN, waking a thread blocked reading it (close alone would not, on Linux)."""
    shutdown(sock, socket.SHUT_RDWR)
    close_quietly(sock)


def reset(sock):
    """Close a socket with a TCP RST rather than a FIN (SO_LINGER on, timeout 0).

    SHUT_RD wakes a thread blocked reading it without sending anything; the RST leaves when
    the last reference to the socket goes.
    """
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    shutdown(sock, socket.SHUT_RD)
    close_quietly(sock)


class Connection:
    """One client connection and its connection to the target, pumped by two threads."""

    def __init__(self, number, client, target, fate, max_cut):
        self.number = number
        self.client = client
        self.upstream = None
        self.target = target
        self.fate = fate
        self.max_cut = max_cut
        self.lock = threading.Lock()
        self.open_directions = 2
        self.ended = False

    def run(self):
        try:
            self.upstream = socket.create_connection(self.target, timeout=10)
            self.upstream.settimeout(None)
        except OSError as error:
            log(f"conn {self.number}: target unreachable: {error}")
            close_gracefully(self.client)
            return
        threading.Thread(target=self.pump_request, daemon=True).start()
        self.pump_response()

    def pump_request(self):
        """Client to target, always faithful; on EOF, half-close towards the target."""
        try:
            while True:
                data = self.client.recv(CHUNK)
                if not data:
                    break
                self.upstream.sendall(data)
        except OSError:
            pass
        shutdown(self.upstream, socket.SHUT_WR)
        self.direction_done()

    def pump_response(self):
        """Target to client, where the fate applies."""
        fate, sent, head, cut = self.fate, 0, b"", None
        try:
            while True:
                data = self.upstream.recv(CHUNK)
                if not data:
                    break
                if fate.kind == "delay" and sent == 0:
                    time.sleep(fate.delay)
                if fate.cuts and cut is None:
                    head += data
                    if b"\r\n\r\n" not in head and len(head) < HEAD_LIMIT:
                        continue
                    cut = int(fate.fraction * response_length(head, self.max_cut))
                    data, head = head, b""
                if fate.cuts:
                    data = data[:cut - sent]
                self.client.sendall(data)
                sent += len(data)
                if fate.cuts and sent >= cut:
                    self.end(abrupt=fate.kind == "reset")
                    return
            if fate.cuts:
                log(f"conn {self.number}: {fate.kind} never fired: the connection ended after {sent + len(head)} bytes")
                self.client.sendall(head)
        except OSError:
            self.end(abrupt=False)
            return
        shutdown(self.client, socket.SHUT_WR)
        self.direction_done()

    def direction_done(self):
        with self.lock:
            self.open_directions -= 1
            last = self.open_directions == 0
        if last:
            self.end(abrupt=False)

    def end(self, abrupt):
        """Close both sockets once: the client's with a RST when abrupt, else with a FIN."""
        with self.lock:
            if self.ended:
                return
            self.ended = True
        if abrupt:
            reset(self.client)
        else:
            close_gracefully(self.client)
        if self.upstream is not None:
            close_gracefully(self.upstream)


def write_port_file(path, port):
    """Write the port to `path` through a temporary file and a rename (atomic for readers)."""
    temporary = f"{path}.tmp.{os.getpid()}"
    with open(temporary, "w") as handle:
        handle.write(f"{port}\n")
    os.replace(temporary, path)


class Stop(Exception):
    """Raised in the main thread by the SIGTERM handler."""


def main():
    parser = argparse.ArgumentParser(description="A fault-injecting TCP proxy (see the module doc).")
    parser.add_argument("--listen", type=host_port, required=True, help="HOST:PORT to listen on (port 0: any)")
    parser.add_argument("--target", type=host_port, required=True, help="HOST:PORT to forward to")
    parser.add_argument("--seed", type=int, default=None, help="seed of the fates (default: random)")
    parser.add_argument("--reset", type=probability, default=0.0, help="probability of a RST")
    parser.add_argument("--delay", type=probability, default=0.0, help="probability of a delayed response")
    parser.add_argument("--truncate", type=probability, default=0.0, help="probability of a truncated response")
    parser.add_argument("--max-delay", type=float, default=2.0, help="longest delay, seconds (default 2)")
    parser.add_argument("--max-cut", type=int, default=2048,
                        help="response bytes a cut falls within when the length is unknown (default 2048)")
    parser.add_argument("--faults-after", type=int, default=0, help="the first N connections are faithful")
    parser.add_argument("--only-first", type=int, default=None, help="at most K faults in all")
    parser.add_argument("--port-file", default=None, help="write the listening port here once listening")
    args = parser.parse_args()
    if args.reset + args.delay + args.truncate > 1.0:
        parser.error("--reset + --delay + --truncate must not exceed 1")
    if args.max_cut < 1 or args.max_delay < 0:
        parser.error("--max-cut must be at least 1 and --max-delay not negative")
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(2**32)

    def on_signal(signum, frame):
        raise Stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    log(f"seed {args.seed}")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    dealer = Dealer(args)
    try:
        listener.bind(args.listen)
        listener.listen(128)
        port = listener.getsockname()[1]
        log(f"listening on {args.listen[0]}:{port}, forwarding to {args.target[0]}:{args.target[1]}")
        if args.port_file:
            write_port_file(args.port_file, port)
        while True:
            client, _ = listener.accept()
            fate = dealer.next_fate()
            log(f"conn {dealer.count}: {fate.describe()}")
            connection = Connection(dealer.count, client, args.target, fate, args.max_cut)
            threading.Thread(target=connection.run, daemon=True).start()
    except Stop:
        log(f"stopped after {dealer.count} connections, {dealer.faults} faults")
    finally:
        close_quietly(listener)
    return 0


if __name__ == "__main__":
    sys.exit(main())
