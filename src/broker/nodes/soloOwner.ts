/**
 * Who started each solo node, and the sweep of nodes whose starter is gone. Every solo node's
 * folder holds `owner.json` (the owner's pid and its process start, so a pid reused later is not
 * taken for the owner). At each start the folders under `solo-nodes/` whose owner has ended are
 * swept: their node's processes killed (only processes carrying that node's marker) and the
 * folder removed. A node whose owner is alive is never touched, and nothing outside `solo-nodes/`
 * is looked at: not the system broker, not the benchmark cluster.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../io/atomicFile';
import { isAlive, markedProcesses, processStartMarker, waitForExit } from './processes';
import type { ClusterSettings } from './settings';
import { SOLO_NODES_FOLDER } from './soloIdentity';

/** The owner file in each solo node's folder. */
export const OWNER_FILE = 'owner.json';

export interface SoloOwner {
  /** The node's Erlang name (`bench-solo-4711-1@localhost`). */
  readonly node: string;
  readonly owner_pid: number;
  /** The owner's start (processStartMarker); null where /proc did not say. */
  readonly owner_started: string | null;
  /** ISO time the node was started (for a person reading the folder). */
  readonly started_at: string;
}

/** This process as the owner of `node`. */
export function ownerRecord(node: string, now: Date = new Date()): SoloOwner {
  return { node, owner_pid: process.pid, owner_started: processStartMarker(process.pid) ?? null, started_at: now.toISOString() };
}

export function writeOwner(folder: string, owner: SoloOwner): void {
  writeFileAtomic(path.join(folder, OWNER_FILE), `${JSON.stringify(owner, null, 2)}\n`);
}

/** The folder's owner record; undefined when there is none or it is not one. */
export function readOwner(folder: string): SoloOwner | undefined {
  let parsed: Partial<SoloOwner>;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(folder, OWNER_FILE), 'utf8')) as Partial<SoloOwner>;
  } catch {
    return undefined;
  }
  const { node, owner_pid: pid, owner_started: started, started_at: at } = parsed;
  if (typeof node !== 'string' || !Number.isInteger(pid) || (pid as number) < 1) return undefined;
  if (started !== null && typeof started !== 'string') return undefined;
  return { node, owner_pid: pid as number, owner_started: started ?? null, started_at: typeof at === 'string' ? at : '' };
}

/** True while the recorded owner runs: its pid alive and, where recorded, with the same process start. */
export function ownerAlive(owner: SoloOwner): boolean {
  if (!isAlive(owner.owner_pid)) return false;
  if (owner.owner_started === null) return true;
  const started = processStartMarker(owner.owner_pid);
  // A live process whose start cannot be read is taken for the owner: never kill on a doubt.
  return started === undefined || started === owner.owner_started;
}

/** Bound on a swept node's processes exiting after SIGKILL. */
const EXIT_BOUND_MS = 10_000;

/**
 * Sweeps the solo nodes whose owner has ended: kills their processes, removes their folders.
 * @returns the names of the nodes swept (a node whose processes outlived SIGKILL is logged and kept)
 */
export async function sweepSoloNodes(
  settings: Pick<ClusterSettings, 'dir'>,
  log: (line: string) => void = () => undefined,
): Promise<string[]> {
  const root = path.join(settings.dir, SOLO_NODES_FOLDER);
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch {
    return [];
  }
  const swept: string[] = [];
  for (const short of entries) {
    const folder = path.join(root, short);
    const owner = readOwner(folder);
    // An owner file naming another node (the cluster's, say) is not this folder's: left alone.
    if (!owner || !owner.node.startsWith(`${short}@`) || ownerAlive(owner)) continue;
    const pids = markedProcesses({ name: owner.node });
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    const gone = await Promise.all(pids.map((pid) => waitForExit(pid, EXIT_BOUND_MS)));
    if (!gone.every(Boolean)) {
      log(`solo node: ${owner.node} (owner ${owner.owner_pid} gone) still running after SIGKILL; left in ${folder}`);
      continue;
    }
    fs.rmSync(folder, { recursive: true, force: true });
    if (pids.length > 0) log(`solo node: stopped ${owner.node}, left running by process ${owner.owner_pid} (gone)`);
    swept.push(owner.node);
  }
  return swept;
}
