// Each channel's configuration (admin): the body is the channel's settings schema (its descriptor,
// core/src/notify/channels/); secrets are write-only, stored encrypted, masked in views and the audit
// log. Each channel's test-send (./test-send.ts) follows its settings.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { NOTIFY_CHANNELS, type NotifyChannel } from '@watchpost/schemas';
import {
  auditableChannelInput,
  channelConfigView,
  channelDefaults,
  descriptorOf,
  saveChannelConfig,
  type ChannelInput,
} from '@watchpost/core/notify';
import { loadSecretsKey } from '@watchpost/core/secrets';
import { ApiError } from '../../errors.ts';
import { auditCaller } from '../shared/audit.ts';
import { channelEnum, tags } from './schemas.ts';
import { testSendRoutes } from './test-send.ts';

const channelsRoutes: FastifyPluginAsync = async (app) => {
  // A wrong channel variable stops the start, not the first request.
  channelDefaults(app.deps.config.notify);
  const testSend = testSendRoutes(app);
  for (const channel of NOTIFY_CHANNELS) {
    channelRoutes(app, channel);
    testSend(channel);
  }
};

function channelRoutes<C extends NotifyChannel>(app: FastifyInstance, channel: C): void {
  const { pg, config } = app.deps;
  let secretsKey: Promise<Buffer> | undefined;
  const key = () => (secretsKey ??= loadSecretsKey(config.actions.secretsKey, config.stateDir));

  app.get(
    `/settings/notifications/channels/${channel}`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: `getNotificationChannel_${channel}`,
        tags,
        summary: `The ${channel} channel configuration (secrets masked)`,
        response: {
          200: {
            type: 'object',
            additionalProperties: true,
            properties: { channel: channelEnum, enabled: { type: 'boolean' } },
          },
        },
      },
    },
    async () => channelConfigView(pg, config.notify, channel),
  );

  app.put<{ Body: ChannelInput<C> }>(
    `/settings/notifications/channels/${channel}`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: `putNotificationChannel_${channel}`,
        tags,
        summary: `Update the ${channel} channel configuration`,
        description:
          'Fields left out keep their value; a secret set to null is removed (the environment value applies again). Secrets are stored encrypted (AES-256-GCM) and never returned.',
        body: descriptorOf(channel).bodySchema,
        response: { 200: { type: 'object', additionalProperties: true, properties: { channel: channelEnum } } },
      },
    },
    async (req) => {
      // fastify leaves the body type of a generic channel unresolved: it is the schema's, validated.
      const body = req.body as ChannelInput<C>;
      try {
        await saveChannelConfig(pg, await key(), config.notify, channel, body, req.user!.username);
      } catch (err) {
        throw new ApiError(400, 'BAD_REQUEST', (err as Error).message);
      }
      await auditCaller(pg, req, `setting.notify_${channel}`, { details: auditableChannelInput(channel, body) });
      return channelConfigView(pg, config.notify, channel);
    },
  );
}

export default channelsRoutes;
