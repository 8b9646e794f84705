/**
 * What Piscina loads in each detection worker (server/pool.ts): workers/detect.js, loaded by a
 * dynamic import. Piscina loads a worker's file with `require` first, and on Node 20 a `require`
 * of an ES module evaluates it synchronously; a worker terminated during that evaluation (a
 * SIGTERM right after /readyz with the warm-up off: the pool goes while the workers still load)
 * aborts the whole process with SIGABRT. A dynamic import is the asynchronous loader, which a
 * terminated worker leaves cleanly. This file is CommonJS so that Piscina's `require` of it
 * succeeds at once. Once the module is there, a task calls it directly, with no extra turn.
 */
type Entry = typeof import('./detect.js');

let entry: Entry | undefined;
const loading = import('./detect.js').then((m) => { entry = m; return m; });
// A failed load is reported to each task that waits for it; not an unhandled rejection besides.
loading.catch(() => undefined);

function run<K extends 'default' | 'batch' | 'explain'>(name: K) {
  return (task: Parameters<Entry[K]>[0]): unknown => (entry ? entry[name](task as never) : loading.then((m) => m[name](task as never)));
}

export = Object.assign(run('default'), { batch: run('batch'), explain: run('explain') });
