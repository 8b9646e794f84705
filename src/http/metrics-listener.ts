/**
 * The operator's internal metrics listener (contract §6: "a separate internal listener without
 * [the admin token] is an operator's option"): GET /metrics and nothing else, without a
 * credential, on DWELL_METRICS_HOST:DWELL_METRICS_PORT (127.0.0.1 by default, so a scraper on the
 * same host or a sidecar reads it and the public never can). Prometheus then needs no copy of
 * the admin token, which could create and change apps. node:http is enough for one scrape every
 * few seconds; the public port stays on uWebSockets.js.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

export async function listenMetrics(metrics: Metrics, host: string, port: number): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('only /metrics here\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
    metrics.render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
