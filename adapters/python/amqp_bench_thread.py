"""The connection thread of a Python client program (protocol: amqp_bench_protocol.py): one thread
owns the library's connection and does everything on it, since libraries such as py-amqp and pika
are not thread-safe. A client program subclasses ConnectionThread with the library's part."""

import os
import queue
import select
import sys
import threading
import time

from amqp_bench_protocol import (
    OUTBOX_STALE_NS, Fault, LatencyHistogram, Nacked, Unsupported, classify, describe_error, emit, failure, now_ns, ns, reply,
)


class ConnectionThread:
    """What a library's connection thread does; a client program fills in the library's part.

    The part every library shares lives here too: the outage (its first fault, told once), typed
    signals, the consumers' outbox (deliveries with bodies, or counts), and publish_run (N publishes
    through the program's own `publish`, timed here).

    `handle(command)` runs one command on this thread (the library's calls); `wait(timeout_s)`
    waits for the socket or the wake-up pipe and drains the library's events; `cut()` kills the
    socket from any thread; `shutdown(bound_s)` closes politely and says whether the bound cut it.
    """

    def __init__(self):
        self.commands = queue.Queue()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        self.thread = threading.Thread(target=self._run, name='connection', daemon=True)
        self.stopped = threading.Event()
        self.up = False
        self.outage = None  # (kind, message, at_ns) of the current outage
        self.publishers = {}
        self.consumers = {}
        self.outbox = {}
        self.flushed_ns = now_ns()
        self.probe = None  # the marker of `recover`'s round trip while it is out, and when it came back

    def publish(self, handle, exchange, routing_key, body, persistent=False):
        raise NotImplementedError

    def reconnect(self, deadline_ms):
        """`ensure`'s work: the connection and every publisher and consumer back; the attempts it took (0: it was up).
        Raises TimeoutError at the deadline."""
        raise NotImplementedError

    # -- what every library shares ----------------------------------------------------------
    def fault(self, exc):
        """The connection failed: the first failure of an outage is told, timed here."""
        at = now_ns()
        if not self.up:
            return
        self.up = False
        self.outage = (classify(exc), describe_error(exc), at)
        emit({'ev': 'fault', 'kind': self.outage[0], 'message': self.outage[1][:500], 'atNs': ns(at)})

    def outage_fault(self):
        return Fault(self.outage[1], self.outage[0], self.outage[2])

    @staticmethod
    def signal(kind, message, at=None):
        emit({'ev': 'signal', 'kind': kind, 'message': str(message)[:500], 'atNs': ns(at or now_ns())})

    def flush_outbox(self):
        """One line per consumer: its deliveries since the last one, each with when the library handed it over (or
        their count)."""
        self.flushed_ns = now_ns()
        for handle, messages in self.outbox.items():
            if messages:
                emit({'ev': 'deliveries', 'consumer': handle, 'messages': messages})
        self.outbox = {}
        for handle, entry in self.consumers.items():
            if entry['count']:
                emit({'ev': 'delivered', 'consumer': handle, 'count': entry['count'], 'atNs': ns(now_ns())})
                entry['count'] = 0

    def flush_outbox_if_stale(self):
        """From a library's delivery callback: what waited longer than a drain slice goes now, so deliveries a library
        hands over inside a long call of its own (a publish waiting for its confirm) reach the harness as they come."""
        if now_ns() - self.flushed_ns > OUTBOX_STALE_NS:
            self.flush_outbox()

    def ensure(self, c):
        attempts = self.reconnect(c['deadlineMs'])
        reply(c['id'], attempts=attempts, connectedNs=ns(now_ns()))

    def saw_delivery(self, body):
        """From a library's delivery callback: the probe of `recover` is back, timed as the library handed it over."""
        probe = self.probe
        if probe is not None and probe['back_ns'] is None and body == probe['marker']:
            probe['back_ns'] = now_ns()

    def recover(self, c):
        """`recover`: `ensure`, then a probe published to the consumer's own queue and taken from its delivery, timed
        here from the moment this thread took the command up (what adapters/python/bare_recovery.py times)."""
        started = now_ns()
        attempts = self.reconnect(c['deadlineMs'])
        connected = now_ns()
        entry = self.consumers.get(c['consumer'])
        if entry is None:
            raise Unsupported(f'no consumer {c["consumer"]} to prove the recovery with')
        self.probe = {'marker': f'probe-{now_ns()}'.encode(), 'back_ns': None}
        try:
            self.publish(c['publisher'], '', entry['queue'], self.probe['marker'])
            deadline = time.monotonic() + c['roundTripBoundMs'] / 1000.0
            while self.probe['back_ns'] is None:
                if not self.up:
                    raise self.outage_fault()
                left_s = deadline - time.monotonic()
                if left_s <= 0:
                    raise TimeoutError(f'the probe did not come back within {c["roundTripBoundMs"]} ms')
                self.wait(min(left_s, 0.2))
            back = self.probe['back_ns']
        finally:
            self.probe = None
        reply(c['id'], attempts=attempts, connectedNs=ns(connected), recoveryStartedNs=ns(started), recoveredNs=ns(back))

    def publish_run(self, c):
        body = b'a' * c['sizeBytes']
        histogram = LatencyHistogram()
        published = errors = 0
        samples = []
        started = now_ns()
        for i in range(c['count']):
            t0 = now_ns()
            try:
                self.publish(c['publisher'], c['exchange'], c['routingKey'], body)
            except (Fault, Nacked, Unsupported) as exc:
                errors += 1
                if len(samples) < 5 and str(exc) not in samples:
                    samples.append(str(exc))
                if not self.up:
                    errors += c['count'] - i - 1
                    break
                continue
            histogram.record(now_ns() - t0)
            published += 1
        reply(c['id'], run={'published': published, 'errors': errors, 'startedNs': ns(started), 'completedNs': ns(now_ns()),
                            'latencyUs': histogram.encode(), 'errorSamples': samples})

    # -- the library's part -------------------------------------------------------------------
    def handle(self, command):
        raise NotImplementedError

    def wait(self, timeout_s):
        raise NotImplementedError

    def cut(self, reason):
        raise NotImplementedError

    def shutdown(self, bound_s):
        raise NotImplementedError

    # -- the loop -------------------------------------------------------------------------------
    def start(self):
        self.thread.start()

    def submit(self, command):
        self.commands.put(command)
        try:
            os.write(self.wake_w, b'x')
        except OSError:
            pass

    def drain_wakeups(self):
        try:
            while os.read(self.wake_r, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def wait_for_wakeup(self, timeout_s):
        select.select([self.wake_r], [], [], timeout_s)
        self.drain_wakeups()

    def _run(self):
        try:
            while not self.stopped.is_set():
                while True:
                    try:
                        command = self.commands.get_nowait()
                    except queue.Empty:
                        break
                    if command is None:
                        return
                    self.run_command(command)
                self.wait(0.2)
        except BaseException as exc:  # noqa: BLE001 -- a crash of the loop must be told, not hang the harness
            sys.stderr.write(f'connection thread died: {describe_error(exc)}\n')
            sys.stderr.flush()
            os._exit(3)
        finally:
            self.stopped.set()

    def run_command(self, command):
        request_id = command.get('id')
        try:
            self.handle(command)
        except Fault as fault:
            if request_id is not None:
                failure(request_id, 'fault', fault, kind=fault.kind, at_ns=fault.at_ns)
        except Nacked as nacked:
            if request_id is not None:
                failure(request_id, 'nacked', nacked)
        except Unsupported as unsupported:
            if request_id is not None:
                failure(request_id, 'unsupported', unsupported)
        except TimeoutError as timeout:
            if request_id is not None:
                failure(request_id, 'timeout', timeout)
