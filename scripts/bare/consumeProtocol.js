'use strict';
/**
 * The bare consume reference's command line and protocol, shared by every client's bare module
 * (scripts/bare/<client>.js, its `consume`): argument parsing, timed windows, the --serve loop
 * and the JSON records. The timed path is only the client module's own consumers (count, ack):
 * no harness code. See scripts/bare-consume.js for usage.
 */
const readline = require('node:readline');

function parseConsumeArgs(argv) {
  const options = {
    client: 'amqplib',
    queue: undefined,
    consumers: 1,
    prefetch: 100,
    warmupMs: 1000,
    windowMs: 3000,
    windows: 1,
    serve: false,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      const next = argv[i + 1];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      i += 1;
      return next;
    };
    const count = (minimum) => {
      const raw = value();
      const parsed = Number(raw);
      if (!Number.isInteger(parsed) || parsed < minimum)
        throw new Error(`${arg} must be a whole number of at least ${minimum}; got ${JSON.stringify(raw)}`);
      return parsed;
    };
    if (arg === '--client') options.client = value();
    else if (arg === '--queue') options.queue = value();
    else if (arg === '--consumers') options.consumers = count(1);
    else if (arg === '--prefetch') options.prefetch = count(1);
    else if (arg === '--warmup-ms') options.warmupMs = count(0);
    else if (arg === '--window-ms') options.windowMs = count(1);
    else if (arg === '--windows') options.windows = count(1);
    else if (arg === '--serve') options.serve = true;
    else
      throw new Error(
        `unknown argument ${JSON.stringify(arg)}; expected --client, --queue, --consumers, --prefetch, --warmup-ms, --window-ms, --windows or --serve`,
      );
  }
  if (options.queue === undefined) throw new Error('--queue NAME is required (an existing queue that something keeps fed)');
  if (!/^[a-z0-9-]+$/.test(options.client))
    throw new Error(`--client must be a client name (e.g. amqplib); got ${JSON.stringify(options.client)}`);
  return options;
}

const fs = require('node:fs');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * CPU time (user + system) this thread has used, in ms, from Linux's /proc/thread-self/stat
 * (clock ticks of 10 ms); null elsewhere. Fields are counted after the command name's last ")".
 */
function threadCpuMs() {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isInteger(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

/** The count, the monotonic clock and this thread's CPU time together (deliveries run on this thread: nothing moves in between). */
function reading(consumers) {
  return { ns: process.hrtime.bigint(), delivered: consumers.delivered(), cpuMs: threadCpuMs() };
}

/**
 * Starts the consumers, warms up, times `windows` consecutive windows (one record each), cancels.
 * Each record carries its edges on the machine's monotonic clock, so another process can tell
 * what happened to the queue in between.
 */
async function timedWindows(client, options, windows, round) {
  const consumers = await client.consume(options.queue, { consumers: options.consumers, prefetch: options.prefetch });
  const records = [];
  try {
    await sleep(options.warmupMs);
    let start = reading(consumers);
    for (let window = 1; window <= windows; window += 1) {
      await sleep(options.windowMs);
      const end = reading(consumers);
      const seconds = Number(end.ns - start.ns) / 1e9;
      const messages = end.delivered - start.delivered;
      records.push({
        ...(round === undefined ? (windows > 1 ? { window } : {}) : { round }),
        consumers: options.consumers,
        prefetch: options.prefetch,
        warmup_ms: options.warmupMs,
        window_ms: options.windowMs,
        started_ns: String(start.ns),
        ended_ns: String(end.ns),
        seconds,
        messages,
        msgs_per_sec: messages / seconds,
        cpu_ms: start.cpuMs === null || end.cpuMs === null ? null : end.cpuMs - start.cpuMs,
      });
      start = end;
    }
  } finally {
    await consumers.cancel();
  }
  // Written only once the consumers are cancelled: the queue is free for the next consumer.
  for (const record of records) process.stdout.write(`${JSON.stringify({ ...record, consumed_total: consumers.delivered() })}\n`);
}

/** One warmed-up, timed window per "run" line on stdin, until stdin ends. */
async function serve(client, options) {
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  let round = 0;
  for await (const line of lines) {
    const command = line.trim();
    if (command === '') continue;
    if (command !== 'run') throw new Error(`unknown command ${JSON.stringify(command)} on stdin; expected "run"`);
    round += 1;
    await timedWindows(client, options, 1, round);
  }
}

/**
 * Runs the bare consume reference with the client module named by --client. To add a library:
 * in scripts/bare/<client>.js, export `supportsConsume: true` beside `open(url)`, and have the
 * object `open` resolves to carry `consume(queue, { consumers, prefetch })`: it resolves once
 * every consumer consumes (manual ack, that prefetch, each delivery counted then acked in the
 * library's own callback), to `{ delivered(): number, cancel(): Promise<void> }`; `cancel` closes
 * the consumers and rejects if the connection was lost meanwhile. `checkQueue(queue)` and
 * `close()` are the same as for bare publish.
 */
async function main(argv) {
  const options = parseConsumeArgs(argv);
  let driver;
  try {
    driver = require(`./${options.client}.js`);
  } catch {
    throw new Error(`no bare module for client ${JSON.stringify(options.client)} (scripts/bare/${options.client}.js)`);
  }
  if (typeof driver.open !== 'function') throw new Error(`scripts/bare/${options.client}.js has no open(url)`);
  if (driver.supportsConsume !== true)
    throw new Error(`scripts/bare/${options.client}.js cannot consume yet (it does not export supportsConsume: true)`);
  const url = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
  const client = await driver.open(url);
  try {
    if (typeof client.consume !== 'function')
      throw new Error(
        `scripts/bare/${options.client}.js says it can consume, but its open() gives no consume(queue, { consumers, prefetch })`,
      );
    await client.checkQueue(options.queue);
    if (options.serve) await serve(client, options);
    else await timedWindows(client, options, options.windows, undefined);
  } finally {
    await client.close().catch(() => undefined);
  }
}

module.exports = { main, parseConsumeArgs };
