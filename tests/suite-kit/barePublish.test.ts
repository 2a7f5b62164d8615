/**
 * Which bare script a client's harness-overhead check runs: its package's, or for a scoped package
 * its scope's, so a new library needs only scripts/bare/<name>.js and no mapping of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { availableClients } from '../../src/client/registry';
import { bareClientOf, bareProgramOf } from '../../src/suite-kit/barePublish';

describe('bareClientOf', () => {
  it("names each Node.js library's script by its package, a scoped one by its scope", () => {
    expect(bareClientOf({ name: 'amqplib' })).toBe('amqplib');
    expect(bareClientOf({ name: 'amqplib-recovery' })).toBe('amqplib');
    expect(bareClientOf({ name: 'rabbitmq-client' })).toBe('rabbitmq-client');
    expect(bareClientOf({ name: 'cloudamqp' })).toBe('cloudamqp');
  });

  it('finds a script for every available Node.js client (a program of another language brings its own)', () => {
    const missing = availableClients()
      .filter((name) => bareProgramOf({ name }) === undefined)
      .filter((name) => !fs.existsSync(path.join(__dirname, '../../scripts/bare', `${bareClientOf({ name })}.js`)));
    expect(missing).toEqual([]);
  });
});
