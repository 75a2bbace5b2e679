// A periodic job of the scheduler role (BullMQ job scheduler on the `scheduler` queue, one run cluster-wide
// per interval). The role folder whose work it is declares it and exports it from its index; the package
// entry (processors/src/index.ts) hands the declarations to the scheduler, which imports no other role.
import type { Job } from 'bullmq';
import type { RoleContext } from '@watchpost/runtime';

export interface ScheduledJob {
  /** Job scheduler id and job name (SCHEDULED_JOBS in schemas). */
  name: string;
  everyMs(ctx: RoleContext): number;
  run(ctx: RoleContext, job: Job): Promise<unknown>;
}
