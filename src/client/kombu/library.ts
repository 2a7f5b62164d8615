/**
 * kombu over py-amqp (Python), the original harness's client family: a program of the client
 * protocol, adapters/python/kombu_client.py (real threads calling drain_events and, when the
 * harness asks, ensure_connection).
 */
import { programLibrary, pythonProgram } from '../process/programs';

export const kombuLibrary = programLibrary('kombu', pythonProgram('kombu_client.py', 'kombu'));
