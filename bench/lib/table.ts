/** Markdown tables and number formatting for benchmark reports. */

export type Align = 'left' | 'right';

/** A GitHub-flavoured markdown table, columns padded so it also reads well in a terminal. */
export function markdownTable(header: string[], rows: string[][], align: Align[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length), 3));
  const pad = (s: string, i: number) => (align[i] === 'right' ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => pad(c ?? '', i)).join(' | ') + ' |';
  const rule = '|' + widths.map((w, i) => (align[i] === 'right' ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|') + '|';
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** 1234.5 → "1,235"; NaN → "–". */
export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

/** Milliseconds with precision suited to their size: 0.42, 4.2, 42. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 1) return ms.toFixed(2);
  if (ms < 10) return ms.toFixed(1);
  return ms.toFixed(0);
}

/** A share to two decimals, as the soak reports write them: 0.0217 → "2.17 %"; NaN → "–". */
export function fmtShare(fraction: number): string {
  return Number.isFinite(fraction) ? `${(fraction * 100).toFixed(2)} %` : '–';
}

export function fmtPct(fraction: number): string {
  return Number.isFinite(fraction) ? `${Math.round(fraction * 100)}%` : '–';
}
