// The composition root: one image, a role chosen at start (`node ops/src/start.ts <role>`, or SERVICE_ROLE).
// Shutdown order: stop HTTP intake, close roles (consumers drain, producers flush), close clients. Each
// step is registered as soon as its part exists, so a stop during start-up closes what already runs.
import Fastify, { LogController } from 'fastify';
import {
  Clients,
  ConfigError,
  Lifecycle,
  SERVICE_ROLES,
  VERSION,
  createLogger,
  loadConfig,
  metrics,
  registerHealth,
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
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const log = createLogger(config.logLevel, 'watchpost');
  log.info({ version: VERSION, role: config.role }, 'starting');
  const lifecycle = new Lifecycle(log);
  lifecycle.handleSignals();
  opts.releaseEarly();
  if (opts.earlySignals[0]) lifecycle.stop(opts.earlySignals[0]);
  const clients = new Clients(config);
  // A role that cannot recover ends the process (exit 1 after the ordered shutdown): the supervisor restarts it.
  const fatal = (reason: string, err?: unknown) => {
    log.fatal({ err, reason }, 'unrecoverable; exiting so that the supervisor restarts the process');
    lifecycle.stop(`fatal: ${reason}`, 1);
  };

  // Every process serves /health and /metrics; ingest and api also mount their routes here.
  const app = Fastify({
    loggerInstance: log as import('fastify').FastifyBaseLogger,
    // Each role logs one line per outcome itself; fastify's two lines per request would double the cost at ingest rates.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.ingest.maxBodyBytes,
    trustProxy: trustProxyOption(config.trustProxy),
  });
  lifecycle.onClose('http', () => app.close());

  const names = config.role === 'all' ? SERVICE_ROLES : [config.role];
  const handles: RoleHandle[] = [];
  for (const name of names) {
    const starter = await roleStarters[name]();
    const handle = await starter({ config, log: log.child({ role: name }), clients, fatal });
    handles.push(handle);
    if (handle.close) lifecycle.onClose(name, handle.close);
  }
  registerHealth(
    app,
    `watchpost-${config.role}`,
    Object.fromEntries(handles.flatMap((h) => Object.entries(h.checks ?? {}))),
    Object.fromEntries(handles.flatMap((h) => Object.entries(h.ready ?? {}))),
  );
  app.get('/metrics', async (_req, reply) => reply.type(metrics.contentType).send(await metrics.metrics()));
  for (const h of handles) if (h.routes) await app.register(h.routes);
  lifecycle.onClose('clients', () => clients.close());
  await app.listen({ host: config.host, port: config.port });
}
