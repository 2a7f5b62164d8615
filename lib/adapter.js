'use strict';
// `require('amqp-bench/adapter')`: what an adapter module needs (src/adapter.ts), compiled on load
// (lib/register.js). Nothing of Jest in it: adapters are loaded in worker threads too.
require('./register');
module.exports = require('../src/adapter.ts');
