"""What the pika program says of itself (`--describe`): its profiles' settings in pika's own
names, and how it tells each signal and a silence, citing the library's source."""

import os
import sys

import pika

from amqp_bench_protocol import PROTOCOL_VERSION

PROFILES = {
    'defaults': {'heartbeat': None, 'socket_timeout': 10.0, 'stack_timeout': 15.0},
    'normalised': {'heartbeat': 5, 'socket_timeout': 2.0, 'stack_timeout': 2.0},
}

SIGNALS = {
    'channel_closed': 'ChannelClosedByBroker (e.g. 404 NOT_FOUND) raised by the call on the channel (a confirmed publish) or '
                      'by process_data_events; the connection stays up; pika does not re-open the channel',
    'consumer_cancelled': "the channel's add_on_cancel_callback (basic.cancel from the broker); pika does not consume again",
    'blocked': "BlockingConnection.add_on_connection_blocked_callback (connection.blocked, with the reason)",
    'unblocked': 'BlockingConnection.add_on_connection_unblocked_callback',
}

SILENCE_CHECK = (
    'its HeartbeatChecker, a timer every heartbeat + 5 s (pika/heartbeat.py:65; 10 s at a 5 s heartbeat) that aborts the '
    'stream (AMQPHeartbeatTimeout) when no byte arrived since the previous tick (pika/heartbeat.py:112-131, 146-165, '
    '191-209): a silence is noticed at the first tick that finds a whole period silent, one to two periods after it '
    'began, by where in the period it began (2 to 4 intervals at 5 s; 1.1 to 2.2 at the broker\'s 60 s). '
    'BlockingConnection runs the timer inside any blocking call, a publish waiting for its confirm included '
    '(pika/adapters/blocking_connection.py:512-514)'
)


def describe():
    return {
        'protocol': PROTOCOL_VERSION, 'name': 'pika', 'library': 'pika', 'version': pika.__version__, 'language': 'python',
        'runtime': f'CPython {sys.version.split()[0]} {sys.executable}', 'location': os.path.dirname(pika.__file__),
        'recovery': 'harness', 'multipleHosts': True, 'signals': SIGNALS, 'silenceCheck': SILENCE_CHECK,
        'acks': {'multiple': True, 'nack': True}, 'profiles': ['defaults', 'normalised'],
        'settings': {name: settings_of(name) for name in PROFILES},
    }


def settings_of(profile):
    p = PROFILES[profile]
    return {
        'recovery': "the harness's loop in this program (pika has none): new BlockingConnection attempts with the harness "
                    'backoff, then every channel and consumer re-opened',
        'heartbeat': p['heartbeat'] if p['heartbeat'] is not None else "default (the broker's proposal, 60 s)",
        'socket_timeout': p['socket_timeout'], 'stack_timeout': p['stack_timeout'],
        'connection_attempts': 1, 'blocked_connection_timeout': 'none',
        'TCP_NODELAY': 'on (pika default)',
        'confirms': 'confirm_delivery(): basic_publish waits for each confirm',
    }
