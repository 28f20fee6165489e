// Compiles several AssemblyScript kernels in one process with asc's API, so the compiler and
// its 13 MB Binaryen bundle load once per process instead of once per kernel.
// Plain JavaScript on purpose: it runs without the TypeScript loader, whose transform of the
// Binaryen bundle alone takes ~20 s on Node 20. Called by compile.ts only.
// argv: a JSON array of { source, out } and the asc flags after it.
import asc from 'assemblyscript/asc';

const [jobsJson, ...flags] = process.argv.slice(2);
const jobs = JSON.parse(jobsJson ?? '[]');
let failed = false;
for (const { source, out } of jobs) {
  let errors = '';
  const stderr = { write: (text) => { errors += String(text); return true; } };
  const result = await asc.main([source, '--outFile', out, ...flags], { stderr });
  if (result.error) {
    failed = true;
    process.stderr.write(`${source}\n${errors || result.error.message}\n`);
  } else {
    process.stdout.write(`${JSON.stringify({ source, out })}\n`);
  }
}
process.exit(failed ? 1 : 0);
