// The notification policy: minimum severity and channels (admin).
import type { FastifyPluginAsync } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { loadPolicy, savePolicy } from '@watchpost/core/notify';
import { auditCaller } from '../shared/audit.ts';
import { policySchema, tags } from './schemas.ts';

const policyBody = {
  ...policySchema,
  additionalProperties: false,
  properties: { min_severity: policySchema.properties.min_severity, channels: policySchema.properties.channels },
} as const;

const policyRoutes: FastifyPluginAsync = async (app) => {
  const { pg, config } = app.deps;
  const view = async () => {
    const p = await loadPolicy(pg, config.notify);
    return { min_severity: p.minSeverity, channels: p.channels, source: p.source };
  };

  app.get(
    '/settings/notifications/policy',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'getNotificationPolicy',
        tags,
        summary: 'The notification policy: minimum severity and channels',
        description:
          'Defaults come from NOTIFY_MIN_SEVERITY and NOTIFY_CHANNELS; a saved policy overrides them (source says which).',
        response: { 200: policySchema },
      },
    },
    view,
  );

  app.put<{ Body: FromSchema<typeof policyBody> }>(
    '/settings/notifications/policy',
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'putNotificationPolicy',
        tags,
        summary: 'Set the notification policy',
        body: policyBody,
        response: { 200: policySchema },
      },
    },
    async (req) => {
      await savePolicy(pg, { minSeverity: req.body.min_severity, channels: req.body.channels }, req.user!.username);
      await auditCaller(pg, req, 'setting.notify_policy', { details: req.body });
      return view();
    },
  );
};

export default policyRoutes;
