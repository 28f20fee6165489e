// `benchfleet kernels`: the corpus, one kernel a row, with its SHA256 and default input size.
import type { CommandModule } from 'yargs';
import { formatTable, printJson, printLine } from '../output.ts';

interface Args { json: boolean }

export const kernelsCommand: CommandModule<object, Args> = {
  command: 'kernels',
  describe: 'List the kernel corpus with module sizes, SHA256s and default input sizes',
  builder: (y) => y.option('json', { type: 'boolean', default: false, describe: 'Print an array of kernel objects' }),
  handler: async (args) => {
    const { KERNELS } = await import('../../kernels/catalog.ts');
    const { loadManifest } = await import('../../kernels/corpus.ts');
    const manifest = loadManifest();
    const modules = new Map(manifest.kernels.map((k) => [k.name, k]));
    const rows = KERNELS.map((spec) => {
      const m = modules.get(spec.name);
      return {
        name: spec.name,
        title: spec.title,
        category: spec.category,
        inputBytes: spec.defaultSize,
        moduleBytes: m?.bytes ?? null,
        sha256: m?.sha256 ?? null,
        convention: spec.convention,
      };
    });
    if (args.json) return printJson(rows);
    printLine(
      formatTable(
        ['kernel', 'title', 'input', 'module', 'sha256'],
        rows.map((r) => [r.name, r.title, `${r.inputBytes} B`, r.moduleBytes === null ? 'NOT BUILT' : `${r.moduleBytes} B`, r.sha256 ?? '-']),
        new Set([2, 3]),
      ),
    );
    printLine(`\n${rows.length} kernels, AssemblyScript ${manifest.assemblyscript}; \`benchfleet kernels --json\` adds each kernel's input/output convention.`);
  },
};
