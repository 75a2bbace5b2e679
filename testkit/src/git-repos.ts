// Local bare git repositories for agent-update and version-reference tests (file:// URLs).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestGitRepo {
  /** file:// URL of the bare repository */
  url: string;
  bare: string;
  /** Commits the files (path -> content; `mode` 0755 for executables) on `branch` and tags the commit when `tag` is given. */
  commit(files: Record<string, string | { content: string; mode: number }>, opts?: { tag?: string; branch?: string }): void;
  close(): void;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'test',
      GIT_AUTHOR_EMAIL: 'test@example.invalid',
      GIT_COMMITTER_NAME: 'test',
      GIT_COMMITTER_EMAIL: 'test@example.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });

export function createTestGitRepo(): TestGitRepo {
  const dir = mkdtempSync(join(tmpdir(), 'watchpost-git-'));
  const bare = join(dir, 'agent.git');
  const work = join(dir, 'work');
  git(dir, 'init', '-q', '--bare', '-b', 'main', bare);
  git(dir, 'init', '-q', '-b', 'main', work);
  return {
    url: `file://${bare}`,
    bare,
    commit(files, opts = {}) {
      const branch = opts.branch ?? 'main';
      const branches = git(work, 'branch', '--list', branch).trim();
      const hasCommits = git(work, 'rev-list', '--all', '--count').trim() !== '0';
      if (hasCommits) git(work, 'checkout', '-q', ...(branches ? [branch] : ['-b', branch]));
      else if (branch !== 'main') git(work, 'checkout', '-q', '-b', branch);
      for (const [path, f] of Object.entries(files)) {
        const file = join(work, path);
        writeFileSync(file, typeof f === 'string' ? f : f.content);
        if (typeof f !== 'string') chmodSync(file, f.mode);
      }
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', `commit ${opts.tag ?? ''}`);
      if (opts.tag) git(work, 'tag', opts.tag);
      git(work, 'push', '-q', '--tags', bare, branch);
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
