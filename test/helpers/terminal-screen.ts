// A small VT100 subset: what a terminal of `columns` x `rows` shows after some output. It
// knows what benchfleet writes: printable characters (wrapping at the right margin as xterm
// does, on the character after the last column), carriage return, newline (with the tty's
// usual CR), cursor up (CSI n A, stopped at the top of the screen), erase in line (CSI K,
// 0/1/2) and erase below (CSI J, 0). Any other escape sequence fails the test: the replay must
// not silently ignore what it does not understand. A resize between writes reflows the screen
// as VTE (GNOME Terminal), iTerm2, kitty and tmux do: a line that wrapped at the old width is
// one line again, cut anew at the new width, and the cursor keeps its place in its line.

export interface TerminalScreen {
  /** Every line written, scrolled-off ones first, trailing spaces and empty last lines removed. */
  lines: string[];
}

export function replayOnTerminal(output: string, columns: number, rows = 50): TerminalScreen {
  return replayWithResizes([output], columns, rows);
}

/** A resize of the terminal to `columns`, between two writes of a replay. */
export interface Resize {
  columns: number;
}

/** What the terminal shows after `parts`: output written, or the window resized (and reflowed). */
export function replayWithResizes(parts: readonly (string | Resize)[], initialColumns: number, rows = 50): TerminalScreen {
  let columns = initialColumns;
  let grid: string[][] = [[]];
  // wrapped[r]: row r goes on in row r + 1 (it was wrapped at the margin, not ended by a newline).
  let wrapped: boolean[] = [false];
  let row = 0;
  let col = 0;
  // xterm's pending wrap: a character written in the last column leaves the cursor there; the
  // next printable character goes to the start of the next line.
  let pendingWrap = false;
  const top = (): number => Math.max(0, grid.length - rows);
  const lineAt = (r: number): string[] => {
    while (grid.length <= r) grid.push([]);
    return grid[r] as string[];
  };
  const newline = (soft = false): void => {
    wrapped[row] = soft;
    row++;
    lineAt(row);
    col = 0;
    pendingWrap = false;
  };
  const reflow = (to: number): void => {
    const lines: string[][] = [];
    let cursor = { line: 0, offset: 0 };
    for (let r = 0; r < grid.length; r++) {
      const start = r === 0 || wrapped[r - 1] !== true;
      if (start) lines.push([]);
      const line = lines[lines.length - 1] as string[];
      if (r === row) cursor = { line: lines.length - 1, offset: line.length + col };
      // A wrapped row is full: it goes on where its last column ends.
      const cells = [...(grid[r] as string[])];
      if (wrapped[r] === true) while (cells.length < columns) cells.push(' ');
      line.push(...cells);
    }
    grid = [];
    wrapped = [];
    for (const [l, line] of lines.entries()) {
      const first = grid.length;
      for (let at = 0; at === 0 || at < line.length; at += to) {
        grid.push(line.slice(at, at + to));
        wrapped.push(at + to < line.length);
      }
      if (l === cursor.line) {
        row = Math.min(grid.length - 1, first + Math.floor(cursor.offset / to));
        col = cursor.offset - (row - first) * to;
      }
    }
    columns = to;
    pendingWrap = false;
  };
  const write = (output: string): void => {
    let i = 0;
    const chars = [...output];
    while (i < chars.length) {
      const c = chars[i] as string;
      if (c === '\x1b') {
        const rest = chars.slice(i, i + 12).join('');
        // eslint-disable-next-line no-control-regex -- the escape character is what is parsed
        const csi = /^\x1b\[(\d*)([AJK])/.exec(rest);
        if (!csi) throw new Error(`the terminal replay does not know the escape sequence ${JSON.stringify(rest)}`);
        const n = csi[1] === '' ? undefined : Number(csi[1]);
        if (csi[2] === 'A') row = Math.max(top(), row - (n ?? 1));
        else if (csi[2] === 'K') {
          const line = lineAt(row);
          wrapped[row] = false;
          if ((n ?? 0) === 0) line.splice(col);
          else if (n === 1) for (let k = 0; k <= col && k < line.length; k++) line[k] = ' ';
          else line.length = 0;
        } else {
          if ((n ?? 0) !== 0) throw new Error(`the terminal replay knows only CSI 0 J, not ${JSON.stringify(csi[0])}`);
          lineAt(row).splice(col);
          grid.splice(row + 1);
          wrapped.splice(row);
        }
        pendingWrap = false;
        i += [...csi[0]].length;
        continue;
      }
      i++;
      if (c === '\r') {
        col = 0;
        pendingWrap = false;
      } else if (c === '\n') newline();
      else {
        if ((c.codePointAt(0) ?? 0) < 0x20) throw new Error(`the terminal replay does not know the control character ${JSON.stringify(c)}`);
        if (pendingWrap) newline(true);
        const line = lineAt(row);
        while (line.length < col) line.push(' ');
        line[col] = c;
        if (col === columns - 1) pendingWrap = true;
        else col++;
      }
    }
  };
  for (const part of parts) {
    if (typeof part === 'string') write(part);
    else reflow(part.columns);
  }
  const lines = grid.map((l) => l.join('').trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return { lines };
}
