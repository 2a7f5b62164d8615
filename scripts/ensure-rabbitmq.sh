#!/usr/bin/env bash
# Makes sure RabbitMQ answers on 127.0.0.1:5672 (or $RABBITMQ_PORT); starts it if it does not.
# Bounded: gives up after $RABBITMQ_WAIT_SECONDS (default 90) with one clear line.
set -euo pipefail
port="${RABBITMQ_PORT:-5672}"
wait_seconds="${RABBITMQ_WAIT_SECONDS:-90}"

answers() { (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; }

if answers; then
  echo "rabbitmq: answering on 127.0.0.1:${port}"
  exit 0
fi
if ! command -v rabbitmq-server >/dev/null 2>&1; then
  echo "rabbitmq: nothing answers on 127.0.0.1:${port} and rabbitmq-server is not installed; start a broker (e.g. docker compose -f compose.yaml up -d rabbitmq)" >&2
  exit 1
fi
echo "rabbitmq: not answering on 127.0.0.1:${port}; starting it with rabbitmq-server -detached"
rabbitmq-server -detached || true
for ((i = 0; i < wait_seconds; i++)); do
  if answers && rabbitmqctl -q await_startup >/dev/null 2>&1; then
    echo "rabbitmq: up after ${i}s"
    exit 0
  fi
  sleep 1
done
echo "rabbitmq: still not answering on 127.0.0.1:${port} after ${wait_seconds}s; see /var/log/rabbitmq/ and rabbitmqctl status" >&2
exit 1
