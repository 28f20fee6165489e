// How --help reads. yargs sets examples as a two-column table whose left column is a third of
// the width, so a real command breaks in the middle (`--arm` on one line, its value on the
// next); here every example is printed on its own lines: the description, then the command,
// continued with ` \` at option boundaries when it is long, so it can be copied as it is. And
// yargs tags an array option without a value as `[default: []]` and a variadic positional as
// `[required] [default: []]`: noise that reads as if an empty list were a valid answer.
import type { Argv, CommandModule } from 'yargs';

const INDENT = '  ';

/** One example: a comment line with what it does, then the command, broken at options to fit `width`. */
export function formatExample(command: string, description: string, width: number): string {
  const room = Math.max(40, width - INDENT.length - 2);
  const lines: string[] = [];
  let current = '';
  // Break before an option (" --x"), never inside a word or between an option and its value.
  for (const part of command.split(/ (?=--)/)) {
    if (current !== '' && current.length + 1 + part.length > room) {
      lines.push(current);
      current = `  ${part}`;
    } else current = current === '' ? part : `${current} ${part}`;
  }
  lines.push(current);
  // A long description goes on several comment lines, so yargs never wraps one itself.
  const comments: string[] = [];
  for (const word of description.split(' ')) {
    const last = comments.length - 1;
    if (last >= 0 && (comments[last] as string).length + 1 + word.length <= room) comments[last] = `${comments[last] as string} ${word}`;
    else comments.push(`# ${word}`);
  }
  return [...comments.map((c) => `${INDENT}${c}`), ...lines.map((l, i) => `${INDENT}${l}${i < lines.length - 1 ? ' \\' : ''}`)].join('\n');
}

/**
 * The command with its examples moved out of yargs' table into an epilogue of their own
 * (before the command's own epilogue, where yargs had them).
 */
export function withPlainExamples(command: CommandModule, scriptName: string, width: () => number): CommandModule {
  const builder = command.builder;
  if (typeof builder !== 'function') return command;
  return {
    ...command,
    builder: (y: Argv) => {
      const examples: [string, string][] = [];
      const epilogues: string[] = [];
      const original = { example: y.example.bind(y), epilogue: y.epilogue.bind(y), command: y.command.bind(y) };
      // The builder chains on `y` itself: collect what it says, then say it in order.
      y.example = ((cmd: string | [string, string?][], description?: string) => {
        if (typeof cmd === 'string') examples.push([cmd.replace(/\$0/g, scriptName), description ?? '']);
        return y;
      }) as Argv['example'];
      y.epilogue = ((text: string) => {
        epilogues.push(text);
        return y;
      });
      // A subcommand (`kernel run`) has examples of its own.
      y.command = ((...args: Parameters<Argv['command']>) => {
        const [first] = args;
        if (args.length === 1 && typeof first === 'object' && !Array.isArray(first)) return original.command(withPlainExamples(first as CommandModule, scriptName, width));
        return original.command(...args);
      }) as Argv['command'];
      let built: Argv;
      try {
        built = (builder(y) as Argv | undefined) ?? y;
      } finally {
        y.example = original.example;
        y.epilogue = original.epilogue;
        y.command = original.command;
      }
      if (examples.length > 0) built = built.epilogue(`Examples:\n${examples.map(([c, d]) => formatExample(c, d, width())).join('\n')}\n`);
      for (const text of epilogues) built = built.epilogue(text);
      return built;
    },
  };
}

/** The help text without yargs' empty-list tags; right-aligned tags stay right-aligned. */
export function tidyHelp(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const tidy = line.replace(/ \[required\] \[default: \[\]\]$/, '').replace(/ \[default: \[\]\]$/, '');
      if (tidy === line) return line;
      // The tags that are left move right by what was removed.
      const tags = /(?:\[[^\]]*\] ?)+$/.exec(tidy);
      const at = tags ? tags.index : tidy.length;
      return `${tidy.slice(0, at)}${' '.repeat(line.length - tidy.length)}${tidy.slice(at)}`;
    })
    .join('\n');
}
