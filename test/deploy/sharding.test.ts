// The StatefulSet shards by pod name, and the loader reads the index from it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/index.js';

interface EnvVar { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }

const sts = parseAllDocuments(readFileSync('deploy/kubernetes/statefulset.yaml', 'utf8')).map((d) => d.toJS() as Record<string, unknown>)
  .find((d) => d['kind'] === 'StatefulSet') as { spec: { replicas: number; template: { spec: { containers: Array<{ env: EnvVar[] }> } } } };

describe('StatefulSet sharding', () => {
  const env = sts.spec.template.spec.containers[0]?.env ?? [];
  it('takes EDGE_SHARD_INDEX from the pod name and keeps EDGE_SHARD_COUNT equal to replicas', () => {
    expect(env.find((e) => e.name === 'EDGE_SHARD_INDEX')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(Number(env.find((e) => e.name === 'EDGE_SHARD_COUNT')?.value)).toBe(sts.spec.replicas);
  });

  it.each([['edge-exporter-0', 0], ['edge-exporter-2', 2]])('pod %s loads as shard %i of 3', (pod, index) => {
    const config = loadConfig({ text: 'simulator: { enabled: true }', env: { EDGE_SHARD_INDEX: pod, EDGE_SHARD_COUNT: '3' } });
    expect(config.shard).toEqual({ index, count: 3 });
  });
});
