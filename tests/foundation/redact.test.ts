import { redactText, redactUrl } from '../../src/redact';

describe('redaction', () => {
  it('removes the password of a URL and keeps the rest', () => {
    expect(redactUrl('amqp://guest:guest@127.0.0.1:5672')).toBe('amqp://guest@127.0.0.1:5672');
    expect(redactUrl('amqps://u:s3cr%40t@host/vh')).toBe('amqps://u@host/vh');
    expect(redactUrl('amqp://127.0.0.1')).toBe('amqp://127.0.0.1');
  });

  it('removes passwords from URLs inside free text', () => {
    expect(redactText('connect ECONNREFUSED amqp://admin:hunter2@10.1.1.1:5672 and http://a:b@c')).toBe(
      'connect ECONNREFUSED amqp://admin@10.1.1.1:5672 and http://a@c',
    );
  });
});
