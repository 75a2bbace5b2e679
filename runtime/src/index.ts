export * from './config/config.ts';
export { localStack, localUrls } from './config/local-stack.ts';
export * from './roles.ts';
export { Clients } from './clients/index.ts';
export { createLogger, type Logger } from './logger.ts';
export { Lifecycle } from './lifecycle.ts';
export { registerHealth, type HealthCheck } from './health.ts';
export { VERSION } from './version.ts';
export { metrics, counter, gauge, histogram } from './metrics.ts';
