/** A sleep that `wake()` cuts short: loops that must stop promptly (informer retries, lease renewals). */
export class WakeableSleep {
  private wakeUp: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}
