/**
 * A test file's own connection and channel on the shared broker, to set queues up and read them
 * back independently of the code under test: opened before the file's tests, closed after them.
 * The channel ignores its errors (a test that checks a missing queue closes it, and opens another).
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { getConfig } from '../../../src/config';

export interface AdminChannel {
  connection: ChannelModel;
  channel: Channel;
}

export function useAdminChannel(url: string = getConfig().amqpUrl): AdminChannel {
  const admin = {} as AdminChannel;
  beforeAll(async () => {
    admin.connection = await amqp.connect(url);
    admin.channel = await admin.connection.createChannel();
    admin.channel.on('error', () => undefined);
  });
  afterAll(async () => {
    await admin.connection?.close().catch(() => undefined);
  });
  return admin;
}
