#!/usr/bin/env node
'use strict';
// The installed command (`npx amqp-bench ...`): the same CLI as bin/bench.js, with reports, raw
// results and adapter modules resolved from the folder it was started in (the user's project).
process.env.BENCH_WORK_DIR = process.env.BENCH_WORK_DIR || process.cwd();
require('./bench.js');
