/**
 * The logger as a program using it sees it: a real Node process imports src/log.ts, logs fields
 * a careless caller might pass, from the main thread and from a worker thread, then exits at
 * once. Its stderr must be JSON lines at the right levels, secrets redacted at every level,
 * personal data (contract §7) redacted at info and above but kept at debug, and no line lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../helpers/server.js';

const LOG = pathToFileURL(path.join(ROOT, 'dist/src/log.js')).href;

/** Runs `body` (an ES module's text, with `log` imported) and answers its stderr lines, parsed. */
function run(body: string, env: Record<string, string> = {}): any[] {
  const file = path.join(tempDir('dwell-log-'), 'main.mjs');
  fs.writeFileSync(file, `import { log, withRequestId } from ${JSON.stringify(LOG)};\n${body}`);
  const r = spawnSync(process.execPath, [file], { env: { ...process.env, DWELL_LOG_LEVEL: 'debug', ...env }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

const CARELESS = `{
  app_secret: 'sk-live-123', headers: { authorization: 'Bearer admin-tok-456', 'x-signature': 'f00dfeed' },
  delivery: { url: 'https://user:pw789@hooks.example.com/in?token=qtok-000', credentials: { secretAccessKey: 'aws-sec-111' } },
  error: 'PUT https://b.s3.amazonaws.com/x?X-Amz-Signature=sig222&X-Amz-Credential=cred333 failed: Authorization: Bearer tok444',
  location: { lat: 43.739512, long: 7.427421 }, active_wifi: { ssid: 'HomeNet-77', bssid: 'de:ad:be:ef:00:01' },
  user: { user_id: 'u-555', advertising_id: 'ad-666' }, estimated_address: { formatted_address: '1 Rue Example' },
  note: 'seen at 43.739512,7.427421', count: 3,
}`;
const SECRETS = ['sk-live-123', 'admin-tok-456', 'f00dfeed', 'pw789', 'qtok-000', 'aws-sec-111', 'sig222', 'cred333', 'tok444'];
const PERSONAL = ['43.739512', '7.427421', 'HomeNet-77', 'de:ad:be:ef:00:01', 'u-555', 'ad-666', '1 Rue Example'];

test('secrets are redacted at every level; personal data at info and above, kept at debug', () => {
  const [info, warn, debug] = run(`
    const f = ${CARELESS};
    log.info('careless at 43.739512', f);
    log.warn('careless', f);
    log.debug('careless', f);
  `);
  assert.deepEqual([info.level, warn.level, debug.level], ['info', 'warn', 'debug']);
  for (const line of [info, warn, debug]) {
    const text = JSON.stringify(line);
    for (const s of SECRETS) assert.ok(!text.includes(s), `${line.level} holds ${s}: ${text}`);
    assert.equal(line.count, 3, 'what is neither stays');
    assert.match(line.delivery.url, /^https:\/\/\[redacted\]@hooks\.example\.com\/in\?token=\[redacted\]$/);
  }
  for (const line of [info, warn]) {
    const text = JSON.stringify(line);
    for (const s of PERSONAL) assert.ok(!text.includes(s), `${line.level} holds ${s}: ${text}`);
  }
  assert.equal(info.msg, 'careless at [redacted]');
  assert.deepEqual(debug.location, { lat: 43.739512, long: 7.427421 }, 'debug keeps what an operator needs to reproduce');
  assert.equal(debug.active_wifi.ssid, 'HomeNet-77');
});

test('DWELL_LOG_LEVEL filters, request ids tag lines, and a worker thread\'s lines survive an immediate exit', () => {
  const lines = run(`
    import { Worker } from 'node:worker_threads';
    log.debug('hidden');
    log.notice('shown whatever the level', { port: 1 });
    withRequestId('req-1', () => log.warn('in a request'));
    const w = new Worker(new URL('data:text/javascript,' + encodeURIComponent(\`
      import { parentPort } from 'node:worker_threads';
      import { log, withRequestId } from ${JSON.stringify(LOG)};
      for (let i = 0; i < 500; i++) withRequestId('w-' + i, () => log.error('from the worker', { i }));
      parentPort.postMessage('done');
    \`)));
    // Exits the moment the worker says it is done: lines relayed through process.stderr would be lost here.
    w.on('message', () => { log.error('main after worker'); process.exit(0); });
  `, { DWELL_LOG_LEVEL: 'warn' });
  assert.deepEqual(lines.slice(0, 2).map((l) => [l.msg, l.level, l.request_id]), [['shown whatever the level', 'info', undefined], ['in a request', 'warn', 'req-1']]);
  const fromWorker = lines.filter((l) => l.msg === 'from the worker');
  assert.equal(fromWorker.length, 500, 'every worker line arrived');
  assert.ok(fromWorker.every((l, i) => l.i === i && l.request_id === `w-${i}`));
  assert.equal(lines.at(-1).msg, 'main after worker');
});
