// What the CLI says about flags its command does not have: each as typed, with the closest option
// of that command when one is close (`unknown option --nicee; did you mean --nice?`) and nothing
// more when none is.
import type { Argv } from 'yargs';
import { closestName } from './closest-name.ts';

/** The names a parser accepts at this point of the parse, and those to suggest. */
export interface KnownOptions {
  /** Every option and alias of the current command and the global ones (help, version). */
  names: ReadonlySet<string>;
  /** The visible long options: what a suggestion may name (never a hidden, refused one like --token). */
  suggestible: readonly string[];
}

/**
 * The options of the command yargs is parsing when it fails: yargs resets the one parser to each
 * command's builder, so its options are then that command's and the global ones. `getOptions`
 * is public in yargs but not in @types/yargs, so its shape is checked here.
 */
export function currentOptions(parser: Argv): KnownOptions | null {
  const options: unknown = (parser as unknown as { getOptions?: () => unknown }).getOptions?.();
  if (typeof options !== 'object' || options === null) return null;
  const { key, alias, hiddenOptions } = options as { key?: unknown; alias?: unknown; hiddenOptions?: unknown };
  if (typeof key !== 'object' || key === null) return null;
  const names = new Set(Object.keys(key));
  if (typeof alias === 'object' && alias !== null) {
    for (const [name, aliases] of Object.entries(alias)) {
      names.add(name);
      if (Array.isArray(aliases)) for (const a of aliases) if (typeof a === 'string') names.add(a);
    }
  }
  const hidden = new Set(Array.isArray(hiddenOptions) ? hiddenOptions.filter((h): h is string => typeof h === 'string') : []);
  return { names, suggestible: Object.keys(key).filter((name) => name.length > 1 && !hidden.has(name)) };
}

/** The flags of `argv` (before a `--`) that are not known: `--name` and `-x` as typed, without `=value`. */
export function unknownFlags(argv: readonly string[], names: ReadonlySet<string>): string[] {
  const unknown: string[] = [];
  for (const arg of argv) {
    if (arg === '--') break;
    // Not a flag: a value, a lone dash, or a negative number given as a value (`--nice -5`).
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) continue;
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0] ?? '';
      // yargs reads --no-json as --json false.
      const known = names.has(name) || (name.startsWith('no-') && names.has(name.slice(3)));
      if (!known && !unknown.includes(`--${name}`)) unknown.push(`--${name}`);
    } else {
      // -abc is -a -b -c.
      for (const letter of (arg.slice(1).split('=')[0] ?? '').split('')) if (!names.has(letter) && !unknown.includes(`-${letter}`)) unknown.push(`-${letter}`);
    }
  }
  return unknown;
}

/** `unknown option --nicee; did you mean --nice?`, or null when every flag is known. */
export function unknownOptionsMessage(argv: readonly string[], known: KnownOptions): string | null {
  const unknown = unknownFlags(argv, known.names);
  if (unknown.length === 0) return null;
  const suggestion = (flag: string): string | null => {
    if (!flag.startsWith('--')) return null;
    const closest = closestName(flag.slice(2), known.suggestible);
    return closest === null ? null : `--${closest}`;
  };
  if (unknown.length === 1) {
    const flag = unknown[0] as string;
    const closest = suggestion(flag);
    return `unknown option ${flag}${closest ? `; did you mean ${closest}?` : ''}`;
  }
  return `unknown options ${unknown.map((flag) => {
    const closest = suggestion(flag);
    return closest ? `${flag} (did you mean ${closest}?)` : flag;
  }).join(', ')}`;
}
