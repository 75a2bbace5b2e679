// Remote actions from an event (its user, its host, a gateway event's internal host):
// POST /events/{event_id}/actions/<path>, one route per descriptor route that hangs under an event.
import type { FastifyPluginAsync } from 'fastify';
import { mountActionRoutes } from './mount.ts';

const eventActionsRoutes: FastifyPluginAsync = async (app) => {
  mountActionRoutes(app, 'event');
};

export default eventActionsRoutes;
