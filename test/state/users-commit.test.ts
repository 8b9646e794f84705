/**
 * The detection path's commit (users/store.ts `modify`: read, a pure step outside any
 * transaction, then a write unless the record changed meanwhile, else the step again) against
 * a second writer that is really another: a child process opening the same data directory, both
 * writing one user's record at once. A lost update shows as a missing id. Each step spins a
 * moment so the two processes' steps overlap.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { openUserStore } from '../../src/users/store.js';
import { emptyRecord, type UserRecord } from '../../src/users/records.js';
import { tempDir } from '../helpers/server.js';

const N = 300;
const STORE = new URL('../../src/users/store.js', import.meta.url).href;
const RECORDS = new URL('../../src/users/records.js', import.meta.url).href;

/** Appends `id` to the record's counted ids, taking about 0.2 ms of CPU. */
const stepOf = (id: string) => (rec: UserRecord | undefined) => {
  const r = rec ?? emptyRecord();
  r.r.push(id);
  for (const end = performance.now() + 0.2; performance.now() < end;);
  return { record: r, result: undefined, aps: [] };
};

const CHILD = `
import { performance } from 'node:perf_hooks';
const { openUserStore } = await import(process.env.STORE);
const { emptyRecord } = await import(process.env.RECORDS);
const users = openUserStore(process.env.DIR);
process.stdout.write('ready\\n');
process.stdin.once('data', () => {
  for (let i = 0; i < Number(process.env.N); i++) {
    users.fresh();
    users.modify('ak_c', 'alice', (rec) => {
      const r = rec ?? emptyRecord();
      r.r.push('b' + i);
      for (const end = performance.now() + 0.2; performance.now() < end;);
      return { record: r, result: undefined, aps: [] };
    });
  }
  users.close();
  process.exit(0);
});
`;

test('embedded: two processes committing one user\'s record at once lose no update', async () => {
  const dir = tempDir();
  const users = openUserStore(dir);
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], { env: { ...process.env, DIR: dir, N: String(N), STORE, RECORDS }, stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await once(child.stdout!, 'data');
    child.stdin!.write('go\n');
    for (let i = 0; i < N; i++) {
      users.fresh();
      users.modify('ak_c', 'alice', stepOf('a' + i));
    }
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    users.fresh();
    const ids = new Set(users.read('ak_c', 'alice')?.r);
    const lost = [...Array.from({ length: N }, (_, i) => 'a' + i), ...Array.from({ length: N }, (_, i) => 'b' + i)].filter((id) => !ids.has(id));
    assert.deepEqual(lost, [], 'every update of both processes is in the record');
    assert.equal(ids.size, 2 * N);
  } finally {
    child.kill();
    users.close();
  }
});

test('embedded: a step whose record changed before its commit runs again on the newer record', () => {
  const dir = tempDir();
  const a = openUserStore(dir);
  let runs = 0;
  a.modify('ak_c', 'bob', (rec) => {
    runs++;
    // Another writer commits between this read and this commit (only the first time).
    if (runs === 1) a.modify('ak_c', 'bob', stepOf('other'));
    return stepOf('mine')(rec);
  });
  assert.equal(runs, 2);
  assert.deepEqual(a.read('ak_c', 'bob')?.r, ['other', 'mine']);
  a.close();
});

test('embedded: with no other writer, a commit runs its step once (the check compares like with like)', () => {
  const a = openUserStore(tempDir());
  let runs = 0;
  for (let i = 0; i < 20; i++) {
    a.fresh();
    a.modify('ak_c', 'carol', (rec) => { runs++; return stepOf('v' + i)(rec); });
  }
  assert.equal(runs, 20);
  assert.equal(a.read('ak_c', 'carol')?.r.length, 20);
  a.close();
});
