#!/usr/bin/env node
/**
 * Bare consume: the reference the consume harness-overhead check compares the harness with, for
 * each client library (--client, default amqplib; the library code is the `consume` of
 * scripts/bare/<client>.js). One connection, N consumers (one channel each, manual ack, prefetch
 * P) on an existing queue that something else keeps fed (the harness's producers); each delivery
 * is counted and acked, nothing more. After a warm-up, the deliveries are counted over timed
 * windows on process.hrtime.bigint(), the machine's monotonic clock.
 *
 * Usage:
 *   node scripts/bare-consume.js [--client amqplib] --queue NAME [--consumers 1] [--prefetch 100] [--warmup-ms 1000] [--window-ms 3000] [--windows 1]
 *   node scripts/bare-consume.js --queue NAME --serve [--consumers 1] [--prefetch 100] [--warmup-ms 1000] [--window-ms 3000]
 *
 * The broker URL comes from AMQP_URL (default amqp://guest:guest@127.0.0.1:5672), not argv, so
 * credentials never show in a process list. The queue must exist.
 *
 * Output: one JSON line per window, written once the consumers are cancelled (with --windows K > 1
 * each carries "window"; with --serve, "round"); `started_ns`/`ended_ns` are the window's edges
 * on the monotonic clock (strings: they exceed 2^53), `cpu_ms` the CPU time of the consuming
 * thread during the window (Linux /proc; null elsewhere), `consumed_total` every delivery from the
 * consumers' start to their cancel:
 *   {"consumers":10,"prefetch":100,"warmup_ms":1000,"window_ms":3000,"started_ns":"…","ended_ns":"…","seconds":3.0004,"messages":141000,"msgs_per_sec":46994,"cpu_ms":1420,"consumed_total":189000}
 *
 * --serve keeps the process and its connection alive so another program can alternate its own
 * consumers with these under the same conditions (a long-lived, warmed-up connection on both
 * sides): it prints {"ready":true} once connected, then for each "run" line on stdin starts the
 * consumers, warms up, times one window, cancels and prints its record; end of stdin closes and exits.
 *
 * Exit code 0 on success; 1 with a one-line message on stderr otherwise.
 */
'use strict';

const { main } = require('./bare/consumeProtocol');

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`bare-consume: ${error && error.message ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
