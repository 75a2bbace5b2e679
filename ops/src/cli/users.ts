// `cli users ...`: the same functions and rules as the API's users routes, on the same database.
import type { Pool } from '@watchpost/runtime';
import { audit } from '@watchpost/core/audit';
import {
  createUser,
  getUserByName,
  listUsers,
  normalizeUsername,
  removeTotp,
  removeUserKeepingAnAdmin,
  resetPassword,
  updateUserKeepingAnAdmin,
  LastAdminError,
  PASSWORD_MIN_LENGTH,
  USER_ROLES,
  type UserRole,
} from '@watchpost/core/users';
import { readSecret, RefusedError, UsageError } from './io.ts';

const actor = 'cli';

function parseRole(v: string | undefined): UserRole {
  if (!v || !(USER_ROLES as readonly string[]).includes(v))
    throw new UsageError(`--role must be one of ${USER_ROLES.join(', ')}`);
  return v as UserRole;
}

async function readPassword(): Promise<string> {
  const pw = await readSecret('Password: ');
  if (pw.length < PASSWORD_MIN_LENGTH)
    throw new UsageError(`the password must have at least ${PASSWORD_MIN_LENGTH} characters (read from stdin)`);
  return pw;
}

async function requireUser(pool: Pool, name: string | undefined) {
  if (!name) throw new UsageError('missing <username>');
  const u = await getUserByName(pool, name);
  if (!u) throw new RefusedError(`no user "${normalizeUsername(name)}"`);
  return u;
}

/** Role and active changes refuse to leave no active admin (core's rule, as in the API). */
async function changeUser(pool: Pool, id: number, patch: { role?: UserRole; active?: boolean }) {
  try {
    return (await updateUserKeepingAnAdmin(pool, id, patch))!;
  } catch (err) {
    if (err instanceof LastAdminError) throw new RefusedError(`refused: ${err.message}`);
    throw err;
  }
}

export async function usersCommand(pool: Pool, args: string[], opts: { role?: string }, out: (s: string) => void): Promise<void> {
  const [sub, name, extra] = args;
  switch (sub) {
    case 'add': {
      if (!name) throw new UsageError('usage: users add <username> --role admin|monitor  (password on stdin)');
      const role = parseRole(opts.role);
      const password = await readPassword();
      const u = await createUser(pool, { username: name, password, role });
      await audit(pool, { actor, address: null, action: 'user.create', target: u.username, details: { role } });
      out(`created user ${u.username} (id ${u.id}, role ${u.role})`);
      return;
    }
    case 'list': {
      const users = await listUsers(pool);
      out(['ID', 'USERNAME', 'ROLE', 'ACTIVE', 'TOTP', 'CREATED'].join('\t'));
      for (const u of users)
        out(
          [u.id, u.username, u.role, u.active ? 'yes' : 'no', u.totpEnabled ? 'yes' : 'no', u.createdAt.toISOString()].join('\t'),
        );
      return;
    }
    case 'set-role': {
      const u = await requireUser(pool, name);
      const role = parseRole(opts.role ?? extra);
      await changeUser(pool, u.id, { role });
      await audit(pool, { actor, address: null, action: 'user.update', target: u.username, details: { role } });
      out(`user ${u.username} now has role ${role}`);
      return;
    }
    case 'deactivate':
    case 'activate': {
      const u = await requireUser(pool, name);
      const active = sub === 'activate';
      await changeUser(pool, u.id, { active });
      await audit(pool, { actor, address: null, action: 'user.update', target: u.username, details: { active } });
      out(`user ${u.username} ${active ? 'activated' : 'deactivated'}`);
      return;
    }
    case 'reset-password': {
      const u = await requireUser(pool, name);
      const password = await readPassword();
      await resetPassword(pool, u.id, password);
      await audit(pool, { actor, address: null, action: 'user.password_reset', target: u.username });
      out(`password of ${u.username} changed; its existing sessions are ended`);
      return;
    }
    case 'reset-totp': {
      // The way back for the last admin locked out of their second factor (the API's reset needs another admin).
      const u = await requireUser(pool, name);
      if (!(await removeTotp(pool, u.id))) throw new RefusedError(`user ${u.username} has no second factor`);
      await audit(pool, { actor, address: null, action: 'user.totp_reset', target: u.username });
      out(`second factor of ${u.username} removed: it logs in with its password and may enrol again`);
      return;
    }
    case 'remove': {
      const u = await requireUser(pool, name);
      let removed;
      try {
        removed = await removeUserKeepingAnAdmin(pool, u.id);
      } catch (err) {
        if (err instanceof LastAdminError) throw new RefusedError('refused: the last active admin cannot be removed');
        throw err;
      }
      if (!removed) throw new RefusedError(`no user "${u.username}"`);
      const { sessions, devices } = removed;
      await audit(pool, {
        actor,
        address: null,
        action: 'user.remove',
        target: u.username,
        details: { role: u.role, active: u.active, sessions, devices },
      });
      out(`removed user ${u.username}: ${sessions} session(s) ended, ${devices} device(s) removed; the audit log keeps the name`);
      return;
    }
    default:
      throw new UsageError(`unknown users command "${sub ?? ''}"`);
  }
}
