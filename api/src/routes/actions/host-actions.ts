// Remote actions on a managed host: POST /hosts/{id}/actions/<path>, one route per descriptor route
// that hangs under a host (core/src/actions/kinds/).
import type { FastifyPluginAsync } from 'fastify';
import { mountActionRoutes } from './mount.ts';

const hostActionsRoutes: FastifyPluginAsync = async (app) => {
  mountActionRoutes(app, 'host');
};

export default hostActionsRoutes;
