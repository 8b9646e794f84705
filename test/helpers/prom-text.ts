/**
 * A strict reader of the Prometheus text exposition format (0.0.4), as a scraper reads it: every
 * line is a HELP, a TYPE or a sample, label values unescaped (`\\`, `\"`, `\n` and nothing else),
 * and any other line is an error. Tests use it to check that /metrics parses, not just matches.
 */
export interface Sample { name: string; labels: Record<string, string>; value: number }
export interface Exposition { samples: Sample[]; types: Map<string, string>; help: Map<string, string> }

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const VALUE = String.raw`(?:[^"\\\n]|\\[\\"n])*`;
const PAIR = `[a-zA-Z_][a-zA-Z0-9_]*="${VALUE}"`;
const SAMPLE = new RegExp(String.raw`^(${NAME})(?:\{((?:${PAIR},?)*)\})? (\S+)(?: -?\d+)?$`);
const ONE_LABEL = new RegExp(`([a-zA-Z_][a-zA-Z0-9_]*)="(${VALUE})"`, 'y');

export function parseExposition(text: string): Exposition {
  const out: Exposition = { samples: [], types: new Map(), help: new Map() };
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE' && !/^(counter|gauge|histogram|summary|untyped)$/.test(meta[3])) throw new Error(`line ${i + 1}: unknown type ${meta[3]}`);
      out[meta[1] === 'TYPE' ? 'types' : 'help'].set(meta[2], meta[3]);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`line ${i + 1} is not a sample: ${JSON.stringify(line)}`);
    const value = floatOf(m[3]);
    if (value === undefined) throw new Error(`line ${i + 1}: bad value ${m[3]}`);
    out.samples.push({ name: m[1], labels: labelsOf(m[2] ?? ''), value });
  }
  return out;
}

/** As Go's strconv.ParseFloat, which Prometheus uses: Inf and NaN in any case (prom-client writes `Nan`). */
function floatOf(text: string): number | undefined {
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : undefined;
}

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  ONE_LABEL.lastIndex = 0;
  while (ONE_LABEL.lastIndex < text.length) {
    const m = ONE_LABEL.exec(text);
    if (!m) throw new Error(`bad labels ${JSON.stringify(text)}`);
    labels[m[1]] = m[2].replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    if (text[ONE_LABEL.lastIndex] === ',') ONE_LABEL.lastIndex++;
  }
  return labels;
}
