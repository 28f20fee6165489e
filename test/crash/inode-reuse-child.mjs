// Run under the power-cut layer (test/crash/power-cut-fs.test.ts): the main thread makes and
// removes files as fast as it can while a worker thread writes files the way writeFileAtomic
// does (temporary, sync, rename, folder sync). On ext4 a removed inode's number comes back at
// once, so the worker's new files keep taking the numbers the main thread frees: the race the
// layer must tell apart (a file that reuses an inode is a new file, whatever the moment).
// Plain JavaScript: it loads with the layer and no TypeScript hook. Prints "done N" at the end.
import { Worker, isMainThread, workerData } from 'node:worker_threads';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const FILES = 400;

async function syncFolder(dir) {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

if (isMainThread) {
  const [root] = process.argv.slice(2);
  const churn = join(root, 'churn');
  const kept = join(root, 'kept');
  await writeFile(join(root, '.keep'), '');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(churn);
  await mkdir(kept);
  await syncFolder(root);
  const worker = new Worker(new URL(import.meta.url), { workerData: { kept } });
  let running = true;
  const ended = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const churning = (async () => {
    for (let i = 0; running; i++) {
      const p = join(churn, `c${i % 8}`);
      await writeFile(p, 'x');
      await rm(p);
    }
  })();
  const written = await ended;
  running = false;
  await churning;
  process.stdout.write(`done ${written}\n`);
} else {
  const { kept } = workerData;
  for (let i = 0; i < FILES; i++) {
    const final = join(kept, `f${i}`);
    const tmp = join(kept, `.f${i}.tmp`);
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(`file ${i}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, final);
    await syncFolder(kept);
  }
  const { parentPort } = await import('node:worker_threads');
  parentPort.postMessage(FILES);
}
