#!/usr/bin/env node
/**
 * Checks a recovery result's fault timeline against a packet capture of the proxy's listen port
 * (`bench verify` does all of this by itself; this is the same check by hand, on any result).
 *
 * Usage:
 *   tshark -i lo -f 'tcp port 26120 and tcp[tcpflags] & tcp-rst != 0' \
 *     -T fields -e frame.time_epoch -e tcp.srcport -e tcp.dstport > rst.tsv   (while the benchmark runs)
 *   node scripts/check-fault-capture.js --result <raw result .json> --capture rst.tsv --proxy-port 26120
 *
 * Output: one JSON line per replicate: connections matched, the largest |timeline - capture|
 * in ms, the first and last RST's difference, and the spread from each side (src/verify/capture.ts).
 * Exit code 1 when a connection of the timeline has no RST in the capture.
 */
'use strict';

const fs = require('node:fs');
require('esbuild-register/dist/node').register({ target: 'node20' });
const { readRstCapture, checkResult } = require('../src/verify/capture.ts');

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

function main(argv) {
  const options = parseArgs(argv);
  const result = JSON.parse(fs.readFileSync(options.result, 'utf8'));
  const capture = readRstCapture(fs.readFileSync(options.capture, 'utf8'), options.proxyPort);
  let incomplete = false;
  checkResult(result, capture).forEach((outcome, index) => {
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
