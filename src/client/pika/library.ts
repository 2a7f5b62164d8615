/** pika's BlockingConnection (Python), one per connection: a program of the client protocol, adapters/python/pika_client.py. */
import { programLibrary, pythonProgram } from '../process/programs';

export const pikaLibrary = programLibrary('pika', pythonProgram('pika_client.py', 'pika'));
