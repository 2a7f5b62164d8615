'use strict';
/**
 * The bare publish reference's command line and protocol, shared by every client's bare script
 * (scripts/bare/<client>.js): argument parsing, timed rounds, the --serve loop and the JSON
 * records. The timed path is only the client module's own `publishBatch`: no harness code.
 * See scripts/bare-publish.js for usage.
 */
const readline = require('node:readline');

function parseArgs(argv) {
  const options = {
    client: 'amqplib',
    queue: undefined,
    messages: 20000,
    size: 256,
    warmup: undefined,
    rounds: 1,
    declare: false,
    serve: false,
    libraryOptions: undefined,
  };
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
    if (arg === '--client') options.client = value();
    else if (arg === '--queue') options.queue = value();
    else if (arg === '--messages') options.messages = count('--messages');
    else if (arg === '--size') options.size = count('--size');
    else if (arg === '--warmup') options.warmup = count('--warmup');
    else if (arg === '--rounds') options.rounds = count('--rounds');
    else if (arg === '--declare') options.declare = true;
    else if (arg === '--serve') options.serve = true;
    else if (arg === '--options') options.libraryOptions = jsonObject('--options', value());
    else
      throw new Error(
        `unknown argument ${JSON.stringify(arg)}; expected --client, --queue, --messages, --size, --warmup, --rounds, --declare, --serve or --options`,
      );
  }
  if (options.messages < 1) throw new Error('--messages must be at least 1');
  if (options.rounds < 1) throw new Error('--rounds must be at least 1');
  if (options.queue === undefined && !options.declare) throw new Error('--queue NAME is required (or --declare for a temporary queue)');
  if (options.warmup === undefined) options.warmup = options.messages;
  return options;
}

/** A JSON object given on the command line (the library's connection options). */
function jsonObject(flag, raw) {
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new Error(`${flag} must be a JSON object; got ${JSON.stringify(raw.slice(0, 80))} (${error.message})`, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error(`${flag} must be a JSON object; got ${JSON.stringify(raw.slice(0, 80))}`);
  return parsed;
}

async function timedRound(client, queue, payload, options, round) {
  const startedNs = process.hrtime.bigint();
  await client.publishBatch(queue, payload, options.messages);
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
async function serve(client, queue, payload, options) {
  process.stdout.write(`${JSON.stringify({ ready: true, warmup_messages: options.warmup })}\n`);
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  let round = 0;
  for await (const line of lines) {
    const command = line.trim();
    if (command === '') continue;
    if (command !== 'run') throw new Error(`unknown command ${JSON.stringify(command)} on stdin; expected "run"`);
    round += 1;
    await timedRound(client, queue, payload, options, round);
  }
}

/**
 * Runs the bare publish reference with the client module named by --client
 * (scripts/bare/<client>.js: `open(url, libraryOptions)` resolving to `{ publishBatch, checkQueue, declareTemporaryQueue, deleteQueue, close }`).
 */
async function main(argv) {
  const options = parseArgs(argv);
  if (!/^[a-z0-9-]+$/.test(options.client))
    throw new Error(`--client must be a client name (e.g. amqplib); got ${JSON.stringify(options.client)}`);
  let driver;
  try {
    driver = require(`./${options.client}.js`);
  } catch {
    throw new Error(`no bare script for client ${JSON.stringify(options.client)} (scripts/bare/${options.client}.js)`);
  }
  const url = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
  // Without --options each script uses its own fixed settings (see the script); with it, exactly those.
  const client = await driver.open(url, options.libraryOptions);
  let queue = options.queue;
  try {
    if (options.declare) queue = await client.declareTemporaryQueue(2 * (options.messages * options.rounds + options.warmup));
    else await client.checkQueue(queue);
    const payload = Buffer.alloc(options.size, 0x61);
    if (options.warmup > 0) await client.publishBatch(queue, payload, options.warmup);
    if (options.serve) {
      await serve(client, queue, payload, options);
    } else {
      for (let round = 1; round <= options.rounds; round += 1)
        await timedRound(client, queue, payload, options, options.rounds > 1 ? round : undefined);
    }
    if (options.declare) await client.deleteQueue(queue);
  } finally {
    await client.close().catch(() => undefined);
  }
}

module.exports = { main, parseArgs };
