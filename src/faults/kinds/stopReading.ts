/**
 * `stop_reading`: the proxy all but stops reading from the client (Toxiproxy's `bandwidth` toxic
 * upstream at `rate_kbps`, 1 KB/s by default): the client's writes pile up in its socket, then in
 * the library, while the broker's side keeps sending (heartbeats, confirms of what trickled
 * through). A slow or overloaded node, a saturated link: TCP flow control, not an error. The
 * trickle keeps the broker hearing from the client, so it does not close the connection for
 * missed heartbeats; `0` stops the direction entirely (the broker then closes it after two to
 * three heartbeat intervals). Through real Toxiproxy the toxic does the same: its bandwidth stage
 * holds one chunk and the link stops reading behind it.
 *
 * A library that says its writes are held (amqplib's `publish()` returning false until 'drain')
 * is taken as noticing it; one that buffers silently notices nothing, and its memory grows.
 */
import { ConfigError } from '../../errors';
import type { FaultDefinition } from '../model';
import { required } from './arguments';
import { toxicFault } from './toxicFault';

export interface StopReadingOptions {
  readonly [key: string]: number;
  /** What still passes from the client to the broker, KB/s (1 KB = 1000 bytes); 0: nothing. @default 1 */
  readonly rate_kbps: number;
}

export const stopReading: FaultDefinition<StopReadingOptions> = {
  kind: 'stop_reading',
  label: 'Broker stops reading',
  layer: 'network',
  broker: 'shared',
  description: "the client's writes are held (TCP flow control: 1 KB/s passes): publishes pile up in its socket and library",
  argument: 'the rate still passing from the client, in KB/s: 1 (the default), or 0 for none',
  defaults: { rate_kbps: 1 },
  parse(argument) {
    if (argument === undefined || argument === '') return this.defaults;
    const match = /^\s*(\d+)\s*(?:KB\/s|kbps)?\s*$/i.exec(argument);
    if (!match) throw new ConfigError('--fault stop_reading:<rate>', 'a whole number of KB/s such as 1 or 0', argument);
    return { rate_kbps: Number(match[1]) };
  },
  // The toxic records nothing on the timeline: figures are timed from the call that added it.
  acted: () => false,
  actedWords: 'the bandwidth toxic added',
  actsUnrecorded: true,
  expected: 'backpressure',
  actsOnData: true,
  // Held 6 s, publishing 16 KB messages every 2 ms open loop while it holds (a window of 50
  // before and after, so the library's buffers are empty when it starts), so the bytes offered
  // outgrow the sockets' own buffers (a few MB on loopback) and the library's growth shows; what
  // piled up then drains in its own time (the settle bound).
  matrix: {
    bounds: () => ({
      detectionBoundMs: 6000,
      holdMs: 6000,
      recoveryBoundMs: 30_000,
      settleMs: 20_000,
      confirmWindow: 50,
      messageBytes: 16_384,
      publishIntervalMs: 2,
      stall: true,
    }),
  },
  create(context, options) {
    const proxy = required(context.proxy, this.kind, 'the proxy entry the clients connect through');
    return toxicFault(this, options, {
      proxy,
      armed: false,
      specs: [{ type: 'bandwidth', name: 'stop_reading_upstream', stream: 'upstream', attributes: { rate: options.rate_kbps } }],
    });
  },
};
