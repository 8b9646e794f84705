/**
 * S3 and S3-compatible stores through @aws-sdk/client-s3. Credentials come from the app's settings
 * or, without them, the SDK's default chain (environment, profile, instance or task role).
 */
import { createHash } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CONTENT_TYPE, withTimeout, type BucketSettings, type Uploader } from './uploader.js';

interface S3Credentials { accessKeyId: string; secretAccessKey: string; sessionToken?: string }

export function s3Uploader(s: BucketSettings): Uploader {
  const creds = s.credentials as S3Credentials | undefined;
  const client = new S3Client({
    // Without a region anywhere the SDK refuses to start; us-east-1 plus region redirects finds any bucket.
    region: s.region ?? (process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1'),
    followRegionRedirects: true,
    ...(s.endpoint ? {
      endpoint: s.endpoint,
      forcePathStyle: true, // contract §6: S3-compatible stores rarely have per-bucket DNS names
      // the SDK's default CRC32 headers (2025) are refused by several S3-compatible stores;
      // Content-MD5 below still guards the bytes
      requestChecksumCalculation: 'WHEN_REQUIRED' as const,
    } : {}),
    ...(creds ? { credentials: { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey, sessionToken: creds.sessionToken } } : {}),
    maxAttempts: 2, // one quick SDK retry for a dropped connection; the outbox does the real retrying
  });
  return {
    async put(key, body, timeoutMs) {
      const md5 = createHash('md5').update(body).digest('base64');
      await withTimeout(timeoutMs, (signal) => client.send(
        new PutObjectCommand({ Bucket: s.bucket, Key: key, Body: body, ContentType: CONTENT_TYPE, ContentMD5: md5 }),
        { abortSignal: signal },
      ));
    },
    close: () => client.destroy(),
  };
}
