// Which address of a registered host remote actions connect to, shared by the API (which builds the job)
// and the actions worker (automatic update fallback).
import type { ActionTarget } from '@watchpost/schemas';
import { validHostAddress } from './validate.ts';

export interface HostAddressing {
  id: number;
  hostname: string;
  os_family: string;
  fqdn: string | null;
  ipv4: string | null;
  internal_address: string | null;
}

/** The internal address first (what gateway sessions name), then FQDN, IPv4, hostname; the first valid one. */
export function connectAddress(h: Pick<HostAddressing, 'internal_address' | 'fqdn' | 'ipv4' | 'hostname'>): string | null {
  for (const a of [h.internal_address, h.fqdn, h.ipv4, h.hostname]) {
    const ok = a ? validHostAddress(a) : null;
    if (ok) return ok;
  }
  return null;
}

/** The job target of a host, or null when it has no usable address. */
export function actionTarget(h: HostAddressing): ActionTarget | null {
  const address = connectAddress(h);
  return address ? { host_id: Number(h.id), hostname: h.hostname, address, os_family: h.os_family } : null;
}
