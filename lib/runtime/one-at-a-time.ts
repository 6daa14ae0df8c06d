/**
 * `fn`, one call at a time, each starting after the one before settled (resolved or rejected).
 * For reloads that must apply in the order they read: the data plane's configuration reload is
 * started by the propagation's poll and directly after a change, and an older read finishing last
 * would undo the change until the next poll (a quota, a pin, a kill switch).
 */
export function oneAtATime<T>(fn: () => Promise<T>): () => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return () => {
    const next = last.then(fn, fn);
    last = next.catch(() => {});
    return next;
  };
}
