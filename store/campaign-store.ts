// Campaign folders on disk: DIR/campaigns/<id>/ with plan.json (the plan's exact bytes) and
// campaign.json (its state, written only by coordinator/campaigns/campaigns.ts, atomically). Versioned
// and validated on the way in, like run.json: a campaign.json that does not parse is named
// and skipped, never trusted.
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolderDurable, writeFileAtomic } from '../shared/atomic-file.ts';
import { BenchfleetError } from '../shared/errors.ts';
import type { CampaignSummary } from '../shared/protocol/campaign.ts';

export const CAMPAIGN_FILE = 'campaign.json';
export const CAMPAIGN_SCHEMA_VERSION = 1;

export interface StoredCampaign extends CampaignSummary {
  schema: typeof CAMPAIGN_SCHEMA_VERSION;
  /**
   * The id of the next run, chosen and saved before the run is created: after a crash between
   * the two, the restarted coordinator adopts the run if it exists and creates it if not, so a
   * campaign's run is never lost and never made twice.
   */
  pendingRunId: string | null;
  /** Finished runs the stop rule has looked at (the last evaluation's count). */
  evaluatedRuns: number;
}

const STATES = new Set(['running', 'waiting', 'finished', 'cancelled']);

function bad(file: string, problem: string): never {
  throw new BenchfleetError('RECORD_INVALID', `${file}: ${problem}`);
}

/** A campaign.json's content, checked field by field where the coordinator relies on it. */
export function parseStoredCampaign(value: unknown, file: string): StoredCampaign {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(file, 'must be an object');
  const o = value as Record<string, unknown>;
  if (o['schema'] !== CAMPAIGN_SCHEMA_VERSION) bad(`${file}.schema`, `is ${JSON.stringify(o['schema'])}; this coordinator reads schema ${CAMPAIGN_SCHEMA_VERSION}`);
  for (const key of ['campaignId', 'planName', 'planSha256', 'createdAt', 'progress']) if (typeof o[key] !== 'string') bad(`${file}.${key}`, 'must be a string');
  if (!STATES.has(o['state'] as string)) bad(`${file}.state`, `must be one of ${[...STATES].join(', ')}`);
  if (!Array.isArray(o['machines']) || !o['machines'].every((m) => typeof m === 'string')) bad(`${file}.machines`, 'must be a list of names');
  if (!Array.isArray(o['runs']) || !o['runs'].every((r) => typeof r === 'object' && r !== null && typeof (r as { runId?: unknown }).runId === 'string')) bad(`${file}.runs`, 'must be a list of runs');
  for (const key of ['cells', 'bands']) if (!Array.isArray(o[key])) bad(`${file}.${key}`, 'must be a list');
  if (typeof o['rule'] !== 'object' || o['rule'] === null) bad(`${file}.rule`, 'must be an object');
  for (const key of ['pendingRunId', 'nextStartAt']) if (o[key] !== null && typeof o[key] !== 'string') bad(`${file}.${key}`, 'must be a string or null');
  if (typeof o['evaluatedRuns'] !== 'number' || !Number.isSafeInteger(o['evaluatedRuns'])) bad(`${file}.evaluatedRuns`, 'must be a count');
  return o as unknown as StoredCampaign;
}

export class CampaignStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'campaigns');
  }

  campaignDir(id: string): string {
    return join(this.dir, id);
  }

  /** The campaign's folder, plan and state, each name and the plan synced before campaign.json is written (what makes it a campaign). */
  async create(campaign: StoredCampaign, planText: string): Promise<void> {
    await makeFolderDurable(this.campaignDir(campaign.campaignId));
    await writeFileAtomic(join(this.campaignDir(campaign.campaignId), 'plan.json'), planText);
    await this.save(campaign);
  }

  save(campaign: StoredCampaign): Promise<void> {
    return writeFileAtomic(join(this.campaignDir(campaign.campaignId), CAMPAIGN_FILE), `${JSON.stringify(campaign, null, 2)}\n`);
  }

  planText(id: string): Promise<string> {
    return readFile(join(this.campaignDir(id), 'plan.json'), 'utf8');
  }

  /** Every campaign.json that parses; the others are reported through `onSkipped`. */
  async loadAll(onSkipped: (id: string, problem: string) => void): Promise<StoredCampaign[]> {
    await mkdir(this.dir, { recursive: true });
    const found: StoredCampaign[] = [];
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const file = join(this.dir, entry.name, CAMPAIGN_FILE);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        continue; // Never fully created.
      }
      try {
        found.push(parseStoredCampaign(JSON.parse(text), file));
      } catch (error) {
        onSkipped(entry.name, error instanceof Error ? error.message : String(error));
      }
    }
    return found;
  }
}
