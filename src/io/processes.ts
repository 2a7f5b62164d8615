/**
 * Whether a process named in a file (a lock's holder, a temp file's writer) is still there. Only
 * meaningful for a pid of this host: a pid from another machine says nothing here.
 */

/** True when `pid` is a live process on this host (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  // 0 and negative pids name process groups: never a holder.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
