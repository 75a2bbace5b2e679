// The session actions' steps (issue 34 item 2): each kind over WinRM and through the agent, from nothing
// known to done or failed, with the texts the integration tests assert.
import { describe, expect, it } from 'vitest';
import {
  AGENT_REFUSES_SESSION_0,
  sessionActionOf,
  sessionActionOfJob,
  sessionOf,
  sessionStep,
  type SessionAction,
  type SessionListing,
  type SessionVia,
  type WindowsSession,
} from './sessions.ts';

const WINRM = { transport: 'winrm', endpoint: 'https://win-01:5986/wsman' } as const satisfies SessionVia;
const AGENT: SessionVia = { transport: 'agent' };

const s = (id: number, username: string, session_name = '', state = 'Active'): WindowsSession => ({
  id,
  username,
  session_name,
  state,
  current: false,
});
const SESSIONS = [
  s(0, '', 'services', 'Disc'),
  s(1, 'Administrator', 'console'),
  s(2, 'alice', 'rdp-tcp#12'),
  s(3, 'bob', '', 'Disc'),
];
const listed = (sessions = SESSIONS): SessionListing => ({ ok: true, sessions, raw: 'qwinsta text' });

describe('sessionOf', () => {
  it('compares the account part, case-insensitively', () => {
    expect(sessionOf({ username: 'alice' }, 'CORP\\Alice')).toBe(true);
    expect(sessionOf({ username: 'ALICE' }, 'alice@corp.example')).toBe(true);
    expect(sessionOf({ username: 'alice' }, 'alicia')).toBe(false);
    expect(sessionOf({ username: '' }, 'CORP\\alice')).toBe(false);
  });
});

describe('winrm.sessions', () => {
  const a: SessionAction = { kind: 'winrm.sessions', hostname: 'win-01' };
  it('needs qwinsta, then answers the sessions (the endpoint over WinRM, null through the agent)', () => {
    expect(sessionStep(a, WINRM, { logoffs: [] })).toEqual({ next: 'qwinsta' });
    expect(sessionStep(a, WINRM, { listing: listed(), logoffs: [] })).toEqual({
      next: 'done',
      result: { endpoint: WINRM.endpoint, sessions: SESSIONS, raw: 'qwinsta text' },
    });
    expect(sessionStep(a, AGENT, { listing: listed([]), logoffs: [] })).toEqual({
      next: 'done',
      result: { endpoint: null, sessions: [], raw: 'qwinsta text' },
    });
  });
  it('a failed qwinsta is the reason', () => {
    expect(sessionStep(a, AGENT, { listing: { ok: false, error: 'qwinsta on the agent failed: boom' }, logoffs: [] })).toEqual({
      next: 'failed',
      error: 'qwinsta on the agent failed: boom',
    });
  });
});

describe('winrm.logoff', () => {
  const byId: SessionAction = { kind: 'winrm.logoff', hostname: 'win-01', session_id: 3 };
  const owned = (session_id: number, owner = 'CORP\\bob'): SessionAction => ({
    kind: 'winrm.logoff',
    hostname: 'win-01',
    session_id,
    owner,
  });

  it('without an owner: logs the session off at once, then done', () => {
    for (const via of [WINRM, AGENT]) {
      expect(sessionStep(byId, via, { logoffs: [] })).toEqual({ next: 'logoff', ids: [3] });
      expect(sessionStep(byId, via, { logoffs: [{ id: 3, ok: true }] })).toEqual({
        next: 'done',
        result: { session_id: 3, logged_off: true },
      });
    }
  });
  it("a failed logoff is the runner's reason", () => {
    const error = 'logoff 99 failed with exit code 1: Invalid session identifier 99';
    expect(sessionStep({ ...byId, session_id: 99 }, WINRM, { logoffs: [{ id: 99, ok: false, error }] })).toEqual({
      next: 'failed',
      error,
    });
  });
  it('session 0: over WinRM it is logged off, the agent refuses it', () => {
    const zero: SessionAction = { kind: 'winrm.logoff', hostname: 'win-01', session_id: 0 };
    expect(sessionStep(zero, WINRM, { logoffs: [] })).toEqual({ next: 'logoff', ids: [0] });
    expect(sessionStep(zero, AGENT, { logoffs: [] })).toEqual({ next: 'failed', error: AGENT_REFUSES_SESSION_0 });
    expect(AGENT_REFUSES_SESSION_0).toBe("the host's agent cannot log off session 0 (services)");
  });
  it('an invalid id is refused before anything runs', () => {
    expect(sessionStep({ ...byId, session_id: 70000 }, WINRM, { logoffs: [] })).toEqual({
      next: 'failed',
      error: 'invalid session id 70000',
    });
  });
  it("with an owner: qwinsta first, the logoff only of the owner's session", () => {
    expect(sessionStep(owned(3), WINRM, { logoffs: [] })).toEqual({ next: 'qwinsta' });
    expect(sessionStep(owned(3), AGENT, { listing: listed(), logoffs: [] })).toEqual({ next: 'logoff', ids: [3] });
    expect(sessionStep(owned(3), AGENT, { listing: listed(), logoffs: [{ id: 3, ok: true }] })).toEqual({
      next: 'done',
      result: { session_id: 3, logged_off: true },
    });
  });
  it("owner mismatch: another user's session (the console's) is refused, nothing logged off", () => {
    for (const via of [WINRM, AGENT])
      expect(sessionStep(owned(1), via, { listing: listed(), logoffs: [] })).toEqual({
        next: 'failed',
        error: "session 1 is not a session of the event's user CORP\\bob",
      });
  });
  it('with an owner: no such session', () => {
    expect(sessionStep(owned(7), WINRM, { listing: listed(), logoffs: [] })).toEqual({
      next: 'failed',
      error: 'no session 7 on win-01',
    });
  });
  it("with an owner, session 0 of the owner: over WinRM logged off, the agent's refusal", () => {
    const listing = listed([s(0, 'bob', 'services', 'Disc')]);
    expect(sessionStep(owned(0), WINRM, { listing, logoffs: [] })).toEqual({ next: 'logoff', ids: [0] });
    expect(sessionStep(owned(0), AGENT, { listing, logoffs: [] })).toEqual({ next: 'failed', error: AGENT_REFUSES_SESSION_0 });
  });
  it('a failed qwinsta is the reason', () => {
    expect(
      sessionStep(owned(3), WINRM, { listing: { ok: false, error: 'qwinsta failed with exit code 5' }, logoffs: [] }),
    ).toEqual({
      next: 'failed',
      error: 'qwinsta failed with exit code 5',
    });
  });
});

describe('winrm.logoff_user', () => {
  const a: SessionAction = { kind: 'winrm.logoff_user', hostname: 'win-01', user: 'CORP\\bob' };
  const twoOfBob = [...SESSIONS, s(4, 'Bob', 'rdp-tcp#13')];

  it('needs qwinsta, then logs off every session of the user at once, then done with those sessions', () => {
    expect(sessionStep(a, AGENT, { logoffs: [] })).toEqual({ next: 'qwinsta' });
    expect(sessionStep(a, WINRM, { listing: listed(twoOfBob), logoffs: [] })).toEqual({ next: 'logoff', ids: [3, 4] });
    expect(
      sessionStep(a, WINRM, {
        listing: listed(twoOfBob),
        logoffs: [
          { id: 3, ok: true },
          { id: 4, ok: true },
        ],
      }),
    ).toEqual({
      next: 'done',
      result: {
        user: 'CORP\\bob',
        logged_off: [
          { id: 3, session_name: '', state: 'Disc' },
          { id: 4, session_name: 'rdp-tcp#13', state: 'Active' },
        ],
      },
    });
  });
  it('no session of the user', () => {
    for (const via of [WINRM, AGENT])
      expect(sessionStep({ ...a, user: 'CORP\\alice' }, via, { listing: listed([s(1, 'Administrator')]), logoffs: [] })).toEqual({
        next: 'failed',
        error: 'no session of user CORP\\alice on win-01',
      });
  });
  it('every id is checked before the first logoff: session 0 through the agent, an invalid id over WinRM', () => {
    const withZero = listed([s(0, 'bob', 'services', 'Disc'), s(3, 'bob')]);
    expect(sessionStep(a, AGENT, { listing: withZero, logoffs: [] })).toEqual({
      next: 'failed',
      error: 'qwinsta listed a session id the agent cannot log off (0); nothing was logged off',
    });
    expect(sessionStep(a, WINRM, { listing: withZero, logoffs: [] })).toEqual({ next: 'logoff', ids: [0, 3] });
    const odd = listed([s(3, 'bob'), s(70000, 'bob')]);
    expect(sessionStep(a, WINRM, { listing: odd, logoffs: [] })).toEqual({
      next: 'failed',
      error: 'qwinsta listed an invalid session id 70000; nothing was logged off',
    });
  });
  it('a failed logoff: each reason, and the sessions logged off so far', () => {
    expect(
      sessionStep(a, AGENT, {
        listing: listed(twoOfBob),
        logoffs: [
          { id: 3, ok: false, error: 'logoff 3 on the agent failed: denied' },
          { id: 4, ok: true },
        ],
      }),
    ).toEqual({
      next: 'failed',
      error: 'logoff 3 on the agent failed: denied',
      result: { user: 'CORP\\bob', logged_off: [{ id: 4, session_name: 'rdp-tcp#13', state: 'Active' }] },
    });
    expect(
      sessionStep(a, AGENT, {
        listing: listed(twoOfBob),
        logoffs: [
          { id: 3, ok: false, error: 'logoff 3 on the agent failed: a' },
          { id: 4, ok: false, error: 'logoff 4 on the agent failed: b' },
        ],
      }),
    ).toMatchObject({ next: 'failed', error: 'logoff 3 on the agent failed: a; logoff 4 on the agent failed: b' });
  });
});

describe('sessionActionOf / sessionActionOfJob', () => {
  const target = { host_id: 1, hostname: 'win-01', address: '10.0.0.5', os_family: 'windows' };
  const job = { action_id: 1, deadline: '2030-01-01T00:00:00Z', target };
  it('reads a job', () => {
    expect(sessionActionOfJob({ ...job, kind: 'winrm.sessions' })).toEqual({ kind: 'winrm.sessions', hostname: 'win-01' });
    expect(sessionActionOfJob({ ...job, kind: 'winrm.logoff', session_id: 3, owner: 'bob' })).toEqual({
      kind: 'winrm.logoff',
      hostname: 'win-01',
      session_id: 3,
      owner: 'bob',
    });
    expect(sessionActionOfJob({ ...job, kind: 'winrm.logoff_user', user: 'bob' })).toEqual({
      kind: 'winrm.logoff_user',
      hostname: 'win-01',
      user: 'bob',
    });
  });
  it("reads an action record's params (the address beside them), and nothing of another kind", () => {
    expect(sessionActionOf('winrm.logoff', { session_id: 3, address: '10.0.0.5' }, 'win-01')).toEqual({
      kind: 'winrm.logoff',
      hostname: 'win-01',
      session_id: 3,
    });
    expect(sessionActionOf('winrm.logoff', { session_id: 3, owner: 'CORP\\bob' }, 'win-01')).toMatchObject({
      owner: 'CORP\\bob',
    });
    expect(sessionActionOf('winrm.logoff_user', { user: 'CORP\\bob' }, 'win-01')).toEqual({
      kind: 'winrm.logoff_user',
      hostname: 'win-01',
      user: 'CORP\\bob',
    });
    expect(sessionActionOf('ssh.check', {}, 'lnx-01')).toBeNull();
  });
});
