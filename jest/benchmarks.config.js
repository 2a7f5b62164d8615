'use strict';
/**
 * What `bench run` (and the installed `amqp-bench run`) hands to Jest: the benchmark project
 * alone, its reporter, one file at a time (benchmarks share two cores with the broker), and the
 * longest bound any benchmark needs as the default (each test sets its own).
 */
const path = require('node:path');
const benchmarkProject = require('./benchmarkProject');

module.exports = {
  rootDir: path.resolve(__dirname, '..'),
  projects: [benchmarkProject],
  reporters: ['default', path.join(__dirname, '..', 'reporters', 'benchmark-reporter.js')],
  testTimeout: 60_000,
  maxWorkers: 1,
};
