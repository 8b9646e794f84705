/**
 * The one place that knows which HTTP server runs. uWebSockets.js's native build where it has
 * one for this Node (the registry's 20.30 build: Node 16, 18 and 20), node:http elsewhere (Node
 * 22, 24): chosen once, at start, so no request ever asks. An operator who installs a native
 * build for their Node under the name uWebSockets.js gets it used (docs/operating.md, "Node versions").
 */
import { createRequire } from 'node:module';
import { log } from '../log.js';
import { listenNode } from './node-server.js';
import { listenUws, type Uws } from './uws-server.js';
import type { HttpListener, OnRequest } from './wire.js';

export type { HttpListener, OnRequest, RequestHead, Wire } from './wire.js';

export async function listenHttp(host: string, port: number, onRequest: OnRequest): Promise<HttpListener> {
  const { uws, why } = loadNativeUws();
  const listener = uws ? await listenUws(uws, host, port, onRequest) : await listenNode(host, port, onRequest);
  log.notice('http server', { implementation: listener.implementation, node: process.versions.node, ...(why ? { why } : {}) });
  return listener;
}

/**
 * uWebSockets.js if its native build loads here. Without one the registry's build prints to the
 * console and returns a JavaScript stand-in (node-server.ts says why it is not used), and the
 * upstream builds throw; either way the reason goes into Dwell's JSON log, not its bare output.
 */
function loadNativeUws(): { uws: Uws | null; why?: string } {
  const { warn, log: print } = console;
  let said = '';
  console.warn = console.log = (...args: unknown[]) => void (said ||= args.join(' '));
  try {
    const uws = createRequire(import.meta.url)('uWebSockets.js') as Uws;
    if (isNative(uws)) return { uws };
    return { uws: null, why: /UWS_USE_FALLBACK/.test(said) ? 'UWS_USE_FALLBACK is set' : noBuild() };
  } catch (err) {
    return { uws: null, why: `${noBuild()}: ${String((err as Error).message).split('\n')[0]}` };
  } finally {
    console.warn = warn;
    console.log = print;
  }
}

const noBuild = () => `uWebSockets.js has no native build for Node ${process.versions.node} (ABI ${process.versions.modules}, ${process.platform}-${process.arch})`;

/** The native binding's functions are the engine's own; the stand-in's are JavaScript. */
const isNative = (uws: Uws): boolean => typeof uws.App === 'function' && Function.prototype.toString.call(uws.App).includes('[native code]');
