/**
 * Google Cloud Storage through @google-cloud/storage v7 (v8 needs Node 22). Credentials are the
 * app's service-account key object or, without one, application default credentials.
 *
 * With `endpoint` (an emulator, a private endpoint) the client sends no auth by default; we ask
 * for auth there only when the app gave a key, so emulators work without any credentials.
 */
import { Storage } from '@google-cloud/storage';
import { CONTENT_TYPE, withTimeout, type BucketSettings, type Uploader } from './uploader.js';

interface ServiceAccountKey { project_id?: string; client_email?: string; private_key?: string }

export function gcsUploader(s: BucketSettings): Uploader {
  const key = s.credentials as ServiceAccountKey | undefined;
  const storage = new Storage({
    ...(key ? { credentials: key, projectId: key.project_id } : {}),
    ...(s.endpoint ? { apiEndpoint: s.endpoint.replace(/\/+$/, ''), useAuthWithCustomEndpoint: key !== undefined } : {}),
    retryOptions: { autoRetry: false }, // the outbox retries, with backoff we can see in metrics
  });
  const bucket = storage.bucket(s.bucket);
  return {
    async put(name, body, timeoutMs) {
      // One multipart request: batches are at most 5 MB, well under where resumable uploads pay off.
      await withTimeout(timeoutMs, () => bucket.file(name).save(body, {
        resumable: false,
        contentType: CONTENT_TYPE,
        timeout: timeoutMs,
        validation: 'crc32c',
      }));
    },
    close: () => {},
  };
}
