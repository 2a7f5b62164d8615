/**
 * amqp091-go (Go), no recovery of its own by design: a program of the client protocol,
 * adapters/go/ (built by scripts/setup-clients.sh into adapters/go/bin/amqp091-client).
 */
import { goProgram, programLibrary } from '../process/programs';

export const amqp091GoLibrary = programLibrary('amqp091-go', goProgram('amqp091-client'));
