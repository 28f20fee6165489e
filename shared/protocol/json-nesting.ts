// How deep a JSON text nests, read without parsing it: a record line is refused before
// JSON.parse (and every recursive walk after it: validators, structuredClone, the analysis)
// ever sees a field nested 20,000 deep. Records nest a few levels; the bound is far above that.

/** Deepest nesting a record line may have (an environment row has 3 levels). */
export const MAX_RECORD_NESTING = 16;

/** Whether `text` nests objects and arrays deeper than `max`; brackets inside strings do not count. */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Nesting never goes deeper than the number of opening brackets, in strings or not: counted
  // with indexOf (native), most lines have fewer and need no walk character by character.
  let opens = 0;
  for (let i = text.indexOf('{'); i !== -1 && opens <= max; i = text.indexOf('{', i + 1)) opens++;
  for (let i = text.indexOf('['); i !== -1 && opens <= max; i = text.indexOf('[', i + 1)) opens++;
  if (opens <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
