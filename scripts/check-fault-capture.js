#!/usr/bin/env node
/**
 * Checks a recovery result's fault timeline against a packet capture of the proxy's listen port:
 * for every connection the proxy's timeline says it reset, the first RST the capture saw leave
 * the proxy's port for that client port, the difference between the two, and the fault spread
 * each gives (first to last RST).
 *
 * Usage:
 *   tshark -i lo -f 'tcp port 26120 and tcp[tcpflags] & tcp-rst != 0' \
 *     -T fields -e frame.time_epoch -e tcp.srcport -e tcp.dstport > rst.tsv   (while the benchmark runs)
 *   node scripts/check-fault-capture.js --result <raw result .json> --capture rst.tsv --proxy-port 26120
 *
 * Clocks: the timeline is on the monotonic clock (process.hrtime.bigint()); each result carries a
 * `clock_anchor` (a monotonic reading paired with the wall clock at a millisecond tick, taken right
 * after the run), which turns it into wall-clock seconds, the clock tshark's frame.time_epoch is
 * on. Both are this machine's clocks, so no other alignment is made: the first RST is not forced
 * to agree. A result of several replicates is checked replicate by replicate.
 *
 * Output: one JSON line per replicate: connections matched, the largest |timeline - capture|
 * in ms, the first and last RST's difference, and the spread from each side. Exit code 1 when a
 * connection of the timeline has no RST in the capture.
 */
'use strict';

const fs = require('node:fs');

function parseArgs(argv) {
  const options = { result: undefined, capture: undefined, proxyPort: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${arg} needs a value`);
    i += 1;
    if (arg === '--result') options.result = value;
    else if (arg === '--capture') options.capture = value;
    else if (arg === '--proxy-port') options.proxyPort = Number(value);
    else throw new Error(`unknown argument ${JSON.stringify(arg)}; expected --result, --capture or --proxy-port`);
  }
  if (!options.result || !options.capture || !Number.isInteger(options.proxyPort))
    throw new Error('--result FILE, --capture FILE and --proxy-port PORT are all required');
  return options;
}

/** RSTs that left the proxy's port: client port -> capture times (epoch seconds), oldest first. */
function readCapture(file, proxyPort) {
  const byClientPort = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [time, source, destination] = line.trim().split('\t');
    if (!time || Number(source) !== proxyPort) continue;
    const port = Number(destination);
    if (!byClientPort.has(port)) byClientPort.set(port, []);
    byClientPort.get(port).push(Number(time));
  }
  for (const times of byClientPort.values()) times.sort((a, b) => a - b);
  return byClientPort;
}

function check(details, capture) {
  const anchor = details.clock_anchor;
  const timeline = details.fault_timeline;
  if (!anchor || !Array.isArray(timeline) || timeline.length === 0) return { skipped: 'no fault timeline or clock anchor in this result' };
  const epochOf = (ns) => anchor.epoch_ms / 1000 + Number(BigInt(ns) - BigInt(anchor.monotonic_ns)) / 1e9;
  const pairs = [];
  const missing = [];
  for (const entry of timeline) {
    const proxyEpoch = epochOf(entry.acted_ns);
    const times = capture.get(entry.client_port) || [];
    // The capture's RST on that client port nearest the timeline's moment (a port can come back in a later replicate).
    const nearest = times.reduce(
      (best, time) => (best === undefined || Math.abs(time - proxyEpoch) < Math.abs(best - proxyEpoch) ? time : best),
      undefined,
    );
    if (nearest === undefined || Math.abs(nearest - proxyEpoch) > 1) missing.push(entry.client_port);
    else pairs.push({ port: entry.client_port, proxy: proxyEpoch, capture: nearest });
  }
  if (pairs.length === 0) return { connections: timeline.length, matched: 0, missing };
  const ms = (seconds) => Math.round(seconds * 1e6) / 1e3;
  const diffs = pairs.map((pair) => pair.capture - pair.proxy);
  const first = (key) => Math.min(...pairs.map((pair) => pair[key]));
  const last = (key) => Math.max(...pairs.map((pair) => pair[key]));
  return {
    connections: timeline.length,
    matched: pairs.length,
    missing,
    max_abs_diff_ms: ms(Math.max(...diffs.map(Math.abs))),
    median_diff_ms: ms([...diffs].sort((a, b) => a - b)[Math.floor(diffs.length / 2)]),
    first_rst_diff_ms: ms(first('capture') - first('proxy')),
    last_rst_diff_ms: ms(last('capture') - last('proxy')),
    spread_timeline_ms: ms(last('proxy') - first('proxy')),
    spread_capture_ms: ms(last('capture') - first('capture')),
    spread_diff_ms: ms(last('capture') - first('capture') - (last('proxy') - first('proxy'))),
  };
}

function main(argv) {
  const options = parseArgs(argv);
  const result = JSON.parse(fs.readFileSync(options.result, 'utf8'));
  const capture = readCapture(options.capture, options.proxyPort);
  const details = result.details || {};
  const replicates = Array.isArray(details.replicates) ? details.replicates : [details];
  let incomplete = false;
  replicates.forEach((replicate, index) => {
    const outcome = check(replicate, capture);
    if (outcome.missing && outcome.missing.length > 0) incomplete = true;
    process.stdout.write(`${JSON.stringify({ test: result.test_id, replicate: index + 1, ...outcome })}\n`);
  });
  if (incomplete) process.exitCode = 1;
}

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`check-fault-capture: ${error && error.message ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
