/**
 * The two builds a paired run measures: git refs of the project (each checked out once into a
 * work folder of its own and installed with `npm ci`), or the working tree as it is (`.`). A work
 * folder is named after its commit and marked ready only once installed, so a run that was
 * stopped half-way leaves nothing that looks usable: the next run reuses a ready folder and
 * redoes any other.
 */
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BenchError, ConfigError } from '../errors';

const execFileAsync = promisify(execFile);

/** Written into a work folder once its checkout is installed. */
export const READY_MARKER = '.bench-ab-ready';
/** The spec that names the working tree as it is (no checkout, no install). */
export const WORKING_TREE = '.';

export interface Build {
  /** What the user gave: `main`, `HEAD~1`, `.`. */
  readonly spec: string;
  /** The commit (40 hex), or null for the working tree. */
  readonly commit: string | null;
  /** `main (1a2b3c4d)`, `the working tree`. */
  readonly label: string;
}

export interface Repository {
  /** The git work tree's top folder. */
  readonly top: string;
  /** The project's folder inside it (`''` when the project is the repository). */
  readonly prefix: string;
}

async function git(cwd: string, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', [...args], { cwd, maxBuffer: 16 * 1024 * 1024 });
  // Porcelain lines start with their status columns (a space among them): only line ends are trimmed.
  return stdout.replace(/\s+$/, '');
}

/** The git repository the project lives in. @throws ConfigError when it is not in one. */
export async function findRepository(projectDir: string): Promise<Repository> {
  try {
    const top = await git(projectDir, ['rev-parse', '--show-toplevel']);
    const prefix = await git(projectDir, ['rev-parse', '--show-prefix']);
    return { top, prefix: prefix.replace(/\/$/, '') };
  } catch {
    throw new ConfigError(
      'bench ab',
      `a project inside a git repository (git refs are checked out from it); ${projectDir} is not in one`,
      projectDir,
    );
  }
}

/**
 * A build from its spec: `.` is the working tree; anything else must name a commit. `HEAD` (or a
 * ref at HEAD's commit) with uncommitted changes is refused: it would measure the last commit,
 * not what the user is looking at.
 * @throws ConfigError naming the spec and what to do
 */
export async function resolveBuild(spec: string, role: 'baseline' | 'candidate', repository: Repository): Promise<Build> {
  if (spec === WORKING_TREE) return { spec, commit: null, label: 'the working tree' };
  let commit: string;
  try {
    commit = await git(repository.top, ['rev-parse', '--verify', '--quiet', `${spec}^{commit}`]);
  } catch {
    throw new ConfigError(
      `the ${role}`,
      `a git ref (branch, tag or commit) of ${repository.top}, or "." for the working tree, but no commit there is called that (a branch of a remote: fetch it first, e.g. git fetch origin ${spec})`,
      spec,
    );
  }
  const head = await git(repository.top, ['rev-parse', 'HEAD']);
  if (commit === head) {
    const dirty = await git(repository.top, ['status', '--porcelain', '--untracked-files=no', '--', repository.prefix || '.']);
    if (dirty !== '') {
      const files = dirty.split('\n').map((line) => line.slice(3));
      throw new ConfigError(
        `the ${role}`,
        `a commit without uncommitted changes on top (a dirty tree): "${spec}" is HEAD's commit (${commit.slice(0, 8)}), and ${files.slice(0, 5).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''} ${files.length === 1 ? 'has' : 'have'} changes not committed, which a checkout of it would not measure: commit or stash them, or compare with "." (the working tree as it is)`,
        spec,
      );
    }
  }
  return { spec, commit, label: `${spec} (${commit.slice(0, 8)})` };
}

/** The default folder for work folders: one per repository under the system's temp folder. */
export function defaultWorkRoot(repository: Repository): string {
  const id = crypto.createHash('sha1').update(repository.top).digest('hex').slice(0, 8);
  return path.join(os.tmpdir(), 'amqp-bench-ab', id);
}

export interface PreparedBuild {
  readonly build: Build;
  /** Where the side runs: the project's folder in the checkout, or the project itself. */
  readonly projectDir: string;
  /** Said in a progress line: reused, checked out and installed in N s, or the working tree. */
  readonly how: string;
}

/**
 * The build's project folder, checked out and installed if need be (or reused when ready).
 * @throws BenchError when the checkout or the install fails, pointing at its log
 */
export async function prepareBuild(
  build: Build,
  repository: Repository,
  projectDir: string,
  workRoot: string,
  log: (line: string) => void,
): Promise<PreparedBuild> {
  if (build.commit === null) return { build, projectDir, how: 'the working tree as it is' };
  const folder = path.join(workRoot, build.commit);
  const inCheckout = path.join(folder, repository.prefix);
  if (fs.existsSync(path.join(folder, READY_MARKER))) return { build, projectDir: inCheckout, how: `reused ${folder}` };
  // Anything else there was left half-way by a run that was stopped: start again.
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(workRoot, { recursive: true });
  const startedMs = Date.now();
  log(`bench ab: checking out ${build.label} into ${folder}`);
  try {
    await git(workRoot, ['clone', '--quiet', '--shared', '--no-checkout', repository.top, folder]);
    await git(folder, ['checkout', '--quiet', '--detach', build.commit]);
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true });
    throw new BenchError('BUILD_FAILED', `checking out ${build.label} into ${folder} failed: ${(error as Error).message.trim()}`);
  }
  log(`bench ab: installing ${build.label} (npm ci in ${inCheckout})`);
  await install(inCheckout, build);
  fs.writeFileSync(path.join(folder, READY_MARKER), `${new Date().toISOString()}\n`);
  return {
    build,
    projectDir: inCheckout,
    how: `checked out and installed in ${Math.round((Date.now() - startedMs) / 1000)} s (${folder})`,
  };
}

function install(projectDir: string, build: Build): Promise<void> {
  const logPath = path.join(projectDir, 'bench-ab-install.log');
  const output = fs.openSync(logPath, 'w');
  return new Promise<void>((resolve, reject) => {
    const child = spawn('npm', ['ci', '--no-audit', '--no-fund'], { cwd: projectDir, stdio: ['ignore', output, output] });
    child.once('error', (error) =>
      reject(new BenchError('BUILD_FAILED', `installing ${build.label} could not start npm: ${error.message}`)),
    );
    child.once('exit', (code, signal) => {
      fs.closeSync(output);
      if (code === 0) return resolve();
      // npm says why first (its usage text and the debug log's path follow): the first lines that say something.
      const said = fs
        .readFileSync(logPath, 'utf8')
        .split('\n')
        .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
        .filter((line) => line !== '' && !/^code /.test(line))
        .slice(0, 3)
        .join(' ');
      reject(
        new BenchError(
          'BUILD_FAILED',
          `installing ${build.label} failed: npm ci ${signal ? `was stopped by ${signal}` : `exited ${code}`} in ${projectDir} (its output: ${logPath}): ${said}`,
        ),
      );
    });
  });
}
