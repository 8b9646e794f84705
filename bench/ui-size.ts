/**
 * The explorer page's transfer size (issue 19): `node dist/bench/ui-size.js`. Starts the real
 * server, opens /ui in Debian's Chromium (src/devkit/browser.ts flags), logs in and lists the
 * bytes that crossed the wire for each file the page loaded (gzip as served), before any data
 * is asked for: the page's own cost, with MapLibre GL JS, its worker and stylesheet.
 */
import { performance } from 'node:perf_hooks';
import { launchBrowser } from '../src/devkit/browser.js';
import { startDwellNode } from '../src/devkit/dwell-node.js';

const ADMIN_TOKEN = 'bench-ui-admin-token';
const dwell = await startDwellNode({ name: 'dwell', state: 'lmdb', adminToken: ADMIN_TOKEN, env: { DWELL_WARM_UP: 'off' } });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  const files: Array<{ url: string; wire: number; body: number }> = [];
  const cdp = await browser.newCDPSession(page);
  await cdp.send('Network.enable');
  const urls = new Map<string, string>();
  const decoded = new Map<string, number>();
  cdp.on('Network.responseReceived', (e) => { urls.set(e.requestId, e.response.url); });
  cdp.on('Network.dataReceived', (e) => { decoded.set(e.requestId, (decoded.get(e.requestId) ?? 0) + e.dataLength); });
  cdp.on('Network.loadingFinished', (e) => {
    const url = urls.get(e.requestId);
    if (url && new URL(url).pathname.startsWith('/ui')) files.push({ url: new URL(url).pathname, wire: e.encodedDataLength, body: decoded.get(e.requestId) ?? 0 });
  });
  const t0 = performance.now();
  await page.goto(dwell.url + '/ui');
  await page.fill('#token', ADMIN_TOKEN);
  await page.click('button[type=submit]');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
  const ms = performance.now() - t0;
  // MapLibre's worker fetches its script itself, out of the page's sight: asked for here as the browser would.
  if (!files.some((f) => f.url === '/ui/maplibre-gl-worker.mjs')) {
    const res = await fetch(dwell.url + '/ui/maplibre-gl-worker.mjs', { headers: { 'accept-encoding': 'gzip' } });
    files.push({ url: '/ui/maplibre-gl-worker.mjs (worker)', wire: Number(res.headers.get('content-length')), body: (await res.arrayBuffer()).byteLength });
  }
  files.sort((a, b) => b.wire - a.wire);
  const kib = (n: number) => (n / 1024).toFixed(1).padStart(8);
  console.log('file'.padEnd(34), 'wire KiB', 'body KiB');
  for (const f of files) console.log(f.url.padEnd(34), kib(f.wire), kib(f.body));
  const sum = (k: 'wire' | 'body') => files.reduce((s, f) => s + f[k], 0);
  console.log('total'.padEnd(34), kib(sum('wire')), kib(sum('body')), `(${files.length} files; logged in and ready in ${Math.round(ms)} ms)`);
} finally {
  await browser.close();
  await dwell.close();
}
