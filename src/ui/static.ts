/**
 * The explorer's page and its files (issue 19): the HTML and CSS beside this file's source
 * (src/ui/page/), the browser script tsc compiled (dist/src/ui/client/), and MapLibre GL JS from
 * its package. Read once and gzipped once, at the first request; served to anyone, since they
 * hold no data: everything shown comes from the admin API, with the operator's token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../config.js';
import { DwellError } from '../errors.js';
import type { Exchange, Reply } from '../http/reply.js';

const PAGE = path.join(PACKAGE_ROOT, 'src', 'ui', 'page');
const CLIENT = fileURLToPath(new URL('./client/', import.meta.url));
const MAPLIBRE = path.join(PACKAGE_ROOT, 'node_modules', 'maplibre-gl', 'dist');

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8' };

/** What /ui/<name> may serve, and from where. */
function source(name: string): string | null {
  if (name === 'index.html' || name === 'explorer.css') return path.join(PAGE, name);
  if (/^[a-z-]+\.js$/.test(name)) return path.join(CLIENT, name);
  if (name === 'maplibre-gl.mjs' || name === 'maplibre-gl-worker.mjs' || name === 'maplibre-gl.css') return path.join(MAPLIBRE, name);
  return null;
}

interface Asset { plain: Buffer; gzip: Buffer; type: string }
const cache = new Map<string, Asset>();

function asset(name: string, tiles: string): Asset {
  let a = cache.get(name);
  if (a) return a;
  const file = source(name);
  if (!file || !fs.existsSync(file)) throw new DwellError('not_found', `no explorer file ${JSON.stringify(name)}`);
  let plain = fs.readFileSync(file);
  // The base-map setting reaches the page in a meta tag: the page needs no call before logging in.
  if (name === 'index.html') plain = Buffer.from(plain.toString('utf8').replace('{{TILES}}', escapeAttr(tiles)));
  a = { plain, gzip: gzipSync(plain, { level: 9 }), type: TYPES[path.extname(name)] ?? 'application/octet-stream' };
  cache.set(name, a);
  return a;
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Answers /ui (the page) and /ui/<file>; gzip when the browser takes it. */
export function serveStatic(ex: Exchange, name: string, tiles: string): Reply {
  const a = asset(name, tiles);
  const gz = /\bgzip\b/.test(ex.header('accept-encoding'));
  const headers: Record<string, string> = { 'Cache-Control': name === 'index.html' ? 'no-cache' : 'max-age=300', 'X-Content-Type-Options': 'nosniff', Vary: 'Accept-Encoding' };
  if (name === 'index.html') headers['Content-Security-Policy'] = "default-src 'self'; img-src 'self' data: blob: https: http:; connect-src 'self' https: http:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'";
  if (gz) headers['Content-Encoding'] = 'gzip';
  return { status: 200, body: gz ? a.gzip : a.plain, contentType: a.type, headers };
}
