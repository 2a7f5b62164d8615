#!/usr/bin/python3
"""Bare recovery for the Python clients: one connection of the library alone, no protocol and no
harness code in its path - the other side of the recovery harness-overhead check of kombu and pika
(src/recovery/bareProgramConsumers.ts starts one per thread, as the harness starts one client
program per connection). What scripts/bare-recovery.js does in each of its threads:

  bare_recovery.py --client kombu|pika --queue NAME [--bound-ms 30000] [--options JSON]

It consumes its existing queue (automatic ack) with the client program's settings for the profile
(the same table; `--options '{"profile":"normalised","backoff":{...}}'`), proves it with a round
trip (a marker published on a second channel to its own queue, back through its consumer), notes
the moment the library raises its connection's failure, and when told the fault is gone connects
again as the client program's `ensure` does (kombu: its ensure_connection with the profile's retry
policy; pika: new connections with the harness loop's backoff), consumes again, and proves it with
another round trip. The broker URL comes from AMQP_URL.

Its recovery time spans what the client program's `recover` spans (adapters/python/amqp_bench_protocol.py):
from the moment the thread that recovers took up the word that the fault is gone (here `removed`, read by
the main thread and handed over by an Event) to the moment the library handed the round trip's marker to
the consumer's callback.

Lines (JSON, one per line):
  out {"ready":true}        connected, consuming, had a delivery and a round trip
  out {"detected":true}     the library raised the connection's failure
  in  removed               the fault is gone: connect again now
  out {"recovered":true}    connected, consuming and a round trip made again
  out {"failed":true,"error":...}   it stopped (any phase)
  in  report                out {"record":{local_port, ready_ns, detected_ns, cause, recovery_started_ns,
                              recovered_ns, attempts, deliveries, error}}  (ns as decimal strings, or null)
  end of stdin              the connection closed, exit 0
"""
import json
import os
import random
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from amqp_bench_protocol import backoff_delay_s, classify, describe_error, emit, run_bare  # noqa: E402

# How long one wait for deliveries lasts before the loop looks at its flags (and kombu checks heartbeats).
WAIT_S = 0.2


def parse_args(argv):
    options = {'client': None, 'queue': None, 'bound_ms': 30000, 'profile': 'defaults', 'backoff': None}
    for flag, value in zip(argv[::2], argv[1::2]):
        if flag in ('--client', '--queue'):
            options[flag[2:]] = value
        elif flag == '--bound-ms':
            options['bound_ms'] = int(value)
        elif flag == '--options':
            chosen = json.loads(value)
            options['profile'] = chosen.get('profile', 'defaults')
            options['backoff'] = chosen.get('backoff')
        else:
            raise SystemExit(f'bare-recovery: unknown argument {flag!r}')
    if len(argv) % 2 or options['client'] not in ('kombu', 'pika') or options['queue'] is None:
        raise SystemExit('bare-recovery: --client kombu|pika and --queue NAME are required')
    return options


class KombuLink:
    """kombu's Connection, a Consumer on one channel and a Producer on another: what the client program opens."""

    def __init__(self, url, queue, profile, on_body):
        import kombu
        from kombu_client import PROFILES
        self.queue = queue
        self.p = PROFILES[profile]
        self.on_body = on_body
        self.conn = kombu.Connection(url, heartbeat=self.p['heartbeat'], connect_timeout=self.p['connect_timeout'])
        self.conn.ensure_connection(max_retries=3)
        self.producer = None
        self.attempts = 0

    def consume(self):
        from kombu import Consumer, Producer, Queue
        Consumer(self.conn.channel(), queues=[Queue(self.queue, no_declare=True)], no_ack=True, auto_declare=False,
                 on_message=lambda message: self.on_body(message.body)).consume()
        self.producer = Producer(self.conn.channel(), auto_declare=False)

    def local_port(self):
        return self.conn.connection.sock.getsockname()[1]

    def publish(self, body):
        self.producer.publish(body, exchange='', routing_key=self.queue)

    def wait(self):
        try:
            self.conn.drain_events(timeout=WAIT_S)
        except socket.timeout:
            pass
        if self.p['heartbeat']:
            self.conn.heartbeat_check(rate=2)

    def reconnect(self, bound_s):
        failed = [0]
        self.conn.collect()
        self.conn.ensure_connection(errback=lambda exc, interval: failed.__setitem__(0, failed[0] + 1), max_retries=None,
                                    interval_start=self.p['interval_start'], interval_step=self.p['interval_step'],
                                    interval_max=self.p['interval_max'], timeout=bound_s)
        self.attempts = failed[0] + 1
        self.consume()

    def close(self):
        self.conn.release()


class PikaLink:
    """pika's BlockingConnection, a consumer on one channel and a probe channel: what the client program opens."""

    def __init__(self, url, queue, profile, on_body, backoff):
        import pika
        from pika_client import PROFILES
        self.pika = pika
        self.queue = queue
        p = PROFILES[profile]
        self.params = pika.URLParameters(url)
        if p['heartbeat'] is not None:
            self.params.heartbeat = p['heartbeat']
        self.params.socket_timeout, self.params.stack_timeout = p['socket_timeout'], p['stack_timeout']
        self.on_body = on_body
        self.backoff = backoff
        self.conn = pika.BlockingConnection(self.params)
        self.probes = None
        self.attempts = 0

    def consume(self):
        self.conn.channel().basic_consume(self.queue, lambda ch, method, properties, body: self.on_body(body), auto_ack=True)
        self.probes = self.conn.channel()

    def local_port(self):
        return self.conn._impl._transport._sock.getsockname()[1]  # pika keeps its socket in private fields

    def publish(self, body):
        self.probes.basic_publish('', self.queue, body)

    def wait(self):
        self.conn.process_data_events(time_limit=WAIT_S)

    def reconnect(self, bound_s):
        """The client program's ensure: new connections with the harness loop's backoff until the bound."""
        deadline = time.monotonic() + bound_s
        rng = random.Random()
        while True:
            self.attempts += 1
            try:
                self.conn = self.pika.BlockingConnection(self.params)
                break
            except Exception as exc:  # noqa: BLE001 -- refused, reset: try again
                delay = backoff_delay_s(self.backoff, self.attempts, rng)
                if time.monotonic() + delay > deadline:
                    raise TimeoutError(f'could not reconnect within {bound_s} s: {describe_error(exc)}') from exc
                time.sleep(delay)
        self.consume()

    def close(self):
        if self.conn.is_open:
            self.conn.close()


class Bare:
    def __init__(self, options):
        self.options = options
        self.record = {'local_port': None, 'ready_ns': None, 'detected_ns': None, 'cause': 'none', 'recovery_started_ns': None,
                       'recovered_ns': None, 'attempts': 0, 'deliveries': 0}
        self.marker = None
        self.marker_seen = False
        self.marker_back_ns = None
        self.removed = threading.Event()
        self.stopped = threading.Event()
        self.link = None

    def on_body(self, body):
        self.record['deliveries'] += 1
        if body == self.marker and not self.marker_seen:
            self.marker_seen = True
            # Timed as the library handed it over, as the client program's `recover` times its probe.
            self.marker_back_ns = time.monotonic_ns()

    def round_trip(self, link):
        """A marker out on the probe channel, back through the consumer (the harness's DrainingConsumer.roundTrip)."""
        self.marker, self.marker_seen = f'probe-{time.monotonic_ns()}'.encode(), False
        link.publish(self.marker)
        deadline = time.monotonic() + self.options['bound_ms'] / 1000.0
        while not self.marker_seen:
            if time.monotonic() > deadline:
                raise TimeoutError('the round trip did not come back within the bound')
            link.wait()

    def run(self):
        url = os.environ.get('AMQP_URL', 'amqp://guest:guest@127.0.0.1:5672')
        queue, profile = self.options['queue'], self.options['profile']
        link = (KombuLink(url, queue, profile, self.on_body) if self.options['client'] == 'kombu'
                else PikaLink(url, queue, profile, self.on_body, self.options['backoff']))
        self.link = link
        link.consume()
        self.record['local_port'] = link.local_port()
        while self.record['deliveries'] == 0:
            link.wait()
        self.round_trip(link)
        self.record['ready_ns'] = str(time.monotonic_ns())
        emit({'ready': True})
        try:
            while not self.stopped.is_set():
                link.wait()
            return
        except Exception as exc:  # noqa: BLE001 -- the moment the library raised the connection's failure
            self.record['detected_ns'] = str(time.monotonic_ns())
            self.record['cause'] = classify(exc)
        emit({'detected': True})
        self.removed.wait()
        self.record['recovery_started_ns'] = str(time.monotonic_ns())
        link.reconnect(self.options['bound_ms'] / 1000.0)
        self.record['attempts'] = link.attempts
        self.round_trip(link)
        self.record['recovered_ns'] = str(self.marker_back_ns)
        emit({'recovered': True})
        while not self.stopped.is_set():
            link.wait()


def main():
    bare = Bare(parse_args(sys.argv[1:]))

    def measured():
        try:
            bare.run()
        except Exception as exc:  # noqa: BLE001 -- the thread stops on it: said once, kept in the record
            bare.record['error'] = describe_error(exc)
            emit({'failed': True, 'error': bare.record['error'][:300]})

    worker = threading.Thread(target=measured, daemon=True)
    worker.start()
    for line in sys.stdin:
        command = line.strip()
        if command == 'removed':
            bare.removed.set()
        elif command == 'report':
            bare.stopped.set()
            worker.join(2 * WAIT_S + 1)
            emit({'record': bare.record})
        elif command:
            raise SystemExit(f'bare-recovery: unknown command {command!r} on stdin; expected "removed" or "report"')
    bare.stopped.set()
    worker.join(2 * WAIT_S + 1)
    try:
        if bare.link is not None:
            bare.link.close()
    except Exception:  # noqa: BLE001 -- closing what the fault left
        pass


if __name__ == '__main__':
    run_bare('bare-recovery', main)
    os._exit(0)  # past the threads left waiting on a dead link
