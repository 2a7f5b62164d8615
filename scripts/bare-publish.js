#!/usr/bin/env node
/**
 * Bare publish: the reference the harness-overhead check compares the harness with, for each
 * client library (--client, default amqplib; the library code is scripts/bare/<client>.js).
 * One connection, one channel, plain publishes of N messages of S bytes to a queue through the
 * default exchange, honouring the library's backpressure, then one round trip that proves the
 * broker has taken every message. Timed with process.hrtime.bigint() from the first publish to
 * the end of that round trip, after an untimed warm-up batch.
 *
 * Usage:
 *   node scripts/bare-publish.js [--client amqplib] --queue NAME [--messages 20000] [--size 256] [--warmup N] [--rounds 1] [--declare]
 *   node scripts/bare-publish.js --queue NAME --serve [--messages 20000] [--size 256] [--warmup N]
 *   ... [--options JSON]   the library's own connection options (what the harness's adapter passes
 *                          for the configuration measured, e.g. '{"noDelay":true,"heartbeat":5}'),
 *                          so both sides of the overhead check run with the same settings
 *
 * The broker URL comes from AMQP_URL (default amqp://guest:guest@127.0.0.1:5672), not argv,
 * so credentials never show in a process list. Without --declare the queue must exist; with
 * --declare a temporary queue is declared and deleted afterwards. --warmup defaults to
 * --messages.
 *
 * Output: one JSON line per timed round (with --rounds K > 1 or --serve, each carries "round"):
 *   {"messages":20000,"message_size_bytes":256,"warmup_messages":20000,"seconds":0.41,"msgs_per_sec":48780}
 *
 * --serve keeps the process and its connection alive so another program can alternate its own
 * runs with this one's under the same conditions (a long-lived, warmed-up connection on both
 * sides): after the warm-up it prints {"ready":true,"warmup_messages":N}, then runs one timed
 * round per "run" line on stdin and prints its record; end of stdin closes and exits.
 *
 * Exit code 0 on success; 1 with a one-line message on stderr otherwise.
 */
'use strict';

const { main } = require('./bare/protocol');

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`bare-publish: ${error && error.message ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
