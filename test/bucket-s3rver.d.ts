/** The part of s3rver (no bundled types) that the bucket tests and bench/export.ts use. */
declare module 's3rver' {
  interface S3rverOptions { port?: number; address?: string; silent?: boolean; directory: string; resetOnClose?: boolean }
  export default class S3rver {
    constructor(opts: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
