// git.test: git ls-remote of the URL and branch (no host).
import { gitTest as lsRemoteTest } from '../git.ts';
import type { ActionHandler } from '../deps.ts';

export const gitTest: ActionHandler<'git.test'> = (deps, job, signal) => lsRemoteTest(deps, job.git_url, job.branch, signal);
