// What the processors package offers: its roles (started by ops' launcher) and the few building
// blocks the test kit drives directly (storing and correlating fixture events, the hourly rollup).
// The role folders import none of each other (.dependency-cruiser.cjs): they are put together here.
import type { RoleStarter } from '@watchpost/runtime';
import { livenessScanJob } from './correlate/index.ts';
import { eventsRollupJob } from './store/index.ts';
import { dailyReportJob } from './reports/index.ts';
import { schedulerRoleWith } from './scheduler/index.ts';

export { storeRole } from './store/index.ts';
export { correlateRole } from './correlate/index.ts';
export { streamRole } from './stream/index.ts';

/** The scheduler role with the periodic jobs their owners declare (it adds retention and the requeue sweep). */
export const schedulerRole: RoleStarter = schedulerRoleWith([livenessScanJob, eventsRollupJob, dailyReportJob]);

export { envelopeToRow } from './store/rows.ts';
export { insertEventRows } from './store/insert.ts';
export { ROLLUP_OVERLAP_SECONDS, runHourlyRollup } from './store/rollup.ts';
export { dropExpiredEventPartitions } from './store/retention.ts';
export { dailyFigures } from './reports/daily.ts';
export { processBatch, type CorrelateSettings } from './correlate/processor.ts';
export { runLivenessScan } from './correlate/liveness.ts';
export type { CorrelateEnvelope, CorrelateEvent } from './correlate/rules.ts';
export { countEvents } from './stream/messages.ts';
export { actionsRole, advanceAgentActions, runActionJob } from './actions/index.ts';
export { runUpdateFallback } from './actions/fallback.ts';
export { notifyRole } from './notify/index.ts';
export { deliverRole, deliverJob } from './deliver/index.ts';
