// The service files in deploy/ as launchd and systemd read them: the Mac agent runs as an
// interactive process (not throttled as a background job), from its folder, logging under the
// user's Library/Logs, restarted after a crash but never in a loop after a refusal for good;
// systemd does not restart on the agent's fatal exit code either.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FATAL_AUTH_EXIT_CODE } from '../../shared/errors.ts';

type PlistValue = string | number | boolean | PlistValue[] | { [key: string]: PlistValue };

/** A reader for the XML plist subset service files use: dict, array, string, integer, true, false. */
function parsePlist(xml: string): PlistValue {
  const tokens = [...xml.replace(/<!--[\s\S]*?-->/g, '').matchAll(/<(\/?)(\w+)(\/?)>([^<]*)/g)].map((m) => ({ close: m[1] === '/', tag: m[2] as string, empty: m[3] === '/', text: m[4] as string }));
  let i = tokens.findIndex((t) => t.tag === 'plist' && !t.close) + 1;
  const value = (): PlistValue => {
    const t = tokens[i++];
    if (!t || t.close) throw new Error(`plist: expected a value at token ${i}`);
    if (t.tag === 'true' || t.tag === 'false') return t.tag === 'true';
    if (t.tag === 'string' || t.tag === 'integer') {
      if (t.empty) return '';
      i++; // its closing tag
      return t.tag === 'integer' ? Number(t.text) : t.text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    }
    if (t.tag === 'array') {
      const items: PlistValue[] = [];
      while (!(tokens[i]?.close && tokens[i]?.tag === 'array')) items.push(value());
      i++;
      return items;
    }
    if (t.tag === 'dict') {
      const dict: Record<string, PlistValue> = {};
      while (!(tokens[i]?.close && tokens[i]?.tag === 'dict')) {
        const key = tokens[i];
        if (key?.tag !== 'key') throw new Error(`plist: expected <key> at token ${i}`);
        i += 2;
        dict[key.text] = value();
      }
      i++;
      return dict;
    }
    throw new Error(`plist: unexpected <${t.tag}>`);
  };
  return value();
}

const plistText = readFileSync(new URL('../../deploy/launchd/org.benchfleet.agent.plist', import.meta.url), 'utf8');

test('the launchd plist runs the agent interactively, from its folder, logging under ~/Library/Logs, and does not respawn after a refusal', () => {
  for (const comment of plistText.match(/<!--([\s\S]*?)-->/g) ?? []) assert.doesNotMatch(comment.slice(4, -3), /--/, 'an XML comment may not contain "--"');
  const plist = parsePlist(plistText) as Record<string, PlistValue>;
  assert.equal(plist['Label'], 'org.benchfleet.agent');
  assert.equal(plist['ProcessType'], 'Interactive');
  assert.equal(plist['WorkingDirectory'], '/Users/you/benchfleet');
  assert.deepEqual(plist['KeepAlive'], { SuccessfulExit: false }, 'restart after a crash only');
  const args = plist['ProgramArguments'] as string[];
  assert.equal(args[1], `${plist['WorkingDirectory'] as string}/bin/benchfleet.js`);
  assert.equal(args[2], 'agent');
  assert.equal(args[args.indexOf('--fatal-exit-code') + 1], '0', 'a refusal for good exits 0, which KeepAlive SuccessfulExit=false does not restart');
  assert.ok(!args.includes('--nice'), 'no nice on a Mac');
  for (const key of ['StandardOutPath', 'StandardErrorPath']) {
    assert.match(plist[key] as string, /^\/Users\/you\/Library\/Logs\/benchfleet\//);
  }
  assert.doesNotMatch(plistText, /\/tmp\//, 'nothing world-readable in /tmp');
  assert.match((plist['EnvironmentVariables'] as Record<string, string>)['PATH'] ?? '', /(^|:)\/usr\/bin(:|$)/, 'caffeinate, pmset and sysctl are found');
  assert.match(plistText, /launchctl bootstrap gui\/\$UID /);
});

test('the systemd unit does not restart an agent that exited with the fatal refusal code', () => {
  const unit = readFileSync(new URL('../../deploy/systemd/benchfleet-agent@.service', import.meta.url), 'utf8');
  assert.match(unit, new RegExp(`^RestartPreventExitStatus=${FATAL_AUTH_EXIT_CODE}$`, 'm'));
});
