// The stack's cluster keeps the shape its state was made with and refuses another (checkClusterShape).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkClusterShape, clusterNodes, stackClickhouseCluster } from './clickhouse-cluster.ts';

const state = mkdtempSync(join(tmpdir(), 'wp-shape-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));

describe('the stack cluster shape', () => {
  it("is read from the state's server folders and refused when STACK_CLICKHOUSE_SHARDS/_REPLICAS change", () => {
    const replicas = stackClickhouseCluster(state, { STACK_CLICKHOUSE_REPLICAS: '2' })!;
    checkClusterShape(replicas); // no state yet: any shape
    for (const n of clusterNodes(replicas)) mkdirSync(n.dir, { recursive: true }); // as the first start leaves them
    checkClusterShape(replicas); // the same shape again: fine
    const shards = stackClickhouseCluster(state, { STACK_CLICKHOUSE_SHARDS: '2' })!;
    expect(() => checkClusterShape(shards)).toThrow(
      /is 1 shard\(s\) x 2 replica\(s\), and .* ask for 2 shard\(s\) x 1 replica\(s\).*remove that folder/,
    );
  });

  it('is none without the variables, and needs two servers or more', () => {
    expect(stackClickhouseCluster(state, {})).toBeUndefined();
    expect(() => stackClickhouseCluster(state, { STACK_CLICKHOUSE_REPLICAS: '1' })).toThrow(/2 servers or more/);
  });
});
