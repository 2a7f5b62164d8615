"""What the kombu program says of itself (`--describe`): its profiles' settings in kombu's and
py-amqp's own names, and how it tells each signal and a silence, citing the library's source."""

import os
import sys

import amqp
import kombu

from amqp_bench_protocol import PROTOCOL_VERSION

PROFILES = {
    'defaults': {'heartbeat': 0, 'connect_timeout': 5, 'interval_start': 2.0, 'interval_step': 2.0, 'interval_max': 30.0},
    'normalised': {'heartbeat': 5, 'connect_timeout': 2, 'interval_start': 0.1, 'interval_step': 0.2, 'interval_max': 1.0},
}

SIGNALS = {
    'channel_closed': "py-amqp raises the broker's channel.close (amqp.exceptions.ChannelError, e.g. NotFound 404) from "
                      'whatever call is reading: drain_events, or a publish waiting for its confirm (whichever channel was '
                      'closed); the connection stays up and py-amqp opens that channel again itself, same number, without its '
                      'consumers and without confirm mode (amqp/channel.py:175-177, 290-295): a publish on it then waits for a '
                      'confirm that never comes (amqp/channel.py:1814-1822)',
    'consumer_cancelled': "py-amqp raises ConsumerCancelled from whatever call is reading on the broker's basic.cancel (kombu "
                          'registers no cancel callback); it is a RecoverableConnectionError (amqp/exceptions.py:74, 86), so '
                          "kombu's own recovery (Connection.ensure, kombu/connection.py:524-545; ConsumerMixin.run, "
                          'kombu/mixins.py:164-176) connects again, as the harness\'s ensure does here',
    'blocked': "py-amqp's on_blocked callback (connection.blocked, with the reason), passed through kombu's transport_options",
    'unblocked': "py-amqp's on_unblocked callback",
}

SILENCE_CHECK = (
    "py-amqp checks heartbeats only when the application calls kombu's Connection.heartbeat_check (kombu/connection.py:288-305 "
    '-> amqp/connection.py:714-770: ConnectionForced once two intervals pass without a byte read), here from the '
    "connection thread's loop between drains. A publish with confirms waits for its confirm in drain_events with no "
    'timeout on a blocking socket (amqp/channel.py:1806-1823, amqp/abstract_channel.py:86-99, amqp/transport.py:195), so a '
    'thread publishing with confirms to a silent peer never reaches heartbeat_check: it waits until the socket closes. '
    'A thread that only consumes (drain_events with a timeout, then heartbeat_check) notices after two intervals'
)



def describe():
    return {
        'protocol': PROTOCOL_VERSION, 'name': 'kombu', 'library': 'kombu', 'version': kombu.__version__, 'language': 'python',
        'runtime': f'CPython {sys.version.split()[0]} {sys.executable}',
        'location': os.path.dirname(kombu.__file__),
        'recovery': 'harness', 'multipleHosts': True, 'signals': SIGNALS, 'silenceCheck': SILENCE_CHECK,
        'acks': {'multiple': True, 'nack': True}, 'profiles': ['defaults', 'normalised'],
        'settings': {name: settings_of(name) for name in PROFILES},
    }


def settings_of(profile):
    p = PROFILES[profile]
    return {
        'recovery': "kombu's ensure_connection (its retry policy), called when the harness asks: kombu reconnects nothing by itself",
        'py_amqp': amqp.__version__,
        'heartbeat': p['heartbeat'] or 'off (kombu default 0)',
        'connect_timeout': p['connect_timeout'],
        'interval_start': p['interval_start'], 'interval_step': p['interval_step'], 'interval_max': p['interval_max'],
        'max_retries': 'none (until the harness deadline)',
        'TCP_NODELAY': 'on (py-amqp default)',
        'confirms': 'basic_publish_confirm (py-amqp waits for each confirm)',
    }
