#!/usr/bin/python3
"""pika's BlockingConnection as an amqp-bench client program (protocol: amqp_bench_protocol.py).

One BlockingConnection per process, owned by one real thread that runs process_data_events() and
the commands the harness sends (woken by add_callback_threadsafe, pika's way in from another
thread). pika has no recovery: after a fault, the harness's `ensure` runs this program's loop
(new BlockingConnection attempts with the harness loop's backoff, then every publisher and
consumer re-opened) - the harness's recovery, labelled so, as for the amqplib control.

Run with Debian's python3 (python3-pika) or any interpreter that has pika: BENCH_PYTHON.
"""

import base64
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from amqp_bench_thread import ConnectionThread  # noqa: E402
from amqp_bench_protocol import (  # noqa: E402
    Fault, Nacked, Unsupported, backoff_delay_s, classify, describe_error,
    emit, now_ns, ns, reply, serve,
)

try:
    import pika
    import pika.exceptions
except ImportError as missing:
    sys.stderr.write(f'pika is not installed for {sys.executable}: {missing} '
                     '(Debian: apt-get install python3-pika; or BENCH_PYTHON=<an interpreter that has it>)\n')
    sys.exit(4)

from pika_describe import PROFILES, describe  # noqa: E402

CHANNEL_CLOSED = (pika.exceptions.ChannelClosed, pika.exceptions.ChannelWrongStateError)


class PikaThread(ConnectionThread):
    def __init__(self):
        super().__init__()
        self.conn = None
        self.params = []
        self.backoff = None
        self.profile = None
        self.tags = {}
        self.next_tag = 0
        self.generation = 0
        self.url_index = 0
        self.rng = random.Random()

    def submit(self, command):
        super().submit(command)
        conn = self.conn
        if conn is not None and self.up:
            try:
                conn.add_callback_threadsafe(lambda: None)  # process_data_events returns: the command runs next
            except Exception:  # noqa: BLE001 -- a closed connection: the loop wakes on the pipe instead
                pass

    # -- commands ------------------------------------------------------------------------------
    def handle(self, c):
        op = c['op']
        if op == 'connect':
            return self.connect(c)
        if op == 'publisher':
            self.publishers[c['publisher']] = {'confirms': c['confirms'], 'channel': None}
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
            entry = self.publishers.pop(c['publisher'], None)
            self.quietly(lambda: entry and entry['channel'] and entry['channel'].close())
            return reply(c['id'])
        if op == 'consume':
            self.consumers[c['consumer']] = {'queue': c['queue'], 'manual': c['ack'] == 'manual', 'prefetch': c['prefetch'],
                                             'bodies': c['bodies'], 'channel': None, 'count': 0}
            if self.up:
                self.open_consumer(c['consumer'])
            reply(c['id'])
            return self.flush_outbox()
        if op in ('ack', 'nack'):
            return self.settle(c)
        if op == 'cancel':
            entry = self.consumers.pop(c['consumer'], None)
            self.quietly(lambda: entry and entry['channel'] and entry['channel'].close())
            return reply(c['id'])
        if op == 'ensure':
            return self.ensure(c)
        if op == 'recover':
            return self.recover(c)
        raise Unsupported(f'unknown command {op!r}')

    def connect(self, c):
        self.profile = PROFILES[c['profile']]
        self.backoff = c['harnessBackoff']
        self.params = []
        for url in c['urls']:
            params = pika.URLParameters(url)
            p = self.profile
            if p['heartbeat'] is not None:
                params.heartbeat = p['heartbeat']
            params.socket_timeout = p['socket_timeout']
            params.stack_timeout = p['stack_timeout']
            if 'connectionName' in c:
                params.client_properties = {'connection_name': c['connectionName']}
            self.params.append(params)
        deadline = time.monotonic() + c['startBoundMs'] / 1000.0
        last = None
        while time.monotonic() < deadline:
            try:
                self.open_connection()
                return reply(c['id'], localPort=self.local_port(), atNs=ns(now_ns()))
            except Exception as exc:  # noqa: BLE001
                last = exc
                time.sleep(0.05)
        raise TimeoutError(f'first connection failed: {describe_error(last)}')

    def publish(self, handle, exchange, routing_key, body, persistent=False):
        if not self.up:
            raise self.outage_fault()
        entry = self.publishers.get(handle)
        if entry is None or entry['channel'] is None:
            raise Unsupported(f'no open publisher {handle}')
        try:
            entry['channel'].basic_publish(exchange, routing_key, body,
                                           properties=pika.BasicProperties(delivery_mode=2 if persistent else 1))
        except (pika.exceptions.NackError, pika.exceptions.UnroutableError) as nacked:
            raise Nacked(describe_error(nacked))
        except CHANNEL_CLOSED as closed:
            # The channel stays as pika left it (closed; pika opens no other): each later publish raises pika's own
            # ChannelWrongStateError, told once, as the broker's close was.
            at = now_ns()
            if not isinstance(closed, pika.exceptions.ChannelWrongStateError):
                self.signal('channel_closed', describe_error(closed), at)
            raise Fault(describe_error(closed), 'channel_closed', at)
        except Exception as exc:  # noqa: BLE001 -- the connection failed, as pika raised it
            self.fault(exc)
            raise self.outage_fault()

    def flush(self, c):
        entry = self.publishers.get(c['publisher'])
        if not self.up or entry is None or entry['channel'] is None:
            raise Fault('not connected', self.outage[0] if self.outage else 'error', now_ns())
        if not entry['confirms']:
            try:
                entry['channel'].exchange_declare('amq.direct', 'direct', passive=True)
            except Exception as exc:  # noqa: BLE001
                self.fault(exc)
                raise Fault(describe_error(exc), classify(exc), now_ns())
        reply(c['id'])

    def settle(self, c):
        for tag in c['tags']:
            found = self.tags.pop(tag, None)
            if found is None or found[0] != self.generation or not self.up:
                continue  # a delivery of a channel that is gone: the broker requeued it
            _, channel, delivery_tag = found
            try:
                if c['op'] == 'nack':
                    channel.basic_nack(delivery_tag, requeue=c['requeue'])
                else:
                    channel.basic_ack(delivery_tag, multiple=bool(c.get('multiple')))
            except CHANNEL_CLOSED:
                continue
            except Exception as exc:  # noqa: BLE001
                self.fault(exc)
                return

    def reconnect(self, deadline_ms):
        """The harness's loop (pika has none): attempts with the harness backoff until the deadline."""
        if self.up:
            return 0
        deadline = time.monotonic() + deadline_ms / 1000.0
        attempt = 0
        last = None
        while True:
            attempt += 1
            try:
                self.open_connection(attempts=attempt)
                return attempt
            except Exception as exc:  # noqa: BLE001
                last = exc
            delay = backoff_delay_s(self.backoff, attempt, self.rng)
            if time.monotonic() + delay > deadline:
                raise TimeoutError(f'could not reconnect within {deadline_ms} ms ({attempt} attempts): {describe_error(last)}')
            time.sleep(delay)

    # -- the connection -----------------------------------------------------------------------
    def open_connection(self, attempts=None):
        old, self.conn = self.conn, None
        self.quietly(lambda: old and old.is_open and old.close())
        params = self.params[self.url_index % len(self.params)]
        self.url_index += 1
        conn = pika.BlockingConnection(params)
        conn.add_on_connection_blocked_callback(lambda _c, frame: self.signal('blocked', getattr(frame.method, 'reason', 'blocked')))
        conn.add_on_connection_unblocked_callback(lambda _c, _frame: self.signal('unblocked', 'unblocked'))
        self.conn = conn
        self.generation += 1
        self.tags.clear()
        try:
            for handle in self.publishers:
                self.open_publisher(handle)
            for handle in self.consumers:
                self.open_consumer(handle)
        except Exception:
            self.quietly(conn.close)
            self.conn = None
            raise
        self.up = True
        self.outage = None
        if attempts is not None:
            emit({'ev': 'recovered', 'atNs': ns(now_ns()), 'attempts': attempts, 'localPort': self.local_port()})

    def open_publisher(self, handle):
        entry = self.publishers[handle]
        channel = self.conn.channel()
        if entry['confirms']:
            channel.confirm_delivery()
        entry['channel'] = channel

    def open_consumer(self, handle):
        entry = self.consumers[handle]
        generation = self.generation
        channel = self.conn.channel()
        if entry['prefetch']:
            channel.basic_qos(prefetch_count=entry['prefetch'])
        channel.add_on_cancel_callback(lambda frame: self.signal('consumer_cancelled', f'basic.cancel from the broker ({entry["queue"]})'))

        def on_message(ch, method, properties, body):
            self.saw_delivery(body)
            if entry['bodies']:
                self.next_tag += 1
                self.tags[self.next_tag] = (generation, ch, method.delivery_tag)
                self.outbox.setdefault(handle, []).append(
                    {'tag': self.next_tag, 'body': base64.b64encode(body).decode(), 'redelivered': bool(method.redelivered),
                     'atNs': ns(now_ns())})
            else:
                if entry['manual']:
                    ch.basic_ack(method.delivery_tag)
                entry['count'] += 1

        channel.basic_consume(entry['queue'], on_message, auto_ack=not entry['manual'])
        entry['channel'] = channel

    def local_port(self):
        try:
            return self.conn._impl._transport._sock.getsockname()[1]  # pika keeps its socket in private fields
        except Exception:  # noqa: BLE001
            return None

    @staticmethod
    def quietly(action):
        try:
            action()
        except Exception:  # noqa: BLE001 -- closing what is already dead
            pass

    def wait(self, timeout_s):
        if not self.up:
            return self.wait_for_wakeup(timeout_s)
        try:
            self.drain_wakeups()
            self.conn.process_data_events(time_limit=timeout_s)
        except CHANNEL_CLOSED as closed:
            self.signal('channel_closed', describe_error(closed))
        except Exception as exc:  # noqa: BLE001 -- whatever pika raised is the fault
            self.fault(exc)
        finally:
            self.flush_outbox()

    def cut(self, reason):
        try:
            import socket
            self.conn._impl._transport._sock.shutdown(socket.SHUT_RDWR)
        except Exception:  # noqa: BLE001 -- no socket: nothing to cut
            pass

    def shutdown(self, bound_s):
        conn = self.conn
        if conn is None or not conn.is_open:
            return False
        try:
            conn.close()
        except Exception:  # noqa: BLE001 -- a dead link cannot close politely
            self.cut('close failed')
        return False


if __name__ == '__main__':
    serve(PikaThread, describe)
