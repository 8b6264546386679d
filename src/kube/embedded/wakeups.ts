/**
 * In-process wake-ups: every store instance on the same file in this process wakes the others'
 * watchers right after its commit, so local watches do not wait for the poll interval. Other
 * processes are reached by polling only.
 */
type Wake = () => void;

const listeners = new Map<string, Set<Wake>>();

export const wakeups = {
  subscribe(path: string, wake: Wake): () => void {
    let set = listeners.get(path);
    if (!set) listeners.set(path, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0) listeners.delete(path);
    };
  },
  notify(path: string): void {
    for (const wake of [...(listeners.get(path) ?? [])]) wake();
  },
};
