#!/usr/bin/python3
"""kombu over py-amqp as an amqp-bench client program (protocol: amqp_bench_protocol.py).

One kombu Connection (transport `pyamqp`), owned by one real thread that calls drain_events() and,
when the harness asks, ensure_connection(): the two operations the original harness's threads
called. kombu reconnects nothing by itself: ensure_connection (kombu's retry policy:
interval_start / interval_step / interval_max) runs when the harness asks for the connection back,
then every publisher gets a new channel and every consumer is revived on one (kombu's revive()).
Heartbeats are checked by calling heartbeat_check() from the same loop, as kombu asks.

Run with Debian's python3 (python3-kombu, python3-amqp) or any interpreter that has kombu:
`BENCH_PYTHON=/path/to/python3` (src/client/process/programs.ts).
"""

import base64
import os
import select
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from amqp_bench_thread import ConnectionThread  # noqa: E402
from amqp_bench_protocol import (  # noqa: E402
    Fault, Nacked, Unsupported, classify, describe_error, emit, now_ns, ns, reply, serve,
)

try:
    import amqp
    import amqp.exceptions
    import kombu
    from kombu import Consumer, Producer, Queue
except ImportError as missing:  # the harness shows this line and how to install
    sys.stderr.write(f'kombu is not installed for {sys.executable}: {missing} '
                     '(Debian: apt-get install python3-kombu python3-amqp; or BENCH_PYTHON=<an interpreter that has it>)\n')
    sys.exit(4)

# How long one turn of the connection thread drains the socket before it flushes the outbox and reads commands.
DRAIN_SLICE_S = 0.05

from kombu_describe import PROFILES, describe  # noqa: E402


class KombuThread(ConnectionThread):
    def __init__(self):
        super().__init__()
        self.conn = None
        self.profile = None
        self.tags = {}
        self.next_tag = 0
        self.generation = 0
        self.amqp = None  # py-amqp's connection under kombu's (kombu's own `.connection` reconnects when read)

    # -- commands ------------------------------------------------------------------------------
    def handle(self, c):
        op = c['op']
        if op == 'connect':
            return self.connect(c)
        if op == 'publisher':
            self.publishers[c['publisher']] = {'confirms': c['confirms'], 'producer': None}
            if self.up:
                self.open_publisher(c['publisher'])
            return reply(c['id'])
        if op == 'publish':
            self.publish(c['publisher'], c['exchange'], c['routingKey'], base64.b64decode(c['body']), c.get('persistent'))
            return reply(c['id'])
        if op == 'publish_run':
            return self.publish_run(c)
        if op == 'flush':
            return self.flush(c)
        if op == 'close_publisher':
            self.publishers.pop(c['publisher'], None)
            return reply(c['id'])
        if op == 'consume':
            return self.consume(c)
        if op in ('ack', 'nack'):
            return self.settle(c)
        if op == 'cancel':
            entry = self.consumers.pop(c['consumer'], None)
            if entry and self.up:
                try:
                    entry['consumer'].cancel()
                except Exception:  # noqa: BLE001 -- a dead channel has nothing to cancel
                    pass
            return reply(c['id'])
        if op == 'ensure':
            return self.ensure(c)
        if op == 'recover':
            return self.recover(c)
        raise Unsupported(f'unknown command {op!r}')

    def connect(self, c):
        self.profile = PROFILES[c['profile']]
        p = self.profile
        options = {'client_properties': {'connection_name': c['connectionName']}} if 'connectionName' in c else {}
        options.update(on_blocked=lambda reason=None: self.signal('blocked', reason or 'blocked'),
                       on_unblocked=lambda: self.signal('unblocked', 'unblocked'))
        self.conn = kombu.Connection(';'.join(c['urls']), heartbeat=p['heartbeat'], connect_timeout=p['connect_timeout'],
                                     transport_options=options)
        deadline = now_ns() + c['startBoundMs'] * 1_000_000
        try:
            self.conn.ensure_connection(max_retries=None, interval_start=0.05, interval_step=0.05, interval_max=0.5,
                                        timeout=c['startBoundMs'] / 1000.0)
        except Exception as exc:  # noqa: BLE001
            raise TimeoutError(f'first connection failed: {describe_error(exc)}') if now_ns() > deadline else Fault(
                describe_error(exc), classify(exc), now_ns())
        self.back()
        reply(c['id'], localPort=self.local_port(), atNs=ns(now_ns()))

    def publish(self, handle, exchange, routing_key, body, persistent=False):
        if not self.up:
            raise self.outage_fault()
        entry = self.publishers.get(handle)
        if entry is None or entry['producer'] is None:
            raise Unsupported(f'no open publisher {handle}')
        try:
            entry['producer'].publish(body, exchange=exchange, routing_key=routing_key, content_type='application/octet-stream',
                                      content_encoding='binary', delivery_mode=2 if persistent else 1)
        except amqp.exceptions.MessageNacked as nacked:
            raise Nacked(describe_error(nacked))
        except amqp.exceptions.ConsumerCancelled as cancelled:
            self.cancelled(cancelled)
            raise self.outage_fault()
        except amqp.exceptions.ChannelError as closed:
            # This publish's wait for its confirm was cut short by a channel.close, its own channel's or another's
            # (py-amqp has opened that channel again): the Producer stays, as a kombu application's would.
            at = now_ns()
            self.signal('channel_closed', describe_error(closed), at)
            raise Fault(describe_error(closed), 'channel_closed', at)
        except Exception as exc:  # noqa: BLE001 -- a failed connection, as the library raised it
            self.fault(exc)
            raise self.outage_fault()

    def cancelled(self, exc):
        """The broker's basic.cancel: told as the signal, then, as kombu counts it, a connection error (SIGNALS)."""
        self.signal('consumer_cancelled', describe_error(exc))
        self.fault(exc)

    def flush(self, c):
        entry = self.publishers.get(c['publisher'])
        if not self.up or entry is None or entry['producer'] is None:
            raise Fault('not connected', self.outage[0] if self.outage else 'error', now_ns())
        if not entry['confirms']:
            try:
                # A round trip on the publisher's own channel: the broker has taken what came before it.
                entry['producer'].channel.exchange_declare('amq.direct', 'direct', passive=True)
            except Exception as exc:  # noqa: BLE001
                self.fault(exc)
                raise Fault(describe_error(exc), classify(exc), now_ns())
        reply(c['id'])

    def consume(self, c):
        entry = {'queue': c['queue'], 'manual': c['ack'] == 'manual', 'prefetch': c['prefetch'], 'bodies': c['bodies'],
                 'consumer': None, 'count': 0}
        self.consumers[c['consumer']] = entry
        if self.up:
            self.open_consumer(c['consumer'])
        reply(c['id'])
        self.flush_outbox()

    def settle(self, c):
        for tag in c['tags']:
            found = self.tags.pop(tag, None)
            if found is None or found[0] != self.generation or not self.up:
                continue  # a delivery of a channel that is gone: the broker requeued it
            message = found[1]
            try:
                if c['op'] == 'nack':
                    message.reject(requeue=c['requeue'])
                elif c.get('multiple'):
                    message.channel.basic_ack(message.delivery_tag, multiple=True)
                else:
                    message.ack()
            except Exception as exc:  # noqa: BLE001
                self.fault(exc)
                return

    def reconnect(self, deadline_ms):
        if self.up:
            return 0
        p = self.profile
        failed = [0]
        self.conn.collect()  # drop the dead transport (what Celery does after a connection loss)
        try:
            self.conn.ensure_connection(errback=lambda exc, interval: failed.__setitem__(0, failed[0] + 1), max_retries=None,
                                        interval_start=p['interval_start'], interval_step=p['interval_step'],
                                        interval_max=p['interval_max'], timeout=deadline_ms / 1000.0)
        except Exception as exc:  # noqa: BLE001
            raise TimeoutError(f'kombu did not reconnect within {deadline_ms} ms ({failed[0] + 1} attempts): '
                               f'{describe_error(exc)}')
        self.back(attempts=failed[0] + 1)
        return failed[0] + 1

    # -- the connection -----------------------------------------------------------------------
    def back(self, attempts=None):
        self.amqp = self.conn.connection
        self.generation += 1
        self.tags.clear()
        self.up = True
        self.outage = None
        for handle in self.publishers:
            self.open_publisher(handle)
        for handle in self.consumers:
            self.open_consumer(handle)
        if attempts is not None:
            emit({'ev': 'recovered', 'atNs': ns(now_ns()), 'attempts': attempts, 'localPort': self.local_port()})

    def open_publisher(self, handle):
        entry = self.publishers[handle]
        channel = self.conn.channel()
        if entry['confirms']:
            # What py-amqp's Channel does for a connection opened with confirm_publish, for this channel alone.
            channel.basic_publish = channel.basic_publish_confirm
        entry['producer'] = Producer(channel, auto_declare=False)

    def open_consumer(self, handle):
        entry = self.consumers[handle]
        generation = self.generation

        def on_message(message):
            self.deliver(handle, entry, generation, message)

        consumer = Consumer(self.conn.channel(), queues=[Queue(entry['queue'], no_declare=True)], on_message=on_message,
                            no_ack=not entry['manual'], prefetch_count=entry['prefetch'] or None, auto_declare=False)
        consumer.consume()
        entry['consumer'] = consumer

    def deliver(self, handle, entry, generation, message):
        self.saw_delivery(message.body)
        if entry['bodies']:
            self.next_tag += 1
            self.tags[self.next_tag] = (generation, message)
            self.outbox.setdefault(handle, []).append(
                {'tag': self.next_tag, 'body': base64.b64encode(message.body).decode(),
                 'redelivered': bool(message.delivery_info.get('redelivered')), 'atNs': ns(now_ns())})
        else:
            if entry['manual']:
                message.ack()
            entry['count'] += 1
        # py-amqp hands deliveries over inside any wait of the thread, a publish waiting for its confirm included.
        self.flush_outbox_if_stale()

    def local_port(self):
        try:
            return self.amqp.sock.getsockname()[1]
        except Exception:  # noqa: BLE001
            return None

    def wait(self, timeout_s):
        if not self.up:
            return self.wait_for_wakeup(timeout_s)
        sock = self.amqp.sock
        readable, _, _ = select.select([sock, self.wake_r], [], [], timeout_s)
        self.drain_wakeups()
        try:
            if sock in readable:
                # Bounded: under a steady flow drain_events never times out, and the outbox (deliveries,
                # counts) and the harness's commands wait for this loop. py-amqp reads exactly a frame's
                # bytes, so what is left stays in the socket and select sees it next time.
                until = time.monotonic() + DRAIN_SLICE_S
                while time.monotonic() < until:
                    try:
                        self.conn.drain_events(timeout=0.001)
                    except socket.timeout:
                        break
            if self.profile['heartbeat']:
                self.conn.heartbeat_check(rate=2)
        except amqp.exceptions.ConsumerCancelled as cancelled:
            self.cancelled(cancelled)
        except amqp.exceptions.ChannelError as closed:
            self.signal('channel_closed', describe_error(closed))
        except Exception as exc:  # noqa: BLE001 -- whatever the library raised is the fault
            self.fault(exc)
        finally:
            self.flush_outbox()

    def cut(self, reason):
        try:
            self.amqp.sock.shutdown(socket.SHUT_RDWR)
        except Exception:  # noqa: BLE001 -- no socket: nothing to cut
            pass

    def shutdown(self, bound_s):
        if self.conn is None:
            return False
        try:
            self.amqp.sock.settimeout(bound_s)
        except Exception:  # noqa: BLE001
            pass
        try:
            self.conn.release()
            return False
        except Exception:  # noqa: BLE001 -- a dead link cannot close politely: its socket is closed instead
            self.cut('close failed')
            return False


if __name__ == '__main__':
    serve(KombuThread, describe)
