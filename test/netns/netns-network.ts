// A small network of hosts in Linux network namespaces, for fleet tests that need real links to
// break: every host has a veth to a bridge in a "switch" namespace, and the test process itself
// gets one veth in the root namespace so that it can talk to the coordinator directly.
// Addresses come from 198.18.0.0/15 (RFC 2544 benchmarking space) and nothing else.
//
// Every name starts with NAME_PREFIX and this process's pid, so that a later run can remove
// what a crashed run left behind (only names whose pid is no longer alive: another run on the
// same machine keeps its own) and `destroy` removes everything this run made, even after a
// failure half-way through `create`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const NAME_PREFIX = 'bfnt';
const COMMAND_TIMEOUT_MS = 15_000;

/** Run one command (ip, iptables, ...) and return its stdout; fails with the command and its stderr. */
export async function sh(file: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await exec(file, [...args], { timeout: COMMAND_TIMEOUT_MS });
    return stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${(e.stderr ?? '').trim() || e.message}`, { cause: error });
  }
}

/** Null when namespaces can be made here; otherwise why not (the reason a skipped test states). */
export async function netnsUnavailable(): Promise<string | null> {
  const probe = `${NAME_PREFIX}${process.pid}-probe`;
  try {
    await exec('ip', ['netns', 'add', probe], { timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') return '`ip` (iproute2) is not installed';
    return `\`ip netns add\` is not permitted here: ${(e.stderr ?? e.message).trim()}`;
  }
  await exec('ip', ['netns', 'del', probe], { timeout: COMMAND_TIMEOUT_MS }).catch(() => undefined);
  return null;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a name of ours carries (bfnt1234-a, bfnt1234), or null for a name that is not ours. */
function ownerPid(name: string): number | null {
  const match = new RegExp(`^${NAME_PREFIX}(\\d+)(?:-|$)`).exec(name);
  return match ? Number(match[1]) : null;
}

/** Remove the namespaces and root-namespace links of earlier runs that died without cleaning up. */
export async function removeLeftovers(): Promise<string[]> {
  const removed: string[] = [];
  const namespaces = (await sh('ip', ['netns', 'list'])).split('\n').map((l) => l.split(' ')[0] ?? '').filter(Boolean);
  const links = (await sh('ip', ['-o', 'link', 'show'])).split('\n').map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1] ?? '').filter(Boolean);
  for (const [kind, names] of [['netns', namespaces], ['link', links]] as const) {
    for (const name of names) {
      const pid = ownerPid(name);
      if (pid === null || pid === process.pid || pidAlive(pid)) continue;
      await sh('ip', kind === 'netns' ? ['netns', 'del', name] : ['link', 'del', name]).catch(() => undefined);
      removed.push(`${kind} ${name}`);
    }
  }
  return removed;
}

export interface Host {
  /** Short name given by the test: coordinator, a, b. */
  name: string;
  /** The network namespace the host's processes run in. */
  netns: string;
  address: string;
}

export interface Network {
  hosts: Map<string, Host>;
  /** The root namespace's own address on the bridge (the test process). */
  testAddress: string;
  host(name: string): Host;
  /** Cut a host off the bridge (its switch port down: the host's side goes NO-CARRIER), or reconnect it. */
  setLink(name: string, up: boolean): Promise<void>;
  /** Drop this fraction of the packets a host sends and receives, at random (iptables `statistic`). */
  dropPackets(name: string, probability: number): Promise<void>;
  /** Packets the host's drop rules have dropped so far. */
  droppedPackets(name: string): Promise<number>;
  /**
   * Partition a host so that the other side notices at once: TCP packets arriving at the host are
   * answered with a reset (a firewall that rejects rather than drops). `false` lifts it.
   */
  setRejecting(name: string, on: boolean): Promise<void>;
  /** Remove every filter rule of a host (drops and partitions). */
  clearFilters(name: string): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * Make one namespace per host name, all on one /24 of 198.18.0.0/15 that no route of this
 * machine uses yet. The caller must call `destroy`; on a failure inside, `create` destroys
 * what it made before it rethrows.
 */
export async function createNetwork(hostNames: readonly string[]): Promise<Network> {
  const id = `${NAME_PREFIX}${process.pid}`;
  const routes = await sh('ip', ['-4', 'route', 'show']);
  let octet = 0;
  for (let i = 0; i < 256; i++) {
    const candidate = (process.pid + i) % 256;
    if (!routes.includes(`198.18.${candidate}.`)) {
      octet = candidate;
      break;
    }
  }
  const subnet = `198.18.${octet}`;
  const made: string[] = [];
  const sw = `${id}-sw`;
  const rootLink = id;
  const hosts = new Map<string, Host>();
  const destroy = async (): Promise<void> => {
    // Deleting a namespace deletes its interfaces, and a veth goes with either of its ends.
    for (const netns of made.reverse()) await sh('ip', ['netns', 'del', netns]).catch(() => undefined);
    made.length = 0;
    await sh('ip', ['link', 'del', rootLink]).catch(() => undefined);
  };
  try {
    await sh('ip', ['netns', 'add', sw]);
    made.push(sw);
    await sh('ip', ['-n', sw, 'link', 'add', 'br0', 'type', 'bridge']);
    await sh('ip', ['-n', sw, 'link', 'set', 'br0', 'up']);
    for (const [i, name] of hostNames.entries()) {
      const netns = `${id}-${name}`;
      await sh('ip', ['netns', 'add', netns]);
      made.push(netns);
      await sh('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
      await sh('ip', ['-n', netns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', `p-${name}`, 'netns', sw]);
      const address = `${subnet}.${i + 1}`;
      await sh('ip', ['-n', netns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
      await sh('ip', ['-n', netns, 'link', 'set', 'eth0', 'up']);
      await sh('ip', ['-n', sw, 'link', 'set', `p-${name}`, 'master', 'br0', 'up']);
      hosts.set(name, { name, netns, address });
    }
    const testAddress = `${subnet}.254`;
    await sh('ip', ['link', 'add', rootLink, 'type', 'veth', 'peer', 'name', 'p-test', 'netns', sw]);
    await sh('ip', ['addr', 'add', `${testAddress}/24`, 'dev', rootLink]);
    await sh('ip', ['link', 'set', rootLink, 'up']);
    await sh('ip', ['-n', sw, 'link', 'set', 'p-test', 'master', 'br0', 'up']);
    const host = (name: string): Host => {
      const h = hosts.get(name);
      if (!h) throw new Error(`no host ${name} in this network`);
      return h;
    };
    return {
      hosts,
      testAddress,
      host,
      async setLink(name, up) {
        host(name);
        await sh('ip', ['-n', sw, 'link', 'set', `p-${name}`, up ? 'up' : 'down']);
      },
      async dropPackets(name, probability) {
        const { netns } = host(name);
        for (const [chain, direction] of [['INPUT', '-i'], ['OUTPUT', '-o']] as const) {
          await sh('ip', ['netns', 'exec', netns, 'iptables', '-A', chain, direction, 'eth0', '-m', 'statistic', '--mode', 'random', '--probability', String(probability), '-j', 'DROP']);
        }
      },
      async droppedPackets(name) {
        const { netns } = host(name);
        let total = 0;
        for (const chain of ['INPUT', 'OUTPUT']) {
          const listing = await sh('ip', ['netns', 'exec', netns, 'iptables', '-L', chain, '-v', '-x', '-n']);
          for (const line of listing.split('\n')) if (/\bDROP\b/.test(line)) total += Number(line.trim().split(/\s+/)[0]);
        }
        return total;
      },
      async setRejecting(name, on) {
        const { netns } = host(name);
        await sh('ip', ['netns', 'exec', netns, 'iptables', on ? '-A' : '-D', 'INPUT', '-i', 'eth0', '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset']);
      },
      async clearFilters(name) {
        await sh('ip', ['netns', 'exec', host(name).netns, 'iptables', '-F']);
      },
      destroy,
    };
  } catch (error) {
    await destroy();
    throw error;
  }
}
