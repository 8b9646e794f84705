/**
 * A generated client (issue 30): openapi-typescript makes types from the served /openapi.json,
 * a small program drives every operation with openapi-fetch (test/fixtures/openapi-client/),
 * strict tsc compiles it against those types, and it runs against this server. A schema that
 * generators cannot use (an object with no properties, an untyped answer) breaks the compile or
 * the run; an operation the program does not call is named. Offline: everything is in node_modules.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import { dwellWithApp } from '../helpers/dwell.js';
import { ADMIN_TOKEN, ROOT } from '../helpers/server.js';

/** Operations the program does not call, each with why (none today: a new operation must be called). */
const PENDING: Array<[RegExp, string]> = [];

let dir: string;
let doc: Record<string, any>;
const dwell = dwellWithApp({}, { setUp: async (dwell) => {
  doc = (await (await fetch(dwell.url + '/openapi.json')).json()) as Record<string, any>;
  // Inside the package, so that the program resolves openapi-fetch from its node_modules.
  dir = mkdtempSync(path.join(ROOT, 'dist', 'generated-client-'));
} });
after(() => rmSync(dir, { recursive: true, force: true }));

test('types generated from /openapi.json compile with strict tsc, and the program runs against the server', async () => {
  const types = astToString(await openapiTS(doc as never));
  const empty = types.split('\n').filter((l) => /:\s*Record<string, never>/.test(l));
  assert.deepEqual(empty, [], 'schemas that generators read as an object with no properties');
  // .ts, not .d.ts: checked by tsc like the program, whatever skipLibCheck says.
  writeFileSync(path.join(dir, 'dwell-api.ts'), types);
  copyFileSync(path.join(ROOT, 'test/fixtures/openapi-client/program.ts'), path.join(dir, 'program.ts'));
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
      noEmitOnError: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules/@types')], lib: ['ES2023', 'DOM'],
    },
    files: ['program.ts', 'dwell-api.ts'],
  }));
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
  assert.equal(tsc.status, 0, `strict tsc on the generated client:\n${tsc.stdout}${tsc.stderr}`);

  const run = spawnSync(process.execPath, [path.join(dir, 'program.js')], {
    encoding: 'utf8', env: { ...process.env, DWELL_URL: dwell.url, DWELL_ADMIN_TOKEN: ADMIN_TOKEN }, timeout: 120_000,
  });
  assert.equal(run.status, 0, `the program:\n${run.stdout}${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  const called = new Set(JSON.parse(lines.at(-1)!) as string[]);

  const operations = Object.entries(doc.paths as Record<string, object>).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
  const missing = operations.filter((o) => !called.has(o) && !PENDING.some(([re]) => re.test(o)));
  assert.deepEqual(missing, [], 'operations of the document the generated-client program does not call');
  assert.ok(called.size >= 34, `${called.size} operations called`);
  assert.ok(lines.some((l) => /^visit \S+: /.test(l)), run.stdout);
});
