/**
 * Every answer the e2e tests get through the shared helpers (client.ts) is checked against the
 * server's own /openapi.json: a status the operation documents, a media type it lists for that
 * status, and a body its schema accepts (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). An answer
 * the document cannot describe fails the test that received it, naming the operation and why.
 * A path the document lacks must be the router's 404, one asked with another method its 405.
 * The document is read once per server, each schema compiled once per test process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { ROOT } from './server.js';

type Obj = Record<string, any>;

interface Operation { method: string; template: string; pattern: RegExp; params: number; op: Obj }

interface Described { ops: Operation[]; ajv: Ajv2020; compiled: Map<string, ValidateFunction>; doc: Obj }

export interface Received { status: number; headers: Headers; text: string }

const documents = new Map<string, Promise<Described>>();

/** A JSON Pointer segment as a URI fragment carries it. */
const seg = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

/** Throws when the document cannot describe `res`, the answer to `method pathAndQuery` on `base`. */
export async function checkResponse(base: string, method: string, pathAndQuery: string, res: Received): Promise<void> {
  const d = await described(base);
  const p = new URL(pathAndQuery, 'http://x').pathname;
  const fail = (what: string, why: string) => {
    throw new Error(`${method} ${what} answered ${res.status} ${res.headers.get('content-type') ?? '(no Content-Type)'}, which /openapi.json does not describe: ${why}\n  body: ${res.text.slice(0, 300)}`);
  };
  const onPath = d.ops.filter((o) => o.pattern.test(p));
  const candidates = onPath.filter((o) => o.method === method || (method === 'HEAD' && o.method === 'GET')).sort((a, b) => a.params - b.params);
  if (!candidates.length) {
    // Not an operation: only the router's answers are possible, as the document's introduction says.
    const want = onPath.length ? 405 : 404;
    if (res.status !== want) fail(p, `no operation ${method} ${p}: expected the router's ${want}`);
    return checkBody(d, '#/components/schemas/Error', res, (why) => fail(p, why));
  }
  const { template, op, method: opMethod } = candidates[0];
  const at = `${method} ${template}`;
  const documented = op.responses[String(res.status)] ?? op.responses.default;
  if (!documented) fail(template, `status ${res.status} is not among ${Object.keys(op.responses).join(', ')}`);
  const fromRef = documented.$ref as string | undefined;
  const response = fromRef ? pointer(d.doc, fromRef) : documented;
  const base_ = fromRef ?? `#/paths/${seg(template)}/${opMethod.toLowerCase()}/responses/${res.status in op.responses ? res.status : 'default'}`;
  if (!response.content) {
    if (res.text.length) fail(template, `status ${res.status} documents no body, got ${res.text.length} bytes`);
    return;
  }
  if (method === 'HEAD') return;
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!(type in response.content)) fail(template, `media type ${JSON.stringify(type)} is not among ${Object.keys(response.content).join(', ')}`);
  if (type !== 'application/json') return;
  checkBody(d, `${base_}/content/${seg(type)}/schema`, res, (why) => fail(at.slice(method.length + 1), why));
}

function checkBody(d: Described, ref: string, res: Received, fail: (why: string) => never): void {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    fail('the body is not JSON');
  }
  let validate = d.compiled.get(ref);
  if (!validate) d.compiled.set(ref, (validate = d.ajv.compile({ $ref: `openapi.json${ref}` })));
  if (!validate(body)) {
    const e = validate.errors![0];
    fail(`body ${e.instancePath || '/'} ${e.message} (schema ${decodeURIComponent(e.schemaPath)}; ${JSON.stringify(e.params)})`);
  }
}

function described(base: string): Promise<Described> {
  let d = documents.get(base);
  if (!d) documents.set(base, (d = load(base).then(prepare)));
  return d;
}

/** The served document; the build's copy (the same, test/e2e/openapi.test.ts checks) if a draining server will not serve it. */
async function load(base: string): Promise<Obj> {
  try {
    const res = await fetch(base + '/openapi.json');
    if (res.status === 200) return (await res.json()) as Obj;
  } catch { /* stopped: the build's copy below */ }
  return JSON.parse(readFileSync(path.join(ROOT, 'dist/openapi.json'), 'utf8'));
}

function prepare(doc: Obj): Described {
  const ops: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths as Obj)) {
    const pattern = new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$');
    for (const [method, op] of Object.entries(methods as Obj)) {
      ops.push({ method: method.toUpperCase(), template, pattern, params: (template.match(/\{/g) ?? []).length, op });
    }
  }
  // The whole document as one schema resource, so each `$ref: #/components/…` resolves within it.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  ajv.addSchema(doc, 'openapi.json');
  return { ops, ajv, compiled: new Map(), doc };
}

function pointer(doc: Obj, ref: string): Obj {
  return ref.slice(2).split('/').reduce((o, k) => o[decodeURIComponent(k).replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}
