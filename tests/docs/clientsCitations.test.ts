/**
 * docs/guide/clients.md says what each client library does and cites the file and line of its
 * source at the installed version: every citation must point at a file of one of those packages
 * and at lines it has, and the versions the page names must be the ones package-lock.json
 * installs — so that upgrading a library fails here until its claims are read again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';

const PAGE = path.join(PROJECT_ROOT, 'docs', 'guide', 'clients.md');
const LIBRARIES = [
  'amqplib',
  'amqp-connection-manager',
  'rabbitmq-client',
  '@cloudamqp/amqp-client',
  '@golevelup/nestjs-rabbitmq',
  'rascal',
  // Its own amqplib 0.8 is cited below its package: `node_modules/amqplib/lib/connection.js`.
  'foo-foo-mq',
] as const;
/** Where a package's cited paths start (amqp-connection-manager's are cited without `dist/cjs/`). */
const ROOTS = LIBRARIES.flatMap((library) => ['', 'dist/cjs/'].map((prefix) => path.join(PROJECT_ROOT, 'node_modules', library, prefix)));

interface Citation {
  readonly file: string;
  readonly from: number;
  readonly to: number;
}

/** `lib/connection.js:179-180`, and `:236` after it for the same file, in backticks. */
function citations(text: string): Citation[] {
  const found: Citation[] = [];
  let file: string | undefined;
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    const cited = /^((?:[\w.-]+\/)*[\w.-]+\.(?:js|ts|py|go))?:(\d+)(?:-(\d+))?$/.exec(span!);
    if (!cited) continue;
    file = cited[1] ?? file;
    if (file === undefined) throw new Error(`a citation of lines without a file before it: ${span}`);
    // The Python and Go libraries come from Debian, not node_modules: their lines are not checked here.
    if (/\.(?:py|go)$/.test(file)) continue;
    found.push({ file, from: Number(cited[2]), to: Number(cited[3] ?? cited[2]) });
  }
  return found;
}

function lineCount(file: string): number | undefined {
  for (const root of ROOTS) {
    const candidate = path.join(root, file);
    if (fs.existsSync(candidate)) return fs.readFileSync(candidate, 'utf8').split('\n').length;
  }
  return undefined;
}

describe('the client libraries as docs/guide/clients.md cites them', () => {
  const page = fs.readFileSync(PAGE, 'utf8');

  it('names the versions package-lock.json installs', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    for (const library of LIBRARIES) {
      const version = lock.packages[`node_modules/${library}`]?.version;
      expect({ library, named: page.includes(`${library} ${version}`) }).toEqual({ library, named: true });
    }
  });

  it('cites files of those packages, at lines they have', () => {
    const cited = citations(page);
    expect(cited.length).toBeGreaterThan(50);
    const wrong = cited
      .map((citation) => ({ ...citation, lines: lineCount(citation.file) }))
      .filter((citation) => citation.lines === undefined || citation.from > citation.to || citation.to > citation.lines)
      .map((citation) => `${citation.file}:${citation.from}-${citation.to} (${citation.lines ?? 'no such file'} lines)`);
    expect(wrong).toEqual([]);
  });
});
