/**
 * `dwell secrets rotate-key --old-key … --new-key …`: every stored secret and credential re-sealed
 * with the new key, and the check value made to name it. On a data directory (the embedded
 * mode), with its server stopped (it takes the directory's lock); on a cluster (`--state
 * nats://…`), while its nodes run, once each holds both keys (DWELL_SECRET_KEY the new one,
 * DWELL_SECRET_KEY_OLD the old): they seal with whichever key the check value names, so they
 * follow at their next write.
 */
import { loadConfig } from './config.js';
import { lockDataDir } from './data-dir-lock.js';
import { parseKey, type SecretKey } from './secrets/key.js';
import { Keyring } from './secrets/keyring.js';
import { reseal, unlock } from './secrets/unlock.js';
import { unlockAppsDb } from './state/lmdb/apps-sealed.js';

/** How long a node's write begun under the old check value may take to land (re-sealed after it). */
const SETTLE_MS = 2_000;

export async function rotateKey(v: Record<string, string | true>): Promise<number> {
  const key = (flag: string): SecretKey => {
    try {
      return parseKey(String(v[flag]));
    } catch (err) {
      throw new Error(`dwell secrets rotate-key --${flag}: ${(err as Error).message}`);
    }
  };
  const [oldKey, newKey] = [key('old-key'), key('new-key')];
  const ring = new Keyring([newKey, oldKey], '--new-key (nor --old-key)');
  const flags: Record<string, string> = {};
  if (typeof v['data-dir'] === 'string') flags['--data-dir'] = v['data-dir'];
  if (typeof v.state === 'string') flags['--state'] = v.state;
  const config = loadConfig(flags);
  let done: { where: string; resealed: number };
  if (config.state.kind === 'lmdb') {
    const lock = lockDataDir(config.dataDir); // refused while a server runs on it: restart that one with both keys instead
    try {
      done = { where: `apps.mdb in ${config.dataDir}`, resealed: (await unlockAppsDb(config.dataDir, ring)).resealed };
    } finally {
      lock.release();
    }
  } else {
    const { connectNats } = await import('./state/nats/connect.js');
    const { bucket } = await import('./state/nats/kv.js');
    const { natsSealedStore } = await import('./state/nats/apps.js');
    const ns = await connectNats(config.state.servers, { name: 'dwell-secrets-rotate-key' });
    try {
      const store = natsSealedStore(await bucket(ns, 'dwell-apps'));
      const first = (await unlock(ring, store, 'current')).resealed;
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      done = { where: store.where, resealed: first + (await reseal(ring, store, newKey)) };
    } finally {
      await ns.close();
    }
  }
  process.stdout.write(JSON.stringify({ rotated: true, where: done.where, apps_resealed: done.resealed, key_id: newKey.id }) + '\n');
  return 0;
}
