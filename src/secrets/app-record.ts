/**
 * An app record as stored: every secret (the current one and those still in their grace period)
 * and the bucket credentials sealed, each bound to the app key and its field; everything else as
 * it is (the admin API, the explorer and the delivery worker's routing read those). The clear
 * record exists only in memory (the registry's, the delivery worker's).
 */
import type { AppRecord, Delivery } from '../schemas/app.js';
import type { SecretKey } from './key.js';
import type { Keyring } from './keyring.js';
import { isSealed, sealedWith } from './seal.js';

/** Where sealed credentials go in `delivery.credentials` (a provider's credentials never use this name). */
const SEALED_FIELD = 'dwell_sealed';

const secretPlace = (app: string) => `${app}\0secret`;
const credentialsPlace = (app: string) => `${app}\0credentials`;

type WithCredentials = Delivery & { credentials?: Record<string, unknown> };

/** The stored form: sealed with `key` (none: clear, as without DWELL_SECRET_KEY). */
export function sealApp(ring: Keyring, app: AppRecord, key: SecretKey | undefined): AppRecord {
  if (!key) return app;
  const d = app.delivery as WithCredentials;
  return {
    ...app,
    secrets: app.secrets.map((s) => ({ ...s, value: ring.seal(s.value, secretPlace(app.app_key), key) })),
    delivery: d.credentials ? { ...d, credentials: { [SEALED_FIELD]: ring.seal(JSON.stringify(d.credentials), credentialsPlace(app.app_key), key) } } as Delivery : app.delivery,
  };
}

/** The clear record of a stored one (clear values pass through). Throws SealError when a value does not open. */
export function openApp(ring: Keyring, stored: AppRecord): AppRecord {
  const sealedCreds = sealedCredentials(stored);
  const d = stored.delivery as WithCredentials;
  return {
    ...stored,
    secrets: stored.secrets.map((s) => ({ ...s, value: ring.open(s.value, secretPlace(stored.app_key)) })),
    delivery: sealedCreds === undefined ? stored.delivery : { ...d, credentials: JSON.parse(ring.open(sealedCreds, credentialsPlace(stored.app_key))) } as Delivery,
  };
}

/** Each secret and credential of a stored record, by the id of the key that sealed it (undefined: clear). */
export function sealedBy(stored: AppRecord): Array<string | undefined> {
  const d = stored.delivery as WithCredentials;
  const creds = d.credentials ? [sealedWith(sealedCredentials(stored))] : [];
  return [...stored.secrets.map((s) => sealedWith(s.value)), ...creds];
}

function sealedCredentials(stored: AppRecord): string | undefined {
  const c = (stored.delivery as WithCredentials).credentials;
  const v = c?.[SEALED_FIELD];
  return isSealed(v) ? v : undefined;
}
