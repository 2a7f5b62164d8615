#!/usr/bin/python3
"""Bare publish for the Python clients: the library alone, no protocol and no harness code in the
timed path - the other side of the harness-overhead check of kombu and pika, speaking the same
command line and records as scripts/bare-publish.js (see there):

  bare_publish.py --client kombu|pika --queue NAME [--messages 20000] [--size 256] [--warmup N]
                  [--serve] [--options '{"profile":"normalised"}']
  bare_publish.py --client kombu|pika --declare ...   a temporary queue of its own, deleted at the end

One connection, one channel, plain publishes of N messages of S bytes through the default exchange
with the same library calls as the client program, then one round trip on the same channel (the
broker has taken them all). The connection's settings are the client program's for the profile
(the same table). The broker URL comes from AMQP_URL. Exit code 1 with one line on stderr on failure.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def parse_args(argv):
    options = {'client': None, 'queue': None, 'messages': 20000, 'size': 256, 'warmup': None, 'serve': False, 'profile': 'defaults',
               'declare': False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if arg in ('--serve', '--declare'):
            options[arg[2:]] = True
            i += 1
            continue
        if value is None:
            raise SystemExit(f'bare-publish: {arg} needs a value')
        if arg in ('--messages', '--size', '--warmup'):
            options[arg[2:]] = int(value)
        elif arg in ('--client', '--queue'):
            options[arg[2:]] = value
        elif arg == '--options':
            options['profile'] = json.loads(value).get('profile', 'defaults')
        else:
            raise SystemExit(f'bare-publish: unknown argument {arg!r}')
        i += 2
    if options['warmup'] is None:
        options['warmup'] = options['messages']
    return options


def queue_helpers(channel):
    """Check (or declare, bounded) and delete a queue: the same calls on py-amqp's and pika's channels."""
    def check_queue(queue, declare_length=None):
        if declare_length is None:
            channel.queue_declare(queue, passive=True)
        else:
            channel.queue_declare(queue, arguments={'x-max-length': declare_length})

    def delete_queue(queue):
        channel.queue_delete(queue)

    return check_queue, delete_queue


def open_kombu(url, profile):
    import kombu
    from kombu import Producer
    from kombu_client import PROFILES
    p = PROFILES[profile]
    conn = kombu.Connection(url, heartbeat=p['heartbeat'], connect_timeout=p['connect_timeout'])
    conn.ensure_connection(max_retries=3)
    channel = conn.channel()
    producer = Producer(channel, auto_declare=False)

    def publish_batch(queue, body, count):
        for _ in range(count):
            producer.publish(body, exchange='', routing_key=queue, content_type='application/octet-stream',
                             content_encoding='binary', delivery_mode=1)
        channel.exchange_declare('amq.direct', 'direct', passive=True)

    return (publish_batch, *queue_helpers(channel), conn.release)


def open_pika(url, profile):
    import pika
    from pika_client import PROFILES
    p = PROFILES[profile]
    params = pika.URLParameters(url)
    if p['heartbeat'] is not None:
        params.heartbeat = p['heartbeat']
    params.socket_timeout = p['socket_timeout']
    params.stack_timeout = p['stack_timeout']
    conn = pika.BlockingConnection(params)
    channel = conn.channel()
    properties = pika.BasicProperties(delivery_mode=1)

    def publish_batch(queue, body, count):
        for _ in range(count):
            channel.basic_publish('', queue, body, properties=properties)
        channel.exchange_declare('amq.direct', 'direct', passive=True)

    return (publish_batch, *queue_helpers(channel), conn.close)


def timed_round(publish_batch, queue, body, options, round_number):
    started = time.monotonic_ns()
    publish_batch(queue, body, options['messages'])
    seconds = (time.monotonic_ns() - started) / 1e9
    record = {'messages': options['messages'], 'message_size_bytes': options['size'], 'warmup_messages': options['warmup'],
              'seconds': seconds, 'msgs_per_sec': options['messages'] / seconds}
    if round_number is not None:
        record = {'round': round_number, **record}
    print(json.dumps(record), flush=True)


def main():
    options = parse_args(sys.argv[1:])
    if options['queue'] is None and not options['declare']:
        raise SystemExit('bare-publish: --queue NAME is required (or --declare for a temporary queue)')
    opener = {'kombu': open_kombu, 'pika': open_pika}.get(options['client'])
    if opener is None:
        raise SystemExit(f'bare-publish: --client must be kombu or pika; got {options["client"]!r}')
    url = os.environ.get('AMQP_URL', 'amqp://guest:guest@127.0.0.1:5672')
    publish_batch, check_queue, delete_queue, close = opener(url, options['profile'])
    try:
        if options['declare']:
            options['queue'] = f'amqp-bench.bare.{os.getpid()}.{time.monotonic_ns()}'
            check_queue(options['queue'], 2 * (options['messages'] + options['warmup']))
        else:
            check_queue(options['queue'])
        body = b'a' * options['size']
        if options['warmup'] > 0:
            publish_batch(options['queue'], body, options['warmup'])
        if not options['serve']:
            timed_round(publish_batch, options['queue'], body, options, None)
            if options['declare']:
                delete_queue(options['queue'])
            return
        print(json.dumps({'ready': True, 'warmup_messages': options['warmup']}), flush=True)
        round_number = 0
        for line in sys.stdin:
            command = line.strip()
            if not command:
                continue
            if command != 'run':
                raise SystemExit(f'bare-publish: unknown command {command!r} on stdin; expected "run"')
            round_number += 1
            timed_round(publish_batch, options['queue'], body, options, round_number)
    finally:
        try:
            close()
        except Exception:  # noqa: BLE001 -- closing after a failure
            pass


if __name__ == '__main__':
    from amqp_bench_protocol import run_bare
    run_bare('bare-publish', main)
