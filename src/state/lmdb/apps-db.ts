/**
 * The app registry's LMDB (`<dataDir>/apps.mdb`, one database `apps` keyed by app key), opened
 * the same way by its writer (the HTTP thread's registry) and its reader (the delivery worker):
 * the reader decodes what the writer encoded only with the same path, database name and
 * compression setting, so they live in one place.
 */
import path from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { AppRecord } from '../../schemas/app.js';

export interface AppsDb { root: RootDatabase; db: Database<AppRecord, string> }

export function openAppsDb(dataDir: string, opts: { readOnly?: boolean } = {}): AppsDb {
  const root = open({ path: path.join(dataDir, 'apps.mdb'), compression: false, readOnly: opts.readOnly ?? false });
  return { root, db: root.openDB<AppRecord, string>({ name: 'apps' }) };
}
