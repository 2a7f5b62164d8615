#!/usr/bin/env node
/**
 * Bare amqplib publish: the reference the harness-overhead check compares the harness with.
 * One connection, one channel, plain publishes of N messages of S bytes to a queue through the
 * default exchange, honouring backpressure ('drain'), then one synchronous round trip on the
 * channel (the broker has taken every message). Timed with process.hrtime.bigint() from the
 * first publish to the end of that round trip, after an untimed warm-up batch.
 *
 * Usage:
 *   node scripts/bare-publish.js --queue NAME [--messages 20000] [--size 256] [--warmup N] [--rounds 1] [--declare]
 *   node scripts/bare-publish.js --queue NAME --serve [--messages 20000] [--size 256] [--warmup N]
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

const readline = require('node:readline');
const amqp = require('amqplib');

function parseArgs(argv) {
  const options = { queue: undefined, messages: 20000, size: 256, warmup: undefined, rounds: 1, declare: false, serve: false };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      const next = argv[i + 1];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      i += 1;
      return next;
    };
    const count = (name) => {
      const raw = value();
      const parsed = Number(raw);
      if (!Number.isInteger(parsed) || parsed < 0)
        throw new Error(`${name} must be a whole number of at least 0; got ${JSON.stringify(raw)}`);
      return parsed;
    };
    if (arg === '--queue') options.queue = value();
    else if (arg === '--messages') options.messages = count('--messages');
    else if (arg === '--size') options.size = count('--size');
    else if (arg === '--warmup') options.warmup = count('--warmup');
    else if (arg === '--rounds') options.rounds = count('--rounds');
    else if (arg === '--declare') options.declare = true;
    else if (arg === '--serve') options.serve = true;
    else
      throw new Error(
        `unknown argument ${JSON.stringify(arg)}; expected --queue, --messages, --size, --warmup, --rounds, --declare or --serve`,
      );
  }
  if (options.messages < 1) throw new Error('--messages must be at least 1');
  if (options.rounds < 1) throw new Error('--rounds must be at least 1');
  if (options.queue === undefined && !options.declare) throw new Error('--queue NAME is required (or --declare for a temporary queue)');
  if (options.warmup === undefined) options.warmup = options.messages;
  return options;
}

function waitForDrain(channel) {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      channel.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      channel.off('drain', onDrain);
      reject(new Error('channel closed while waiting for drain'));
    };
    channel.once('drain', onDrain);
    channel.once('close', onClose);
  });
}

async function publishBatch(channel, queue, payload, count) {
  for (let i = 0; i < count; i += 1) {
    if (!channel.sendToQueue(queue, payload)) await waitForDrain(channel);
  }
  // The broker handles a channel's frames in order: this reply means it has taken every message.
  await channel.checkQueue(queue);
}

async function timedRound(channel, queue, payload, options, round) {
  const startedNs = process.hrtime.bigint();
  await publishBatch(channel, queue, payload, options.messages);
  const seconds = Number(process.hrtime.bigint() - startedNs) / 1e9;
  const record = {
    messages: options.messages,
    message_size_bytes: options.size,
    warmup_messages: options.warmup,
    seconds,
    msgs_per_sec: options.messages / seconds,
  };
  process.stdout.write(`${JSON.stringify(round === undefined ? record : { round, ...record })}\n`);
}

/** One timed round per "run" line on stdin, until stdin ends. */
async function serve(channel, queue, payload, options) {
  process.stdout.write(`${JSON.stringify({ ready: true, warmup_messages: options.warmup })}\n`);
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  let round = 0;
  for await (const line of lines) {
    const command = line.trim();
    if (command === '') continue;
    if (command !== 'run') throw new Error(`unknown command ${JSON.stringify(command)} on stdin; expected "run"`);
    round += 1;
    await timedRound(channel, queue, payload, options, round);
  }
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const url = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
  const connection = await amqp.connect(url, { noDelay: true, timeout: 5000 });
  connection.on('error', () => undefined);
  let queue = options.queue;
  try {
    const channel = await connection.createChannel();
    if (options.declare) {
      const declared = await channel.assertQueue(queue || '', {
        exclusive: true,
        arguments: { 'x-max-length': 2 * (options.messages * options.rounds + options.warmup) },
      });
      queue = declared.queue;
    } else {
      await channel.checkQueue(queue);
    }
    const payload = Buffer.alloc(options.size, 0x61);
    if (options.warmup > 0) await publishBatch(channel, queue, payload, options.warmup);
    if (options.serve) {
      await serve(channel, queue, payload, options);
    } else {
      for (let round = 1; round <= options.rounds; round += 1)
        await timedRound(channel, queue, payload, options, options.rounds > 1 ? round : undefined);
    }
    if (options.declare) await channel.deleteQueue(queue);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

main().catch((error) => {
  process.stderr.write(`bare-publish: ${error && error.message ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
