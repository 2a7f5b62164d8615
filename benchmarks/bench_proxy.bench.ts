/**
 * @benchmark @witness
 *
 * What the fault proxy costs with no toxic, side by side in one run against the same broker:
 * amqplib publishing 256-byte messages directly and through the proxy in alternating rounds
 * (target: proxied >= 90% of direct), the median round trip of a small message (target:
 * < 0.3 ms added), and the embedded proxy's RSS while a bandwidth toxic throttles a fast
 * publisher (target: flat, < 100 MB; BENCH_PROXY_SOAK_SECONDS, default 30, `slow`).
 *
 * Measured: the configured proxy (TOXIPROXY_URL, through the benchmarks' own entry, as every
 * other benchmark reaches the broker), and, when that is not the embedded proxy (a real
 * Toxiproxy), also the embedded one, side by side in the same rounds. Each result names the proxy
 * it measured (`parameters.proxy`, `fault_proxy`). The embedded proxy this file starts runs as
 * `bench proxy --port 0` in its own process, as globalSetup starts it and as real Toxiproxy
 * runs, so its event loop does not compete with the publisher's. The memory soak reads the RSS
 * of a proxy process of its own, so it measures the embedded proxy only. Targets are recorded,
 * not asserted (speed goals never fail a run on a shared machine); correctness is asserted.
 */
import { benchContext } from '../fixtures/context';
import { recordResult } from '../fixtures/record';
import { getConfig } from '../src/config';
import { describeProxyServer, ToxiproxyClient } from '../src/faults';
import { sleep } from '../src/measure/clock';
import { isNonEmpty, median, quantile, sortSamples } from '../src/measure/statistics';
import type { Target } from '../src/results/rawResult';
import { judgedTarget } from '../src/results/targetVerdict';
import { markedTest } from '../src/testing';
import {
  createEntry,
  ENTRY_NAME,
  measuredProxy,
  MESSAGE_BYTES,
  MESSAGES_PER_ROUND,
  openSide,
  publishRound,
  roundOrder,
  roundTrips,
  rssMb,
  startProxyProcess,
  untilQueued,
  type Side,
} from './proxy/sides';

/** Rounds (every side once, the order rotating) after one warm-up round; `pairs` in the parameters, as before. */
const THROUGHPUT_PAIRS = 11;
const ROUND_TRIP_BLOCKS = 10;
const ROUND_TRIPS_PER_BLOCK = 100;
const SOAK_SECONDS = Number(process.env.BENCH_PROXY_SOAK_SECONDS ?? '30');
const SOAK_RATE_KBPS = 1000;

const round2 = (value: number): number => Math.round(value * 100) / 100;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;
const med = (values: number[]): number => (isNonEmpty(values) ? median(values) : NaN);
const q = (values: number[], at: number): number => {
  const sorted = sortSamples(values);
  return sorted ? quantile(sorted, at) : NaN;
};
/** A target judged on the interval of its repetitions (the pairs), or on its one value (never missed on one value). */
const target = (metric: string, comparator: '<' | '>', threshold: number, unit: string, repetitions: readonly number[]): Target =>
  judgedTarget({ metric, comparator, threshold, unit }, repetitions);

describe('TestProxyOverhead', () => {
  let direct: Side;
  /** The configured proxy first, then the embedded one when the configured proxy is not it. */
  const proxied: Side[] = [];
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    const context = benchContext();
    const configured = await new ToxiproxyClient(context.proxy.client.apiUrl).identify();
    direct = await openSide('direct', getConfig().amqpUrl);
    closers.push(() => direct.connection.close());
    const configuredSide = await openSide(
      configured.kind,
      context.proxiedUrl,
      configured,
      `the configured proxy at ${context.proxy.client.apiUrl}, entry "${context.proxy.name}"`,
    );
    closers.push(() => configuredSide.connection.close());
    proxied.push(configuredSide);
    if (configured.kind !== 'embedded') {
      const embedded = await startProxyProcess();
      closers.push(() => embedded.stop());
      const identity = await embedded.client.identify();
      const embeddedSide = await openSide('embedded', await createEntry(embedded), identity, 'bench proxy (child process)');
      closers.push(() => embeddedSide.connection.close());
      proxied.push(embeddedSide);
    }
  }, 60_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }, 30_000);

  test('test_proxy_publish_throughput', async () => {
    const sides = [direct, ...proxied];
    for (const side of sides) await publishRound(side); // warm-up round, not counted
    const rates = new Map<Side, number[]>(sides.map((side) => [side, []]));
    for (let round = 0; round < THROUGHPUT_PAIRS; round += 1) {
      for (const side of roundOrder(sides, round)) rates.get(side)!.push(await publishRound(side));
    }
    const directRates = rates.get(direct)!;
    for (const side of proxied) {
      const proxiedRates = rates.get(side)!;
      const ratios = proxiedRates.map((rate, round) => round2((rate / directRates[round]!) * 100));
      const ratioPercent = round2(med(ratios));
      const which = measuredProxy(side);
      recordResult(
        {
          name: 'proxy_overhead',
          parameters: {
            message_size_bytes: MESSAGE_BYTES,
            messages_per_round: MESSAGES_PER_ROUND,
            pairs: THROUGHPUT_PAIRS,
            ...which.parameters,
            toxics: 'none',
          },
          metrics: {
            ratio_percent: { value: ratioPercent, unit: '%', direction: 'higher' },
            direct_msgs_per_sec: { value: Math.round(med(directRates)), unit: 'msg/s', direction: 'higher' },
            proxied_msgs_per_sec: { value: Math.round(med(proxiedRates)), unit: 'msg/s', direction: 'higher' },
          },
          samples: {
            ratio_percent: ratios,
            direct_msgs_per_sec: directRates.map(Math.round),
            proxied_msgs_per_sec: proxiedRates.map(Math.round),
          },
          targets: [target('ratio_percent', '>', 90, '%', ratios)],
          fault_proxy: which.fault_proxy,
          notes: [
            `measured: ${which.fault_proxy.label} (${side.via})${
              proxied.length > 1
                ? `, in the same rounds as ${proxied
                    .filter((other) => other !== side)
                    .map((other) => describeProxyServer(other.server!))
                    .join(', ')}`
                : ''
            }`,
            `median of ${THROUGHPUT_PAIRS} per-round ratios (proxied/direct); the order of the ${sides.length} sides rotates every round, after one warm-up round`,
            'a round ends when checkQueue reports every message in the queue',
          ],
        },
        `${which.fault_proxy.label}: proxied ${Math.round(med(proxiedRates))} vs direct ${Math.round(med(directRates))} msg/s: ratio ${ratioPercent}% (target >= 90%); rounds ${ratios.join('%, ')}%`,
      );
      expect(ratios).toHaveLength(THROUGHPUT_PAIRS);
    }
  }, 360_000);

  test('test_proxy_round_trip_latency', async () => {
    const sides = [direct, ...proxied];
    for (const side of sides) await roundTrips(side, 100); // warm-up
    const samples = new Map<Side, number[]>(sides.map((side) => [side, []]));
    for (let block = 0; block < ROUND_TRIP_BLOCKS; block += 1) {
      for (const side of roundOrder(sides, block)) samples.get(side)!.push(...(await roundTrips(side, ROUND_TRIPS_PER_BLOCK)));
    }
    const directSamples = samples.get(direct)!;
    const metric = (value: number) => ({ value: round3(value), unit: 'ms', direction: 'lower' as const });
    for (const side of proxied) {
      const proxiedSamples = samples.get(side)!;
      const addedMs = round3(med(proxiedSamples) - med(directSamples));
      const which = measuredProxy(side);
      recordResult(
        {
          name: 'proxy_added_latency',
          parameters: {
            message_size_bytes: 4,
            samples_per_side: ROUND_TRIP_BLOCKS * ROUND_TRIPS_PER_BLOCK,
            ...which.parameters,
            toxics: 'none',
          },
          metrics: {
            added_median_ms: metric(addedMs),
            direct_median_ms: metric(med(directSamples)),
            proxied_median_ms: metric(med(proxiedSamples)),
            direct_p99_ms: metric(q(directSamples, 0.99)),
            proxied_p99_ms: metric(q(proxiedSamples, 0.99)),
          },
          samples: { direct_ms: directSamples.map(round3), proxied_ms: proxiedSamples.map(round3) },
          targets: [target('added_median_ms', '<', 0.3, 'ms', [addedMs])],
          fault_proxy: which.fault_proxy,
          notes: [
            `measured: ${which.fault_proxy.label} (${side.via})`,
            `publish -> delivery to a consumer on the same connection, one message in flight; blocks of 100 rotate between the ${sides.length} sides`,
          ],
        },
        `${which.fault_proxy.label}: median round trip direct ${round3(med(directSamples))} ms, proxied ${round3(med(proxiedSamples))} ms: added ${addedMs} ms (target < 0.3 ms); p99 ${round3(q(directSamples, 0.99))} / ${round3(q(proxiedSamples, 0.99))} ms`,
      );
      expect(proxiedSamples).toHaveLength(ROUND_TRIP_BLOCKS * ROUND_TRIPS_PER_BLOCK);
    }
  }, 180_000);

  markedTest(['slow'])(
    'test_proxy_memory_under_bandwidth_throttle',
    async () => {
      // A fresh proxy process: its memory must not carry the traffic of the tests before.
      const soakProxy = await startProxyProcess();
      closers.push(() => soakProxy.stop());
      const soakIdentity = await soakProxy.client.identify();
      const publisher = await openSide('embedded', await createEntry(soakProxy), soakIdentity, 'bench proxy (child process, fresh)');
      closers.push(() => publisher.connection.close());
      await soakProxy.client.addToxic(ENTRY_NAME, {
        name: 'soak_bandwidth',
        type: 'bandwidth',
        stream: 'upstream',
        attributes: { rate: SOAK_RATE_KBPS },
      });
      const rssSamplesMb: number[] = [rssMb(soakProxy.pid)];
      let published = 0;
      let publishing = true;
      const body = Buffer.alloc(MESSAGE_BYTES, 0x62);
      const publisherDone = (async () => {
        while (publishing) {
          published += 1;
          if (!publisher.channel.sendToQueue(publisher.queue, body))
            await new Promise((resolve) => publisher.channel.once('drain', resolve));
        }
      })();
      const startedMs = performance.now();
      while (performance.now() - startedMs < SOAK_SECONDS * 1000) {
        await sleep(1000);
        rssSamplesMb.push(round2(rssMb(soakProxy.pid)));
      }
      const elapsedS = (performance.now() - startedMs) / 1000;
      publishing = false;
      await soakProxy.client.removeToxic(ENTRY_NAME, 'soak_bandwidth'); // flushes what it holds
      await publisherDone;
      await untilQueued(publisher, published, 120_000);

      const throttledSamples = rssSamplesMb.slice(1);
      const maxRssMb = round2(Math.max(...throttledSamples));
      const secondHalf = throttledSamples.slice(Math.floor(throttledSamples.length / 2));
      const firstHalf = throttledSamples.slice(0, Math.floor(throttledSamples.length / 2));
      const growthMb = round2(med(secondHalf) - med(firstHalf));
      const offeredRate = Math.round(published / elapsedS);
      recordResult(
        {
          name: 'proxy_memory_soak',
          parameters: {
            soak_seconds: SOAK_SECONDS,
            bandwidth_rate_kbps: SOAK_RATE_KBPS,
            message_size_bytes: MESSAGE_BYTES,
            stream: 'upstream',
            proxy: 'embedded',
            proxy_process: 'bench proxy (child process, fresh)',
          },
          metrics: {
            max_rss_mb: { value: maxRssMb, unit: 'MB', direction: 'lower' },
            rss_growth_mb: { value: growthMb, unit: 'MB', direction: 'lower' },
            baseline_rss_mb: { value: round2(rssSamplesMb[0]!), unit: 'MB', direction: 'none' },
            throttled_msgs_per_sec: { value: offeredRate, unit: 'msg/s', direction: 'none' },
          },
          samples: { rss_mb: rssSamplesMb },
          targets: [target('max_rss_mb', '<', 100, 'MB', [maxRssMb])],
          fault_proxy: measuredProxy(publisher).fault_proxy,
          notes: [
            'measured: the embedded proxy only (the RSS of a proxy process this test starts; a configured Toxiproxy may be another machine or container)',
            'RSS of the proxy process (VmRSS from /proc) once per second; the publisher respects amqplib backpressure, so a proxy that kept reading would grow without bound',
            'a fresh `bench proxy` process; its baseline (before the toxic) is Node, esbuild-register and every module src/cli/main.ts imports, not only the proxy',
            'growth = median of the second half minus median of the first half of the throttled samples',
          ],
        },
        `proxy RSS max ${maxRssMb} MB (baseline ${round2(rssSamplesMb[0]!)} MB, growth ${growthMb} MB over ${Math.round(elapsedS)} s; target < 100 MB) while ${SOAK_RATE_KBPS} KB/s throttled ${offeredRate} msg/s`,
      );
      // Throttled means throttled: what got in is what the rate let through plus bounded buffers
      // (amqplib's, the kernel's, the proxy's 8 MiB), not what a free publisher would send.
      expect(published * MESSAGE_BYTES).toBeLessThan(SOAK_RATE_KBPS * 1000 * elapsedS + 32 * 1024 * 1024);
      expect(published).toBeGreaterThan(0);
    },
    SOAK_SECONDS * 1000 + 180_000,
  );
});
