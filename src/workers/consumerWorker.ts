/**
 * Worker entry: one consumer thread of a realistic workload (several connections, a channel and
 * consumer per logical consumer). The logic is src/realistic/consumerThread.ts.
 */
import { runConsumerThread } from '../realistic/consumerThread';

export type { ConsumerTask, ConsumerThreadReport } from '../realistic/consumerThread';
export default runConsumerThread;
