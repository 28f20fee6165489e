// The one "did you mean" rule of the CLI: yargs' own, which already suggests a command for a
// misspelled one (`recommendCommands`: Levenshtein distance with transpositions, at most 3, the
// longer name on a tie). Options get the same rule by asking a throwaway yargs parser, whose
// candidates are the names and whose "Did you mean %s?" string is reworded to just the name,
// so no second edit distance is written and no message text is read back.
import yargs from 'yargs';

/** The candidate closest to `word` by yargs' command-suggestion rule, or null when none is close. */
export function closestName(word: string, candidates: readonly string[]): string | null {
  let found: string | null = null;
  const probe = yargs([word])
    .locale('en')
    .updateStrings({ 'Did you mean %s?': '%s' })
    .help(false)
    .version(false)
    .exitProcess(false)
    .recommendCommands()
    .fail((name) => {
      found = name;
    });
  for (const candidate of candidates) probe.command(candidate, '', () => probe, () => undefined);
  void probe.parse();
  return found !== null && candidates.includes(found) ? found : null;
}
