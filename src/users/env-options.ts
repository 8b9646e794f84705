/**
 * How the users environment (`<data dir>/users`: records, learned tables, retention index) is
 * opened, by every opener of a process alike: lmdb-js shares one LMDB environment per file among
 * a process's threads, with the flags of whichever opened it first, so an opener with other flags
 * would silently get these or give its own to all (server/kit-lmdb.ts, privacy/stores.ts,
 * users/drop-unscoped.ts, the detection threads' users/store.ts).
 *
 * - Plain msgpack maps, not msgpackr records: pooled networks key their venues by id, so nearly
 *   every value would carry (and every read re-parse) a record definition of its own. The task of
 *   bench/http-task.js: 0.83–0.86 → 0.79–0.81 ms a request. Records written before still read.
 * - noSync: a commit survives a crash or kill -9 of the process (it is in the OS page cache); only
 *   an OS crash could lose the last moments of history, which costs a prior, never a trigger.
 *   Waiting for the disk on every request cost two thirds of a worker's time (bench:http).
 * - useWritemap: LMDB writes a transaction's pages in the map itself instead of copying each page
 *   it dirties and writing the copies back with a pwrite each at commit. A request's commit (its
 *   record, the learned values it taught) dirties a dozen pages scattered over the tree: 13 pwrites
 *   a commit in a soak at 300 req/s (strace); bench:users-commit, a record and 10 learned places
 *   at random keys, 0.49 × the CPU a commit (docs/performance.md).
 *   What it gives up, protection of the map from a stray native write, is not protection Dwell
 *   leans on; the file grows with lmdb-js's map in the same steps.
 */
export const USERS_ENV = Object.freeze({ useRecords: false, noSync: true, compression: false, useWritemap: true });
