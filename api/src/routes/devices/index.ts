// Mobile devices (api/MOBILE.md). Admins issue enrollment codes and list, revoke and delete devices
// (admin.ts); a device enrolls with a code (public, rate-limited like the login: enroll.ts) and gets a
// session of its own: a refresh-token family bound to the device, so its access tokens are re-checked on
// every request like a user's and carry its user's role. A device then uses the ordinary read routes
// (events, problems, dashboard; tag `mobile`), POST /auth/refresh with its refresh token, and registers
// Web Push subscriptions (mobile.ts). Schemas and body types: schemas.ts.
import type { FastifyPluginAsync } from 'fastify';
import { deviceAdminRoutes } from './admin.ts';
import { enrollRoutes } from './enroll.ts';
import { mobileDeviceRoutes } from './mobile.ts';

// In this order (the OpenAPI document lists the routes as they are added), in this plugin's context.
const devicesRoutes: FastifyPluginAsync = async (app, opts) => {
  await deviceAdminRoutes(app, opts);
  await enrollRoutes(app, opts);
  await mobileDeviceRoutes(app, opts);
};

export default devicesRoutes;
