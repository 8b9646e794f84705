/** A loopback S3 server and bucket triggers: the development kit's (src/devkit/s3-bucket.ts), shared with bench:export. */
export * from '../src/devkit/s3-bucket.js';
