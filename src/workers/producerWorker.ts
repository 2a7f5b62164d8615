/**
 * Worker entry: one producer thread of a realistic workload (one connection, one channel, in
 * confirm mode when asked). The logic is src/realistic/producerThread.ts.
 */
import { runProducerThread } from '../realistic/producerThread';

export type { ProducerTask, ProducerThreadReport } from '../realistic/producerThread';
export default runProducerThread;
