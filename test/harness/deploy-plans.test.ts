// The plans shipped in deploy/plans are valid, and the study's stays the seed's three policies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { STUDY_PLAN } from '../../shared/plan.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { kernelNames } from '../../kernels/catalog.ts';

function plan(file: string) {
  return parsePlan(JSON.parse(readFileSync(new URL(`../../deploy/plans/${file}`, import.meta.url), 'utf8')), kernelNames());
}

test('study.json is the seed study: three policies, fixed inputs', () => {
  const study = plan('study.json');
  assert.deepEqual(study.policies, ['whole', 'pages', 'checkpoint']);
  assert.deepEqual({ ...study, name: STUDY_PLAN.name }, STUDY_PLAN);
});

test('study-tracked.json adds tracked to the study, and study-varying.json runs it on varying inputs', () => {
  const tracked = plan('study-tracked.json');
  const varying = plan('study-varying.json');
  assert.deepEqual(tracked.policies, ['whole', 'pages', 'checkpoint', 'tracked']);
  assert.equal(tracked.inputs, undefined);
  assert.deepEqual({ ...varying, name: tracked.name, inputs: undefined }, { ...tracked, inputs: undefined });
  assert.equal(varying.inputs, 'varying');
});
