// GET /stream/events: server-sent events for the live dashboard counters. One Redis subscriber per
// API process (LiveHub) fans the `live.v1` channel out to every connected client. EventSource cannot
// send headers, so this route (only) also accepts the access token as `?access_token=`.
// Streams are capped per user (SERVICE_STREAM_MAX_PER_USER: 429 TOO_MANY_STREAMS beyond it) and per
// mobile device (SERVICE_STREAM_MAX_PER_DEVICE: its oldest stream ends to make room), counted in this
// API process: with several API processes behind a balancer each one applies the caps.
import type { FastifyPluginAsync } from 'fastify';
import { LiveHub } from '../stream/hub.ts';
import { ApiError } from '../errors.ts';
import { authenticateToken, requestToken } from '../access.ts';
import { verifyAccessToken } from '../auth/jwt.ts';

/** How often an open stream re-checks its token's session and user. */
export const SESSION_RECHECK_MS = 5000;

const streamRoutes: FastifyPluginAsync = async (app) => {
  const { redis, config } = app.deps;
  const { maxStreamsPerUser, maxStreamsPerDevice } = config.auth;
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
      config: { access: 'user', sseToken: true, device: true },
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
          '`new EventSource("/api/v1/stream/events?access_token=<JWT>")`; the Authorization header works too. ' +
          `At most SERVICE_STREAM_MAX_PER_USER (${maxStreamsPerUser}) streams per user at once on one API process (429 ` +
          `TOO_MANY_STREAMS beyond it); a mobile device holds at most SERVICE_STREAM_MAX_PER_DEVICE (${maxStreamsPerDevice}): ` +
          'a new one ends its oldest.',
        querystring: {
          type: 'object',
          properties: { access_token: { type: 'string', description: 'access JWT (EventSource cannot send headers)' } },
        },
        response: {
          200: { description: 'an endless text/event-stream', type: 'string' },
          429: { description: 'TOO_MANY_STREAMS: the user holds SERVICE_STREAM_MAX_PER_USER streams already' },
        },
      },
    },
    async (req, reply) => {
      await hub.start();
      // From here to hub.add nothing awaits: the count checked is the count added to.
      const owner = { userId: req.user!.id, deviceId: req.deviceId };
      const ending =
        owner.deviceId === null ? 0 : Math.max(0, hub.countOf({ deviceId: owner.deviceId }) - maxStreamsPerDevice + 1);
      if (hub.countOf({ userId: owner.userId }) - ending >= maxStreamsPerUser)
        throw new ApiError(
          429,
          'TOO_MANY_STREAMS',
          `at most ${maxStreamsPerUser} live streams per user at once; close another tab, window or app first`,
          { scope: 'user', limit: maxStreamsPerUser },
        );
      if (owner.deviceId !== null) hub.endOldestOf(owner.deviceId, maxStreamsPerDevice);
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
      hub.add(res, owner);
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
