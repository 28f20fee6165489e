// A map of promises made once per key: every caller for a key gets the same promise, and one
// that fails is dropped so that the next caller makes it again. A failure drops only its own
// entry, never a newer promise a caller made after the entry was dropped (evicted, or forgotten
// with its run).

/** `cache`'s promise for `key`, made by `make` the first time; one that failed is made again next time. */
export function cachedPromise<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  const held = cache.get(key);
  if (held) return held;
  const made = make();
  made.catch(() => {
    if (cache.get(key) === made) cache.delete(key);
  });
  cache.set(key, made);
  return made;
}
