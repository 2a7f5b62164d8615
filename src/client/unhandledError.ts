/**
 * The library's error inside Node's ERR_UNHANDLED_ERROR. A channel 'error' nobody listens to (the
 * ChannelWrapper of amqp-connection-manager never does) is re-thrown by Node's EventEmitter, and
 * amqplib turns that throw into the connection's 'error': as is, or, when the Error comes from
 * another realm than Node's own (Jest's sandbox), wrapped as "Unhandled error. (...)" with the
 * original as `context`.
 */
export function unwrapUnhandled(error: Error): unknown {
  const wrapped = error as Error & { code?: unknown; context?: unknown };
  return wrapped.code === 'ERR_UNHANDLED_ERROR' && wrapped.context instanceof Object ? wrapped.context : error;
}
