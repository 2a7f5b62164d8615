#!/usr/bin/env node
/**
 * Bare recovery: the floor the recovery harness-overhead check compares the harness with. Plain
 * amqplib consumers in worker threads (node:worker_threads), one connection each, through
 * whatever URL it is given (the fault proxy), and nothing else in their path: no harness code,
 * no pool library. Each thread consumes its own existing queue (auto ack), notes the moment
 * amqplib reports its connection's 'error' or 'close' (process.hrtime.bigint(), the machine's
 * monotonic clock, the same clock as the fault proxy's timeline), and when told the fault is
 * gone reconnects (retrying every 10 ms, as the harness loop's first retry), consumes again, and
 * proves it with a round trip: a marker published on a second channel to its own queue, back
 * through its consumer (one such round trip also before the fault, as the harness makes). Whoever
 * drives it injects and removes the fault.
 *
 * Usage (driven through stdin/stdout, one JSON object per line):
 *   node scripts/bare-recovery.js --threads N --queue-prefix PREFIX [--bound-ms 30000]
 * Thread i consumes PREFIX.i (the queues must exist and be fed). The broker URL comes from
 * AMQP_URL (default amqp://guest:guest@127.0.0.1:5672), not argv, so credentials never show in
 * a process list.
 *
 * Protocol:
 *   out {"ready":true,"threads":N}        every thread connected, consuming, and had a delivery
 *   out {"all_detected":true}             every thread's connection failed (or its thread failed)
 *   in  removed                           the fault is gone: every thread recovers now
 *   out {"all_recovered":true}            every thread recovered (or failed)
 *   in  report                            out {"threads":[{thread, local_port, ready_ns, detected_ns,
 *                                           cause, recovery_started_ns, recovered_ns, attempts,
 *                                           deliveries, error}]}  (ns as decimal strings, or null)
 *   end of stdin                          every connection closed, exit 0
 *
 * Exit code 0 on success; 1 with a one-line message on stderr otherwise.
 */
'use strict';

const { isMainThread, parentPort, workerData, Worker } = require('node:worker_threads');
const readline = require('node:readline');
const amqp = require('amqplib');

const now = () => process.hrtime.bigint();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function parseArgs(argv) {
  const options = { threads: undefined, queuePrefix: undefined, boundMs: 30000 };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      if (argv[i + 1] === undefined) throw new Error(`${arg} needs a value`);
      i += 1;
      return argv[i];
    };
    const count = (raw) => {
      const parsed = Number(raw);
      if (!Number.isInteger(parsed) || parsed < 1)
        throw new Error(`${arg} must be a whole number of at least 1; got ${JSON.stringify(raw)}`);
      return parsed;
    };
    if (arg === '--threads') options.threads = count(value());
    else if (arg === '--queue-prefix') options.queuePrefix = value();
    else if (arg === '--bound-ms') options.boundMs = count(value());
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; expected --threads, --queue-prefix or --bound-ms`);
  }
  if (options.threads === undefined) throw new Error('--threads N is required');
  if (options.queuePrefix === undefined) throw new Error('--queue-prefix PREFIX is required');
  return options;
}

/** What amqplib reported, in the harness's words (reset, closed, error): the same classification, inlined. */
function causeOf(error) {
  const message = (error && error.message) || '';
  if ((error && error.code === 'ECONNRESET') || /ECONNRESET|reset by peer|EPIPE|ECONNABORTED/i.test(message)) return 'reset';
  if (/unexpected close|socket (?:closed|ended)|closed by the server|\bEOF\b/i.test(message)) return 'closed';
  return error ? 'error' : 'closed';
}

/** One consumer thread: the measured path is amqplib's own events and calls, and a clock reading. */
async function consumerThread({ url, queue, thread, boundMs }) {
  const record = {
    thread,
    local_port: null,
    ready_ns: null,
    detected_ns: null,
    cause: 'none',
    recovery_started_ns: null,
    recovered_ns: null,
    attempts: 0,
    deliveries: 0,
  };
  let connection;
  let markerWaiter;
  let removed;
  let stopped;
  const removal = new Promise((resolve) => (removed = resolve));
  const stop = new Promise((resolve) => (stopped = resolve));
  parentPort.on('message', (message) => (message === 'removed' ? removed() : message === 'stop' ? stopped() : undefined));

  const connect = async () => {
    const model = await amqp.connect(url, { noDelay: true, timeout: 2000 });
    model.on('error', () => undefined);
    return model;
  };
  const consumeOn = async (model) => {
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    await channel.consume(
      queue,
      (message) => {
        if (message === null) return;
        record.deliveries += 1;
        if (record.deliveries === 1) parentPort.postMessage('warm');
        if (markerWaiter && message.content.equals(markerWaiter.marker)) markerWaiter.resolve();
      },
      { noAck: true },
    );
  };

  // As the harness does: a marker goes out on a channel of its own and comes back through the consumer.
  const roundTrip = async (model) => {
    const probes = await model.createChannel();
    probes.on('error', () => undefined);
    const marker = Buffer.from(`probe-${thread}-${now()}`);
    const back = new Promise((resolve) => (markerWaiter = { marker, resolve }));
    probes.sendToQueue(queue, marker);
    await back;
    markerWaiter = undefined;
  };

  const measured = (async () => {
    connection = await connect();
    record.local_port = connection.connection.stream.localPort;
    const detected = new Promise((resolve) => {
      // The moment amqplib tells the application: its first 'error' or 'close' of this connection.
      const onFault = (error) => {
        if (record.detected_ns !== null) return;
        record.detected_ns = String(now());
        record.cause = causeOf(error);
        resolve();
      };
      connection.on('error', onFault);
      connection.on('close', onFault);
    });
    await consumeOn(connection);
    // One round trip before the fault, as the harness's threads make (DrainingConsumer.rehearse):
    // neither side compiles its probe path at the fault.
    await roundTrip(connection);
    record.ready_ns = String(now());
    parentPort.postMessage('ready');
    await detected;
    parentPort.postMessage('detected');

    await removal;
    record.recovery_started_ns = String(now());
    const deadline = Date.now() + boundMs;
    for (;;) {
      record.attempts += 1;
      try {
        connection = await connect();
        break;
      } catch (error) {
        if (Date.now() + 10 > deadline) throw new Error(`could not reconnect within ${boundMs} ms: ${error.message}`, { cause: error });
        await sleep(10);
      }
    }
    await consumeOn(connection);
    await roundTrip(connection);
    record.recovered_ns = String(now());
    parentPort.postMessage('recovered');
  })();
  await Promise.race([
    measured.catch((error) => {
      record.error = error && error.message ? error.message : String(error);
      parentPort.postMessage('failed');
    }),
    stop,
  ]);
  // Stay connected until the driver is done, then close and hand over the record.
  await stop;
  await Promise.race([connection ? connection.close().catch(() => undefined) : undefined, sleep(1000)]);
  parentPort.postMessage({ record });
}

async function main(argv) {
  const options = parseArgs(argv);
  const threads = options.threads;
  const url = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
  const counts = { ready: 0, warm: 0, detected: 0, recovered: 0, failed: 0 };
  const records = [];
  let recordsDone;
  const allRecords = new Promise((resolve) => (recordsDone = resolve));
  const say = (object) => process.stdout.write(`${JSON.stringify(object)}\n`);
  const said = { ready: false, detected: false, recovered: false };
  const fail = (message) => {
    process.stderr.write(`bare-recovery: ${message}\n`);
    process.exit(1);
  };
  const check = () => {
    if (!said.ready && counts.failed > 0) fail(`${counts.failed} of ${threads} threads failed before every thread was ready`);
    if (!said.ready && counts.ready === threads && counts.warm === threads) {
      said.ready = true;
      say({ ready: true, threads });
    }
    if (said.ready && !said.detected && counts.detected + counts.failed >= threads) {
      said.detected = true;
      say({ all_detected: true });
    }
    if (said.detected && !said.recovered && counts.recovered + counts.failed >= threads) {
      said.recovered = true;
      say({ all_recovered: true });
    }
  };
  const workers = Array.from({ length: threads }, (_, thread) => {
    const worker = new Worker(__filename, {
      workerData: { url, queue: `${options.queuePrefix}.${thread}`, thread, boundMs: options.boundMs },
    });
    worker.on('message', (message) => {
      if (typeof message === 'string') {
        counts[message] += 1;
        check();
        return;
      }
      records[thread] = message.record;
      if (records.filter(Boolean).length === threads) recordsDone();
    });
    worker.on('error', (error) => fail(`thread ${thread}: ${error && error.message ? error.message : String(error)}`));
    return worker;
  });

  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  let stopped = false;
  for await (const line of lines) {
    const command = line.trim();
    if (command === 'removed') {
      for (const worker of workers) worker.postMessage('removed');
    } else if (command === 'report') {
      stopped = true;
      for (const worker of workers) worker.postMessage('stop');
      const timer = setTimeout(() => fail('threads did not hand over their records within 5 s'), 5000);
      await allRecords;
      clearTimeout(timer);
      say({ threads: records });
    } else if (command !== '') {
      fail(`unknown command ${JSON.stringify(command)} on stdin; expected "removed" or "report"`);
    }
  }
  if (!stopped) for (const worker of workers) worker.postMessage('stop');
  // Each thread closes its connection on stop (bounded at 1 s); terminate what is left after that.
  await Promise.race([Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve)))), sleep(3000)]);
  await Promise.all(workers.map((worker) => worker.terminate()));
}

if (isMainThread) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`bare-recovery: ${error && error.message ? error.message : String(error)}\n`);
    process.exit(1);
  });
} else {
  consumerThread(workerData).then(
    () => parentPort.close(),
    () => parentPort.close(),
  );
}
