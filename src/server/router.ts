/**
 * Method + path routing with `:param` segments. One table answers 404 for unknown paths and
 * 405 (with Allow) for known paths asked with another method.
 */
import { DwellError } from '../errors.js';

export interface Match<H> { handler: H; params: Record<string, string>; route: string }

interface Entry<H> { method: string; parts: string[]; pattern: string; handler: H }

export class Router<H> {
  private readonly entries: Entry<H>[] = [];

  add(method: string, pattern: string, handler: H): this {
    this.entries.push({ method, parts: pattern.split('/'), pattern, handler });
    return this;
  }

  /** Every route registered, in order: what the OpenAPI document must describe (src/docs/openapi.ts). */
  routes(): Array<{ method: string; pattern: string }> {
    return this.entries.map(({ method, pattern }) => ({ method, pattern }));
  }

  match(method: string, path: string): Match<H> {
    const parts = path.split('/');
    const allowed: string[] = [];
    for (const e of this.entries) {
      const params = matchParts(e.parts, parts);
      if (!params) continue;
      if (e.method === method || (method === 'HEAD' && e.method === 'GET')) return { handler: e.handler, params, route: e.pattern };
      allowed.push(e.method);
    }
    if (allowed.length) {
      throw Object.assign(new DwellError('method_not_allowed', `${method} is not allowed here; use ${allowed.join(' or ')}`), { allow: allowed.join(', ') });
    }
    throw new DwellError('not_found', `no route for ${method} ${path}`);
  }
}

function matchParts(pattern: string[], path: string[]): Record<string, string> | null {
  if (pattern.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) {
      if (!path[i]) return null;
      try {
        params[p.slice(1)] = decodeURIComponent(path[i]);
      } catch {
        return null;
      }
    } else if (p !== path[i]) return null;
  }
  return params;
}
