/**
 * @cloudamqp/amqp-client, loaded once for the adapter. The package is ESM-first
 * (`"type": "module"`) and also ships a CommonJS build, which its exports map hands to
 * `require`; this project compiles to CommonJS, so the code is required here, and its types
 * (one set of declarations, written as ESM) are imported in `import` resolution mode.
 */
import type * as Cloudamqp from '@cloudamqp/amqp-client' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS build; a static import of the ESM declarations is refused under node16 resolution
const library = require('@cloudamqp/amqp-client') as typeof Cloudamqp;

export const { AMQPSession, AMQPClient } = library;
export type AMQPSession = Cloudamqp.AMQPSession;
export type AMQPClient = Cloudamqp.AMQPClient;
export type AMQPExchange = Cloudamqp.AMQPExchange;
export type AMQPMessage = Cloudamqp.AMQPMessage;
export type AMQPQueue = Cloudamqp.AMQPQueue;
export type AMQPSubscription = Cloudamqp.AMQPSubscription;
export type AMQPSessionOptions = Cloudamqp.AMQPSessionOptions;
export type AMQPTlsOptions = Cloudamqp.AMQPTlsOptions;
