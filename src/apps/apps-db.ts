/** Moved to state/lmdb/apps-db.ts (the embedded state implementation); kept for the delivery worker's import. */
export { openAppsDb, type AppsDb } from '../state/lmdb/apps-db.js';
