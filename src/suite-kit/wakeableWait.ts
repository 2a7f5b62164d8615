/**
 * A wait that an event can cut short: a publisher pauses for its pace or a retry, and a confirm, a
 * rejection or a fault wakes it at once (each wait is woken at most once; a wake with no wait
 * pending does nothing).
 */
export class WakeableWait {
  private wakeUp: (() => void) | undefined;

  /** Resolves after `ms`, or as soon as `wake()` is called. */
  pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Ends the pending wait, if any. */
  wake(): void {
    const waiting = this.wakeUp;
    this.wakeUp = undefined;
    waiting?.();
  }
}
