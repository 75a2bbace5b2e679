// The one-buffer request frame is byte for byte kafkajs's protocol/request.js.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { installKafkajsSpeedups, originals } from './kafkajs-speedups.ts';
import { fastFrameRequest, type FrameRequest } from './kafkajs-request.ts';

const require = createRequire(import.meta.url);
const installed = installKafkajsSpeedups();
type Request = Parameters<FrameRequest>[0]['request'];
const metadata = require('kafkajs/src/protocol/requests/metadata/v0/request.js') as (a: { topics: string[] }) => Request;
const produce = require('kafkajs/src/protocol/requests/produce/v3/request.js') as (a: unknown) => Request;
const fast = fastFrameRequest(originals.frameRequest!);

it('is installed in place of kafkajs’s framing, before the connection took it', () => {
  expect(installed.frame).toBe(true);
  expect(require('kafkajs/src/protocol/request.js')).not.toBe(originals.frameRequest);
});

it('frames every request as kafkajs does: client ids of every kind, payloads small and large', async () => {
  const requests: Request[] = [
    metadata({ topics: [] }),
    metadata({ topics: ['events.v1', 'problems.v1', 'é-topic'] }),
    produce({
      acks: -1,
      timeout: 5000,
      topicData: [
        {
          topic: 'events.v1',
          partitions: [0, 1].map((partition) => ({
            partition,
            firstSequence: undefined,
            messages: Array.from({ length: 40 }, (_, i) => ({
              key: `host-${i}`,
              value: randomBytes(1100),
              headers: { 'wp-agent-key': '7' },
            })),
          })),
        },
      ],
    }),
  ];
  // A produce request stamps its records with the time it is encoded: both framings get the same payload.
  const encodedOnce = await Promise.all(
    requests.map(async (r): Promise<Request> => {
      const payload = await r.encode();
      return { apiKey: r.apiKey, apiVersion: r.apiVersion, encode: () => payload };
    }),
  );
  for (const clientId of ['watchpost-all', '', 'clïent-ü', null, undefined])
    for (const request of encodedOnce)
      for (const correlationId of [0, 1, 2 ** 31 - 1]) {
        const args = { correlationId, clientId, request };
        const theirs = (await originals.frameRequest!(args)).buffer;
        const ours = (await fast(args)).buffer;
        expect(ours.equals(theirs)).toBe(true);
        expect(ours.readInt32BE(0)).toBe(ours.length - 4);
      }
});

it('leaves a client id that is not a string to kafkajs (which refuses it the same way)', async () => {
  const args = { correlationId: 1, clientId: 42 as unknown as string, request: metadata({ topics: ['t'] }) };
  await expect(originals.frameRequest!(args)).rejects.toThrow(TypeError);
  await expect(fast(args)).rejects.toThrow(TypeError);
});
