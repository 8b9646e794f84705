/**
 * The command line of every `dwell` command, declared once: the parser reads it strictly (an
 * undeclared flag, or one without its value, is refused by name with exit code 2, so a typo never
 * silently falls back to a default) and `dwell help` is written from it. `--flag value` and
 * `--flag=value` are the same. `dwell serve`'s flags are the settings of config.ts.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { describeSettings, settingFlags } from './config.js';

/** A flag taking a value (`value` names it in help; `a|b|c` lists the only ones accepted), or a switch. */
interface Flag { value?: string; doc: string; required?: true }
interface Command { args: string[]; flags: Record<string, Flag> }

/** A command line that cannot be run as written: exit code 2, the message on stderr. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

const APP: Record<string, Flag> = {
  name: { value: 'NAME', doc: "the app's name" },
  delivery: { value: 'sync|postback|bucket', doc: 'how the app gets its results (create: sync unless given)' },
  url: { value: 'URL', doc: 'postback: where triggers are sent' },
  provider: { value: 's3|gcs', doc: "bucket: the provider" },
  bucket: { value: 'BUCKET', doc: "bucket: the bucket's name" },
  prefix: { value: 'PREFIX', doc: 'bucket: the key prefix of the files' },
  region: { value: 'REGION', doc: 'bucket: the region' },
  endpoint: { value: 'URL', doc: 'bucket: an S3-compatible store, or a GCS endpoint other than Google\'s' },
  credentials: { value: 'JSON', doc: "bucket: the credentials as JSON (without: the SDK's default chain)" },
  'confirm-dwell-s': { value: 'SECONDS', doc: 'the dwell that confirms a visit (contract §2; default 300)' },
  events: { value: 'KINDS', doc: 'the kinds of trigger delivered by postback or bucket, comma-separated: visit,transit,geofence,place,region (default: all)' },
  integrity: { value: 'flag|drop', doc: 'visits and events that fail the integrity checks: delivered with their flags (flag, default) or not delivered (drop) (contract §12)' },
  'region-events': { value: 'true|false', doc: 'country entry and exit events (contract §11; default false)' },
};
const ADMIN: Record<string, Flag> = {
  'url-base': { value: 'URL', doc: 'the server the apps commands talk to (default $DWELL_URL, else http://127.0.0.1:$PORT)' },
  'admin-token': { value: 'TOKEN', doc: 'the admin bearer token (default $DWELL_ADMIN_TOKEN)' },
};
const KEY = ['<app_key>'];

const COMMANDS: Record<string, Command> = {
  serve: { args: [], flags: Object.fromEntries(settingFlags().map((f) => [f, { value: 'VALUE', doc: 'a setting (see Settings)' }])) },
  import: {
    args: ['<file>'],
    flags: {
      format: { value: 'osm|jsonl|tsmc|fsq-os-places|overture', doc: 'the source: an OpenStreetMap .osm.pbf, one JSON venue a line, TSMC2014 check-ins, or Foursquare OS Places / Overture places Parquet (a file or a directory of them)', required: true },
      out: { value: 'DIR', doc: 'the venue store to build (a running server swaps to it)', required: true },
      publish: { value: 'STATE', doc: 'also publish it to the cluster at these NATS URLs (its nodes switch to it)' },
      quiet: { doc: 'import: no progress or summary log lines' },
    },
  },
  'apps create': { args: [], flags: { ...APP, ...ADMIN } },
  'apps show': { args: KEY, flags: ADMIN },
  'apps update': { args: KEY, flags: { ...APP, ...ADMIN } },
  'apps rotate-secret': { args: KEY, flags: ADMIN },
  'apps deliveries': { args: KEY, flags: { status: { value: 'pending|dead', doc: 'deliveries: which triggers (default pending)' }, ...ADMIN } },
  'apps replay': { args: KEY, flags: ADMIN },
  'apps delete': { args: KEY, flags: ADMIN },
  backup: {
    args: [],
    flags: {
      out: { value: 'DIR', doc: 'backup: the directory to write (new or empty)', required: true },
      'data-dir': { value: 'DIR', doc: 'the data directory (default $DWELL_DATA_DIR, else ./var)' },
      state: { value: 'STATE', doc: 'backup: where the state lives (default $DWELL_STATE); in a cluster, says what to back up instead' },
    },
  },
  restore: {
    args: ['<backup dir>'],
    flags: {
      'data-dir': { value: 'DIR', doc: 'the data directory (default $DWELL_DATA_DIR, else ./var)' },
      force: { doc: 'restore: replace the stores of a data directory that is not empty' },
    },
  },
  'secrets rotate-key': {
    args: [],
    flags: {
      'old-key': { value: 'KEY', doc: 'rotate-key: the key the secrets are sealed with now (base64)', required: true },
      'new-key': { value: 'KEY', doc: 'rotate-key: the key to seal them with (base64, `openssl rand -base64 32`)', required: true },
      'data-dir': { value: 'DIR', doc: 'the data directory (default $DWELL_DATA_DIR, else ./var)' },
      state: { value: 'STATE', doc: 'where the state lives (default $DWELL_STATE): backup says what to back up in a cluster; rotate-key re-seals a running cluster\'s apps' },
    },
  },
};

const HELP: Flag = { doc: 'this text' };

export interface CommandLine { command: string; values: Record<string, string | true>; positionals: string[] }

/** `argv` without node and the script. `help` (also bare, `-h`, `--help` anywhere) asks for usage(). */
export function parseCommandLine(argv: string[]): CommandLine {
  const words = argv[0] === 'apps' || argv[0] === 'secrets' ? 2 : 1;
  const command = argv.slice(0, words).join(' ');
  if (argv.length === 0 || ['help', '--help', '-h'].includes(command)) return { command: 'help', values: {}, positionals: [] };
  const c = COMMANDS[command];
  if (!c) throw new UsageError(`dwell: unknown command ${JSON.stringify(command)}; expected one of: ${Object.keys(COMMANDS).join(', ')}`);
  const fail = (what: string): never => { throw new UsageError(`dwell ${command}: ${what}`); };

  // Not strict: its errors name neither the command nor what a flag expects, so the tokens are checked here.
  const { tokens } = parseArgs({ args: argv.slice(words), options: optionTable(c), strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value);
    if (t.kind !== 'option') continue;
    const flag = t.name === 'help' ? HELP : c.flags[t.name];
    if (!flag) fail(`unknown flag ${t.rawName}`);
    // `--format --out x` would otherwise read "--out" as the format.
    if (flag.value && (t.value === undefined || (!t.inlineValue && t.value.startsWith('-')))) fail(`flag ${t.rawName} needs a value (${flag.value})`);
    if (!flag.value && t.value !== undefined) fail(`flag ${t.rawName} takes no value, got ${JSON.stringify(t.value)}`);
    const choices = flag.value?.includes('|') ? flag.value.split('|') : undefined;
    if (choices && !choices.includes(t.value!)) fail(`flag ${t.rawName} expects ${flag.value}, got ${JSON.stringify(t.value)}`);
    values[t.name] = t.value ?? true;
  }
  if (values.help) return { command: 'help', values: {}, positionals: [] };
  if (positionals.length > c.args.length) fail(`unexpected argument ${JSON.stringify(positionals[c.args.length])}`);
  if (positionals.length < c.args.length) fail(`expected ${c.args.join(' ')}, got none`);
  for (const [k, f] of Object.entries(c.flags)) if (f.required && values[k] === undefined) fail(`--${k} ${f.value} is required`);
  return { command, values, positionals };
}

/** parseArgs' options for one command: a flag with a value is a string, a switch a boolean. */
function optionTable(c: Command): ParseArgsConfig['options'] {
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean', short: 'h' } };
  for (const [k, f] of Object.entries(c.flags)) options[k] = { type: f.value ? 'string' : 'boolean' };
  return options;
}

/** `dwell help`: every command with every flag it takes, then the settings. */
export function usage(): string {
  const show = (k: string, f: Flag) => `--${k}${f.value ? ' ' + f.value : ''}`;
  const glossary = new Map<string, Flag>();
  const lines = ['dwell: venue detection and geofences', '', "Commands (a flag's value follows it, or an =: --port 9000, --port=9000):"];
  for (const [name, c] of Object.entries(COMMANDS)) {
    if (name === 'serve') {
      lines.push('  dwell serve [--SETTING VALUE ...]     the HTTP service; every setting below is its flag');
      continue;
    }
    const words = [`dwell ${name}`, ...c.args, ...Object.entries(c.flags).map(([k, f]) => (f.required ? show(k, f) : `[${show(k, f)}]`))];
    lines.push(wrap(words));
    for (const [k, f] of Object.entries(c.flags)) glossary.set(k, f);
  }
  lines.push('', 'Flags:', ...[...glossary].map(([k, f]) => `  ${show(k, f).padEnd(32)} ${f.doc}`));
  lines.push('', 'Settings (environment variable, or the flag beside it; a yes/no one takes true or false):', describeSettings(), '');
  return lines.join('\n');
}

function wrap(words: string[], width = 100): string {
  const lines = ['  ' + words[0]];
  for (const w of words.slice(1)) {
    if (lines[lines.length - 1].length + 1 + w.length > width) lines.push('        ' + w);
    else lines[lines.length - 1] += ' ' + w;
  }
  return lines.join('\n');
}
