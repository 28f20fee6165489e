// A file layer that knows what a power cut would keep, for the crash-consistency tests
// (test/helpers/power-cut.ts). Loaded into the real coordinator process with
// NODE_OPTIONS=--import=<this file> and POWER_CUT_ROOT / POWER_CUT_SHADOW set, it changes
// nothing the coordinator sees: every call goes to the real file system. Beside it, it keeps the
// *durable image* of ROOT in SHADOW, under the strictest rules a POSIX file system allows:
//
// - a file's bytes are durable once an fsync or fdatasync of it returns (what it held when the
//   call began), or once a write on a handle opened O_SYNC/O_DSYNC returns (those bytes);
// - a name (a create, a rename, an unlink, a mkdir) is durable once an fsync of its folder
//   returns: the folder's listing as it was when that call began.
//
// rebuild() in test/helpers/power-cut.ts then lays out ROOT as the power cut leaves it: the
// durable listings from ROOT down, each file with its durable bytes (none if it never had any).
// Files are told apart by inode and a generation this layer moves when it sees an inode die
// (unlink, rm, rename over it), so a reused inode number is a new file. SQLite's own calls are
// native and not seen: its files count as never synced, harsher than the truth (the index is
// derived, and the coordinator must rebuild what it lacks).
//
// Plain JavaScript, not TypeScript: it must load before any TypeScript hook, in the main thread
// and in every worker thread (on Node 20 the coordinator's workers run bundles without one).
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { Buffer } from 'node:buffer';

const require = createRequire(import.meta.url);
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const path = require('node:path');
const workerThreads = require('node:worker_threads');

const ROOT = process.env.POWER_CUT_ROOT;
const SHADOW = process.env.POWER_CUT_SHADOW;
const SELF = fileURLToPath(import.meta.url);

if (ROOT && SHADOW) await install(path.resolve(ROOT), path.resolve(SHADOW));

async function install(root, shadow) {
  const contentDir = path.join(shadow, 'content');
  const retiredDir = path.join(shadow, 'retired');
  const dirsLog = path.join(shadow, 'dirs.log');
  const eventsLog = path.join(shadow, 'events.log');
  let tmpCounter = 0;
  const { O_SYNC, O_DSYNC } = fs.constants;
  /** Handles opened O_SYNC/O_DSYNC under ROOT, by fd, with the file id their writes go to. */
  const syncHandles = new Map();

  const inside = (p) => p === root || p.startsWith(`${root}${path.sep}`);
  const rel = (p) => path.relative(root, p).split(path.sep).join('/');
  const pathOfFd = (fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return null;
    }
  };
  const generation = (ino) => {
    try {
      return Number(fs.readFileSync(path.join(retiredDir, String(ino)), 'utf8'));
    } catch {
      return 0;
    }
  };
  const idOf = (stat) => `${stat.ino}g${generation(stat.ino)}`;
  /** Write `bytes` as the durable content of `id`, whole or not at all. */
  const putContent = (id, bytes) => {
    const tmp = path.join(contentDir, `.${id}.${process.pid}.${workerThreads.threadId}.${++tmpCounter}`);
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, path.join(contentDir, id));
  };
  const event = (what, p) => {
    fs.appendFileSync(eventsLog, `${Date.now()} ${what} ${rel(p)}\n`);
  };
  /** What a sync of `p` makes durable, read as the call begins; null when `p` is outside ROOT. */
  const capture = (p) => {
    if (p === null || !inside(p)) return null;
    try {
      const stat = fs.statSync(p);
      if (stat.isDirectory()) {
        const entries = {};
        for (const name of fs.readdirSync(p)) {
          try {
            const s = fs.lstatSync(path.join(p, name));
            if (s.isDirectory()) entries[name] = { k: 'd' };
            else if (s.isFile()) entries[name] = { k: 'f', id: idOf(s) };
          } catch {
            // Gone meanwhile: not in the listing.
          }
        }
        return { kind: 'dir', p, entries };
      }
      if (stat.isFile()) return { kind: 'file', p, id: idOf(stat), bytes: fs.readFileSync(p) };
    } catch {
      // Unreadable: nothing to record (the real call will say what is wrong).
    }
    return null;
  };
  const commit = (captured) => {
    if (captured === null) return;
    if (captured.kind === 'dir') {
      fs.appendFileSync(dirsLog, `${JSON.stringify({ dir: rel(captured.p), entries: captured.entries })}\n`);
      event('dirsync', captured.p);
    } else {
      putContent(captured.id, captured.bytes);
      event('sync', captured.p);
    }
  };
  /** Inodes under `p` (a file, or a folder and everything in it) that an unlink, rm or rename over is about to end. */
  const inodesUnder = (p) => {
    const found = [];
    const walk = (at) => {
      let s;
      try {
        s = fs.lstatSync(at);
      } catch {
        return;
      }
      if (s.isDirectory()) for (const name of fs.readdirSync(at)) walk(path.join(at, name));
      else found.push(s.ino);
    };
    if (typeof p === 'string' && inside(path.resolve(p))) walk(path.resolve(p));
    return found;
  };
  /** Move each inode's generation by `by`, whole or not at all: another thread reading it meanwhile sees the old count or the new. */
  const moveGenerations = (inodes, by) => {
    for (const ino of inodes) {
      const tmp = path.join(retiredDir, `.${ino}.${process.pid}.${workerThreads.threadId}.${++tmpCounter}`);
      fs.writeFileSync(tmp, String(generation(ino) + by));
      fs.renameSync(tmp, path.join(retiredDir, String(ino)));
    }
  };
  /**
   * Run `call`, which ends the inodes under `p`. They are retired *before* the call: once the
   * call has freed an inode number, another thread may create a file on it at once (ext4 hands
   * freed numbers straight back), and that file must already get the new generation; retired
   * after, its sync and its folder's listing would file it under two ids and a synced file
   * would look lost. When the call fails, what still lives under `p` gets its generation back.
   */
  const ending = (p, call) => {
    const dying = inodesUnder(p);
    moveGenerations(dying, 1);
    const undo = () => {
      const alive = new Set(inodesUnder(p));
      moveGenerations(dying.filter((ino) => alive.has(ino)), -1);
    };
    let result;
    try {
      result = call();
    } catch (error) {
      undo();
      throw error;
    }
    if (result instanceof Promise) return result.catch((error) => {
      undo();
      throw error;
    });
    return result;
  };

  if (isMainThread && !fs.existsSync(path.join(shadow, 'ready'))) {
    // Everything ROOT holds as this process starts is durable (it is what the last cut left).
    fs.mkdirSync(contentDir, { recursive: true });
    fs.mkdirSync(retiredDir, { recursive: true });
    const walk = (dir) => {
      commit(capture(dir));
      for (const name of fs.readdirSync(dir)) {
        const p = path.join(dir, name);
        const s = fs.lstatSync(p);
        if (s.isDirectory()) walk(p);
        else if (s.isFile()) putContent(idOf(s), fs.readFileSync(p));
      }
    };
    fs.mkdirSync(root, { recursive: true });
    walk(root);
    fs.writeFileSync(path.join(shadow, 'ready'), '');
  }

  const wrapSync = (proto, name) => {
    const original = proto[name];
    proto[name] = async function (...args) {
      const captured = capture(pathOfFd(this.fd));
      const result = await original.apply(this, args);
      commit(captured);
      return result;
    };
  };

  const originalOpen = fsp.open;
  fsp.open = async function (p, flags, mode) {
    const handle = await originalOpen.call(this, p, flags, mode);
    const numeric = typeof flags === 'number' ? flags : 0;
    const resolved = path.resolve(String(p));
    if ((numeric & (O_SYNC | O_DSYNC)) !== 0 && inside(resolved)) {
      const stat = fs.fstatSync(handle.fd);
      const id = idOf(stat);
      if (!fs.existsSync(path.join(contentDir, id))) putContent(id, fs.readFileSync(resolved));
      syncHandles.set(handle.fd, { id, p: resolved, append: (numeric & fs.constants.O_APPEND) !== 0 });
      const proto = Object.getPrototypeOf(handle);
      if (!proto.__powerCut) install.handleProto(proto);
    }
    return handle;
  };

  install.handleProto = (proto) => {
    proto.__powerCut = true;
    wrapSync(proto, 'sync');
    wrapSync(proto, 'datasync');
    const write = proto.write;
    proto.write = async function (...args) {
      const result = await write.apply(this, args);
      const target = syncHandles.get(this.fd);
      if (target && result.bytesWritten > 0) {
        // The bytes of this write, where they landed: durable now (O_SYNC/O_DSYNC).
        const [buffer, offset = 0, , position] = args;
        const bytes = Buffer.from(buffer.buffer, buffer.byteOffset + offset, result.bytesWritten);
        const at = typeof position === 'number' && !target.append ? position : fs.fstatSync(this.fd).size - result.bytesWritten;
        const file = path.join(contentDir, target.id);
        const fd = fs.openSync(file, 'r+');
        try {
          fs.writeSync(fd, bytes, 0, bytes.length, at);
        } finally {
          fs.closeSync(fd);
        }
        event('dsync', target.p);
      }
      return result;
    };
    const close = proto.close;
    proto.close = function (...args) {
      syncHandles.delete(this.fd);
      return close.apply(this, args);
    };
  };

  // Every FileHandle shares one prototype: wrap it now (before the coordinator's first line
  // runs: --import awaits this module), from a handle opened for the purpose.
  const probeHandle = await originalOpen(SELF, 'r');
  const handleProto = Object.getPrototypeOf(probeHandle);
  await probeHandle.close();
  if (!handleProto.__powerCut) install.handleProto(handleProto);

  for (const name of ['fsync', 'fdatasync']) {
    const original = fs[name];
    fs[name] = function (fd, callback) {
      const captured = capture(pathOfFd(fd));
      return original.call(this, fd, (error) => {
        if (!error) commit(captured);
        callback(error);
      });
    };
    const originalSync = fs[`${name}Sync`];
    fs[`${name}Sync`] = function (fd) {
      const captured = capture(pathOfFd(fd));
      originalSync.call(this, fd);
      commit(captured);
    };
  }

  // Deaths of inodes: a later file with the same inode number is another file.
  for (const name of ['unlink', 'rm', 'rmdir']) {
    const original = fsp[name];
    fsp[name] = function (p, ...rest) {
      return ending(p, () => original.call(this, p, ...rest));
    };
    const originalSync = fs[`${name}Sync`];
    fs[`${name}Sync`] = function (p, ...rest) {
      return ending(p, () => originalSync.call(this, p, ...rest));
    };
  }
  const originalRename = fsp.rename;
  fsp.rename = function (from, to) {
    return ending(to, () => originalRename.call(this, from, to));
  };
  const originalRenameSync = fs.renameSync;
  fs.renameSync = function (from, to) {
    ending(to, () => originalRenameSync.call(this, from, to));
  };

  // Worker threads load this layer too (their execArgv does not come from NODE_OPTIONS).
  const OriginalWorker = workerThreads.Worker;
  workerThreads.Worker = class extends OriginalWorker {
    constructor(filename, options = {}) {
      const execArgv = [...(options.execArgv ?? process.execArgv), `--import=${SELF}`];
      super(filename, { ...options, execArgv });
    }
  };
  syncBuiltinESMExports();
}
