'use strict';
// Entry Jest loads (`reporters` in jest.config.ts): Jest loads reporters with plain require and
// stops transpiling TypeScript once its config is read, so this registers esbuild for .ts files
// (as bin/bench.js does) and hands over to the TypeScript reporter.
require('../lib/register');
module.exports = require('./benchmarkReporter.ts').default;
