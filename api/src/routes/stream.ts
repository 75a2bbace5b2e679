// GET /stream/events: server-sent events for the live dashboard counters. One Redis subscriber per
// API process (LiveHub) fans the `live.v1` channel out to every connected client. EventSource cannot
// send headers, so this route (only) also accepts the access token as `?access_token=`.
import type { FastifyPluginAsync } from 'fastify';
import { LiveHub } from '../stream/hub.ts';
import { authenticateToken, requestToken } from '../access.ts';
import { verifyAccessToken } from '../auth/jwt.ts';

/** How often an open stream re-checks its token's session and user. */
export const SESSION_RECHECK_MS = 5000;

const streamRoutes: FastifyPluginAsync = async (app) => {
  const { redis, config } = app.deps;
  const hub = new LiveHub({
    makeSubscriber: () => redis.duplicate(),
    channel: config.stream.channel,
    keepAliveMs: config.stream.keepAliveSeconds * 1000,
  });
  // SSE responses never end by themselves: end them before the server waits for open connections.
  app.addHook('preClose', async () => {
    await hub.close();
  });

  app.get(
    '/stream/events',
    {
      config: { access: 'user', sseToken: true },
      schema: {
        operationId: 'streamEvents',
        tags: ['stream'],
        summary: 'Live dashboard counters (server-sent events)',
        description:
          'text/event-stream. Frames: `event: ready` once at connect (data {"keepalive_seconds"}), then `event: events` ' +
          '(data {"kind":"events","at","total","severity":{info,warning,high,critical},"daily_reports","heartbeats"}: ' +
          'increments per ingested batch), `event: problems` (data {"kind":"problems","action":"opened|reopened|acknowledged|resolved","problem":{...}}) ' +
          'and `event: hosts` (data {"kind":"hosts","hostname","status":"online|stale|removed","previous","counts":{total,online,stale}}). ' +
          'A comment line `: keep-alive` every SERVICE_STREAM_KEEPALIVE_SECONDS (15). Browsers authenticate with ' +
          '`new EventSource("/api/v1/stream/events?access_token=<JWT>")`; the Authorization header works too.',
        querystring: {
          type: 'object',
          properties: { access_token: { type: 'string', description: 'access JWT (EventSource cannot send headers)' } },
        },
        response: { 200: { description: 'an endless text/event-stream', type: 'string' } },
      },
    },
    async (req, reply) => {
      await hub.start();
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(`retry: 3000\nevent: ready\ndata: ${JSON.stringify({ keepalive_seconds: config.stream.keepAliveSeconds })}\n\n`);
      req.raw.socket.setNoDelay(true);
      req.raw.socket.setTimeout(0);
      hub.add(res);
      // The stream lives only as long as its token and session: closed at expiry, and within
      // SESSION_RECHECK_MS of a logout, a deactivation or a password or role change.
      const token = requestToken(req)!;
      const claims = await verifyAccessToken(app.deps.auth.jwtSecret, token);
      const end = () => {
        clearTimeout(expiry);
        clearInterval(recheck);
        res.end();
      };
      const expiry = setTimeout(end, Math.max(0, (claims?.expiresAt?.getTime() ?? 0) - Date.now()));
      const recheck = setInterval(() => {
        authenticateToken(app.deps, token).then(
          (user) => {
            if (!user) end();
          },
          () => {}, // a store outage does not end streams; the next check decides
        );
      }, SESSION_RECHECK_MS);
      expiry.unref();
      recheck.unref();
      res.on('close', () => {
        clearTimeout(expiry);
        clearInterval(recheck);
      });
    },
  );
};

export default streamRoutes;
