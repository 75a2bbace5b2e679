// The composition root: one image, a role chosen at start (`node ops/src/start.ts <role>`, or SERVICE_ROLE).
// Shutdown order: stop HTTP intake, close roles (consumers drain, producers flush), close clients. Each
// step is registered as soon as its part exists, so a stop during start-up closes what already runs.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { channelDefaults } from '@watchpost/core/notify';
import { checkConfiguredSecrets } from '@watchpost/core/secrets';
import {
  Clients,
  ConfigError,
  applyHeapSettings,
  Lifecycle,
  SERVICE_ROLES,
  VERSION,
  bearerToken,
  createLogger,
  errorBody,
  loadConfig,
  metrics,
  registerHealth,
  startupWarnings,
  trustProxyOption,
  type RoleHandle,
} from '@watchpost/runtime';
import { roleStarters } from './role-registry.ts';

export interface LaunchOptions {
  /** Signals that arrived before the launcher was loaded: acted on as soon as shutdown can run. */
  earlySignals: NodeJS.Signals[];
  /** Removes the entry point's early handlers once the lifecycle's own are in place. */
  releaseEarly: () => void;
}

export async function launch(role: string | undefined, opts: LaunchOptions): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env, role);
    checkConfiguredSecrets(config);
    applyHeapSettings({ externalInGlobalLimit: config.gcExternalInGlobalLimit });
    // Each channel reads its own variables: a bad one stops the start here, like any other setting.
    channelDefaults(config.notify);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const log = createLogger(config.logLevel, 'watchpost');
  log.info({ version: VERSION, role: config.role }, 'starting');
  for (const w of startupWarnings(config)) log.warn(w);
  const lifecycle = new Lifecycle(log);
  lifecycle.handleSignals();
  opts.releaseEarly();
  if (opts.earlySignals[0]) lifecycle.stop(opts.earlySignals[0]);
  const clients = new Clients(config);

  // Every process serves /health and /metrics; ingest and api also mount their routes here.
  const app = Fastify({
    loggerInstance: log as import('fastify').FastifyBaseLogger,
    // Each role logs one line per outcome itself; fastify's two lines per request would double the cost at ingest rates.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.ingest.maxBodyBytes,
    trustProxy: trustProxyOption(config.trustProxy),
  });
  lifecycle.onClose('http', () => app.close());

  // /metrics on the main listener, or on its own (METRICS_HOST/METRICS_PORT, e.g. an internal
  // interface only); with METRICS_TOKEN it asks for that bearer token wherever it is served.
  const digest = (v: string) => createHash('sha256').update(v).digest();
  const wanted = config.metrics.token === undefined ? undefined : digest(config.metrics.token);
  const metricsRoute = async (req: FastifyRequest, reply: FastifyReply) => {
    if (wanted) {
      const given = bearerToken(req.headers.authorization);
      if (given === undefined || !timingSafeEqual(digest(given), wanted))
        return reply.code(401).header('www-authenticate', 'Bearer').send(errorBody('UNAUTHORIZED', 'METRICS_TOKEN required'));
    }
    return reply.type(metrics.contentType).send(await metrics.metrics());
  };
  let metricsApp: typeof app | undefined;
  if (config.metrics.port !== undefined) {
    metricsApp = Fastify({
      loggerInstance: log as import('fastify').FastifyBaseLogger,
      logController: new LogController({ disableRequestLogging: true }),
    });
    metricsApp.get('/metrics', metricsRoute);
    lifecycle.onClose('metrics', () => metricsApp!.close());
  } else app.get('/metrics', metricsRoute);

  const names = config.role === 'all' ? SERVICE_ROLES : [config.role];
  const handles: RoleHandle[] = [];
  for (const name of names) {
    const starter = await roleStarters[name]();
    const handle = await starter({ config, log: log.child({ role: name }), clients });
    handles.push(handle);
    if (handle.close) lifecycle.onClose(name, handle.close);
  }
  registerHealth(
    app,
    `watchpost-${config.role}`,
    Object.fromEntries(handles.flatMap((h) => Object.entries(h.checks ?? {}))),
    Object.fromEntries(handles.flatMap((h) => Object.entries(h.ready ?? {}))),
  );
  for (const h of handles) if (h.routes) await app.register(h.routes);
  lifecycle.onClose('clients', () => clients.close());
  if (metricsApp) await metricsApp.listen({ host: config.metrics.host, port: config.metrics.port });
  await app.listen({ host: config.host, port: config.port });
}
