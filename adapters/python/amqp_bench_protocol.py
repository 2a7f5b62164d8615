"""The amqp-bench client protocol, version 2 (schemas/client-protocol.schema.json), for Python
client programs: one JSON command per line on stdin, one JSON reply or event per line on stdout.

One process is one connection. The main thread reads stdin; one connection thread owns the
library's connection and does everything on it (libraries such as py-amqp and pika are not
thread-safe): it waits on the socket and on a wake-up pipe, drains the library's events, and runs
the commands the main thread queued. A few commands cannot wait behind a connection thread that
the library holds (a publish waiting for its confirm): the main thread answers `clock` itself, cuts
the socket for `destroy`, and bounds `close`.

Every time is time.monotonic_ns(): CLOCK_MONOTONIC on Linux, the clock of Node's
process.hrtime.bigint(), so the harness compares it with its own.
"""

import json
import os
import sys
import threading
import time

PROTOCOL_VERSION = 2

# How long deliveries may wait in the outbox while the connection thread is inside a library call.
OUTBOX_STALE_NS = 20_000_000


def now_ns():
    return time.monotonic_ns()


def ns(value):
    return str(value)


_out_lock = threading.Lock()


def emit(message):
    """One line on stdout (thread-safe); a closed stdout (the harness is gone) ends the program."""
    line = json.dumps(message, separators=(',', ':'))
    with _out_lock:
        try:
            sys.stdout.write(line + '\n')
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            os._exit(0)


def reply(request_id, **fields):
    emit(dict(re=request_id, ok=True, **fields))


def failure(request_id, code, error, kind=None, at_ns=None):
    message = dict(re=request_id, ok=False, code=code, error=str(error)[:500])
    if kind is not None:
        message['kind'] = kind
    if at_ns is not None:
        message['atNs'] = ns(at_ns)
    emit(message)


class Fault(Exception):
    """A command failed because the connection did: `kind` and when the library told it."""

    def __init__(self, message, kind, at_ns):
        super().__init__(message)
        self.kind = kind
        self.at_ns = at_ns


class Nacked(Exception):
    pass


class Unsupported(Exception):
    pass


def describe_error(exc):
    text = str(exc) or type(exc).__name__
    return f'{type(exc).__name__}: {text}' if type(exc).__name__ not in text else text


def classify(exc):
    """The harness's word for what the library raised (src/client/faults.ts reads alike)."""
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    words = ' '.join(f'{type(e).__name__} {e}' for e in seen)
    if any(isinstance(e, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)) for e in seen) \
            or 'reset by peer' in words or 'ECONNRESET' in words:
        return 'reset'
    if 'heartbeat' in words.lower():
        return 'heartbeat'
    if '320' in words or 'CONNECTION_FORCED' in words or 'ConnectionForced' in words or 'ClosedByBroker' in words:
        return 'broker_closed'
    if 'NOT_FOUND' in words or 'PRECONDITION_FAILED' in words or '404' in words or '406' in words:
        return 'channel_closed'
    if 'unexpectedly closed' in words or 'EOF' in words or 'Socket closed' in words or 'closed by' in words:
        return 'closed'
    return 'error'


class LatencyHistogram:
    """Publish latencies in microseconds; above 1000 µs rounded to 3 significant digits."""

    def __init__(self):
        self.counts = {}

    def record(self, elapsed_ns):
        us = elapsed_ns // 1000
        if us >= 1000:
            digits = len(str(us)) - 3
            us = round(us, -digits)
        self.counts[us] = self.counts.get(us, 0) + 1

    def encode(self):
        values = sorted(self.counts)
        return {'valuesUs': values, 'counts': [self.counts[v] for v in values]}


def backoff_delay_s(backoff, attempt, rng):
    """The harness loop's delay before attempt `attempt` + 1 (as src/client/backoff.ts)."""
    base = min(backoff['maxDelayMs'], backoff['initialDelayMs'] * backoff['factor'] ** (attempt - 1))
    spread = base * backoff['jitter']
    return max(0.0, base + rng.uniform(-spread, spread)) / 1000.0


def run_bare(name, main):
    """A bare reference program's main: a failure is one line on stderr and exit code 1, as the Node bare scripts."""
    try:
        main()
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 -- whatever failed, said once
        sys.stderr.write(f'{name}: {type(exc).__name__}: {exc}\n')
        sys.exit(1)


def serve(make_thread, description):
    """The program's main: `--describe`, or the protocol on stdin / stdout until the end of stdin."""
    if '--describe' in sys.argv[1:]:
        print(json.dumps(description(), separators=(',', ':')))
        return
    connection = make_thread()
    connection.start()
    emit({'ev': 'hello', 'protocol': PROTOCOL_VERSION, 'atNs': ns(now_ns())})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            command = json.loads(line)
        except ValueError:
            sys.stderr.write(f'not a command: {line[:200]}\n')
            continue
        op = command.get('op')
        if op == 'clock':
            reply(command['id'], nowNs=ns(now_ns()))
        elif op == 'destroy':
            connection.cut(command.get('reason', 'destroyed'))
            reply(command['id'])
        elif op == 'close':
            close(connection, command)
            return
        else:
            connection.submit(command)
    # End of stdin: the harness is gone or stopped us.
    connection.submit(None)
    connection.shutdown(2.0)
    os._exit(0)


def close(connection, command):
    """The library's close within the bound, on the connection thread; past it, the socket is cut."""
    bound_s = command.get('boundMs', 5000) / 1000.0
    done = {}

    def polite():
        done['hit'] = connection.shutdown(bound_s)

    closer = threading.Thread(target=polite, daemon=True)
    connection.submit(None)
    connection.thread.join(bound_s)
    closer.start()
    closer.join(bound_s)
    hit = done.get('hit', True)
    if closer.is_alive() or connection.thread.is_alive():
        connection.cut('close bound passed')
        hit = True
    reply(command['id'], hitBound=bool(hit))
    sys.stdout.flush()
    os._exit(0)
