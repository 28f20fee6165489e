// Text for a terminal of a given width: paragraphs wrapped between words (a word wider than
// the line, such as a long path, is cut where the line ends), and tables in aligned columns
// when they fit, else one block per row (its first cell, then "header: value" lines), so that
// no line is wider than the terminal and nothing is cut mid-word by the terminal's own wrap.

/** The terminal width assumed when output is not a terminal: text read in a file or a pager. */
export const DEFAULT_COLUMNS = 100;

/** A string's length in code points; only a string with a surrogate pair has fewer than its UTF-16 length (and only it is spread: a 1,000-run history is 21,000 rows of cells). */
const SURROGATE = /[\uD800-\uDFFF]/;
const length = (s: string): number => (SURROGATE.test(s) ? [...s].length : s.length);

/**
 * `text` as lines of at most `columns` characters, broken between words; lines after the first
 * begin with `indent` (so do all of them with `firstIndent` equal to it).
 */
export function wrapText(text: string, columns: number, indent = '', firstIndent = ''): string[] {
  if (length(firstIndent) + length(text) <= columns) return [`${firstIndent}${text}`];
  const lines: string[] = [];
  let line = firstIndent;
  let empty = true;
  for (const word of text.split(/ +/).filter((w) => w !== '')) {
    const candidate = empty ? `${line}${word}` : `${line} ${word}`;
    if (length(candidate) <= columns) {
      line = candidate;
      empty = false;
      continue;
    }
    if (!empty) {
      lines.push(line);
      line = indent;
    }
    // A word wider than a whole line is cut into pieces that each fill one.
    let rest = [...word];
    while (length(line) + rest.length > columns) {
      const take = Math.max(1, columns - length(line));
      lines.push(`${line}${rest.slice(0, take).join('')}`);
      rest = rest.slice(take);
      line = indent;
    }
    line = `${line}${rest.join('')}`;
    empty = rest.length === 0;
  }
  if (!empty || lines.length === 0) lines.push(line);
  return lines;
}

/** `header` and `rows` aligned in columns two spaces apart, a dashed rule under the header; `right` columns aligned right. */
export function alignTable(header: readonly string[], rows: readonly (readonly string[])[], right: ReadonlySet<number> = new Set()): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => length(r[i] ?? ''))));
  const pad = (c: string, i: number): string => {
    const fill = ' '.repeat(Math.max(0, (widths[i] ?? 0) - length(c)));
    return right.has(i) ? `${fill}${c}` : `${c}${fill}`;
  };
  const line = (cells: readonly string[]): string => header.map((_, i) => pad(cells[i] ?? '', i)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

/**
 * A table for `columns`: aligned (as alignTable, each line after `indent`) when its widest line
 * fits. Else as many leading columns as fit (at least two) stay aligned, and each row's other
 * cells that say something follow it as wrapped "header: value" lines, indented by four more
 * spaces; when not even two columns fit, each row is a block: its first cell, then a
 * "header: value" line per other cell.
 */
export function fitTable(header: readonly string[], rows: readonly (readonly string[])[], columns: number, indent = '', right: ReadonlySet<number> = new Set()): string[] {
  const fits = (lines: readonly string[]): boolean => lines.every((l) => length(l) <= columns);
  const aligned = alignTable(header, rows, right).map((l) => `${indent}${l}`);
  if (fits(aligned)) return aligned;
  for (let k = header.length - 1; k >= 2; k--) {
    const cut = (cells: readonly string[]): string[] => cells.slice(0, k);
    const lines = alignTable(cut(header), rows.map(cut), right).map((l) => `${indent}${l}`);
    if (!fits(lines)) continue;
    const rest = (r: readonly string[]): string[] =>
      header.slice(k).flatMap((h, i) => ((r[k + i] ?? '') === '' ? [] : wrapText(`${h}: ${r[k + i] ?? ''}`, columns, `${indent}      `, `${indent}    `)));
    return [...lines.slice(0, 2), ...rows.flatMap((r, i) => [lines[i + 2] ?? '', ...rest(r)])];
  }
  const inner = `${indent}  `;
  return rows.flatMap((r) => [
    ...wrapText(r[0] ?? '', columns, inner, indent),
    ...header.slice(1).flatMap((h, i) => wrapText(`${h}: ${r[i + 1] ?? ''}`, columns, `${inner}  `, inner)),
  ]);
}
