// A device's own routes: its record, the VAPID public key, and its Web Push subscriptions. Device
// sessions only where the route says so (400 NOT_A_DEVICE for a browser session).
import type { FastifyPluginAsync } from 'fastify';
import { deletePushSubscription, getDevice, loadVapidKeys, pushKeysProblem, savePushSubscription } from '@watchpost/core/devices';
import { loadSecretsKey } from '@watchpost/core/secrets';
import { ApiError, notFound } from '../../errors.ts';
import {
  deviceSchema,
  mobileTags,
  subscriptionBody,
  unsubscribeBody,
  view,
  type SubscriptionBody,
  type UnsubscribeBody,
} from './schemas.ts';

function ownDevice(deviceId: number | null): number {
  if (deviceId === null) throw new ApiError(400, 'NOT_A_DEVICE', 'this operation needs a device session (POST /mobile/enroll)');
  return deviceId;
}

export const mobileDeviceRoutes: FastifyPluginAsync = async (app) => {
  const { pg, config } = app.deps;
  let vapid: Promise<string> | undefined;
  const vapidPublicKey = () =>
    (vapid ??= loadSecretsKey(config.actions.secretsKey, config.stateDir)
      .then((key) =>
        loadVapidKeys(pg, key, {
          publicKey: config.devices.vapidPublicKey,
          privateKey: config.devices.vapidPrivateKey,
          subject: config.devices.vapidSubject,
        }),
      )
      .then((k) => k.publicKey)
      .catch((err: unknown) => {
        vapid = undefined;
        throw err;
      }));

  app.get(
    '/mobile/device',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'getOwnDevice',
        tags: mobileTags,
        summary: 'The device of the calling session (400 NOT_A_DEVICE for a browser session)',
        response: { 200: deviceSchema },
      },
    },
    async (req) => view((await getDevice(pg, ownDevice(req.deviceId)))!),
  );

  app.get(
    '/mobile/push/vapid-public-key',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'getVapidPublicKey',
        tags: mobileTags,
        summary: "The service's VAPID public key (applicationServerKey of PushManager.subscribe)",
        response: {
          200: {
            type: 'object',
            required: ['public_key'],
            properties: { public_key: { type: 'string', description: 'base64url, uncompressed P-256 point' } },
          },
        },
      },
    },
    async () => ({ public_key: await vapidPublicKey() }),
  );

  app.post<{ Body: SubscriptionBody }>(
    '/mobile/push-subscriptions',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'registerPushSubscription',
        tags: mobileTags,
        summary: 'Register a Web Push subscription (PushSubscription.toJSON()) for this device',
        description:
          'Many per device; registering an endpoint again refreshes its keys. Device sessions only (400 NOT_A_DEVICE). ' +
          'Keys that cannot encrypt (p256dh not a P-256 point, auth not 16 bytes): 400. An endpoint another device registered: 409.',
        body: subscriptionBody,
        response: {
          201: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
          409: { description: 'CONFLICT: the endpoint belongs to another device' },
        },
      },
    },
    async (req, reply) => {
      const deviceId = ownDevice(req.deviceId);
      const bad = pushKeysProblem(req.body.keys);
      if (bad) throw new ApiError(400, 'VALIDATION_FAILED', bad);
      const id = await savePushSubscription(pg, deviceId, { endpoint: req.body.endpoint, keys: req.body.keys });
      if (id === null) throw new ApiError(409, 'CONFLICT', 'this push endpoint is registered by another device');
      reply.code(201);
      return { id };
    },
  );

  app.delete<{ Body: UnsubscribeBody }>(
    '/mobile/push-subscriptions',
    {
      config: { access: 'user', device: true },
      schema: {
        operationId: 'deletePushSubscription',
        tags: mobileTags,
        summary: 'Remove one of this device’s push subscriptions',
        body: unsubscribeBody,
        response: { 204: { type: 'null' } },
      },
    },
    async (req, reply) => {
      if (!(await deletePushSubscription(pg, ownDevice(req.deviceId), req.body.endpoint))) throw notFound('push subscription');
      return reply.code(204).send();
    },
  );
};
