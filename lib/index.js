'use strict';
// `require('amqp-bench')`: the public API (src/index.ts), compiled on load (lib/register.js).
require('./register');
module.exports = require('../src/index.ts');
