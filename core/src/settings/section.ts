// A settings section: one feature's settings said once (Vector's sinks/<name>/config.rs, Uptime Kuma's
// notification providers): the JSON Schema of its PUT body (the API's body and, through FromSchema, the
// type) and of its view (the GET answer), the stored form (the `settings` row, secrets encrypted), the
// environment defaults a saved value overrides, the masked view and the next stored value. Secrets are
// write-only: stored encrypted (../actions/secrets.ts), shown only as whether they are set, logged in the
// audit only as "set" or "removed". The remote-access sections (../actions/settings/) are mounted by one
// generic API plugin (api/src/routes/settings/mount.ts); a notification channel's descriptor
// (../notify/channels/descriptor.ts) extends the settings part with its delivery.
import type { Config } from '@watchpost/runtime';
import { decryptSecret, encryptSecret } from '../actions/secrets.ts';

/** A feature's secrets at rest: encrypted with the service's secrets key, bound to their setting (and field). */
export interface Crypt {
  encrypt(field: string, plain: string): string;
  decrypt(field: string, stored: string): string;
}

/** The types a feature's settings are made of. */
export interface SettingsTypes {
  /** PUT body (derived from `bodySchema`): fields left out keep their value, null removes a value. */
  body: object;
  /** The settings row's value. */
  stored: object;
  /** The environment's defaults (a saved value overrides each). */
  defaults: object;
  /** What the API shows: secrets only as whether they are set. */
  view: object;
}

/** What every feature's settings have: the body, its secrets and how the audit log keeps it, the view and the save. */
export interface SettingsPart<T extends SettingsTypes> {
  /** JSON Schema of the settings body, as the API validates it (OpenAPI). */
  readonly bodySchema: object;
  /** Write-only body fields: stored encrypted, never shown; the audit log says only "set" or "removed". */
  readonly secrets: readonly (keyof T['body'] & string)[];
  /** Other body fields that may carry a secret, as the audit log keeps them. */
  readonly audited?: { readonly [K in keyof T['body']]?: (value: NonNullable<T['body'][K]>) => unknown };
  view(stored: T['stored'], defaults: T['defaults']): T['view'];
  /** The next stored value; throws (SettingRefused in a section) with a readable message on an invalid body. */
  save(stored: T['stored'], body: T['body'], defaults: T['defaults'], crypt: Crypt): T['stored'];
}

/** The configuration a section's environment defaults come from (widen the pick when a section needs more). */
export type SectionEnv = Pick<Config, 'actions'>;

/** One settings section: GET and PUT /settings/<path>, admin only, stored in the `settings` row `key`. */
export interface SettingsSection<T extends SettingsTypes> extends SettingsPart<T> {
  /** The API path under /settings/ (GET answers the view, PUT takes the body and answers the view). */
  readonly path: string;
  /** The `settings` row. */
  readonly key: string;
  /** JSON Schema of the view (the GET and PUT answer; OpenAPI). */
  readonly viewSchema: object;
  readonly get: { readonly summary: string };
  readonly put: { readonly summary: string; readonly description?: string };
  /** The audit log's action of a save. */
  readonly auditAction: string;
  /** A secret left out of the body is logged as "unchanged" (true), or not at all (the channels). */
  readonly auditUnchangedSecrets?: boolean;
  /** What a secret's ciphertext is bound to (AES-GCM associated data); unset: `<key>:<field>`. */
  secretAad?(field: string): string;
  defaults(env: SectionEnv): T['defaults'];
}

/** A section with its types erased: what the generic store and mount handle (bodies validated by `bodySchema`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySettingsSection = SettingsSection<any>;

/** A body the section refuses beyond its schema (the API answers 400 VALIDATION_FAILED with the message). */
export class SettingRefused extends Error {
  override name = 'SettingRefused';
}

/** The stored form of a body: secret fields as their ciphertext (`<field>_enc`), no nulls. */
export type StoredOf<Body, Secret extends keyof Body = never> = {
  [K in keyof Pick<Body, Exclude<keyof Body, Secret>>]: Exclude<Body[K], null>;
} & { [K in Secret as `${K & string}_enc`]?: string };

/** Sets `field` to `v`; null deletes it (its default applies again); undefined leaves it. */
export function setOrDrop<T extends object, K extends keyof T>(obj: T, field: K, v: T[K] | null | undefined): void {
  if (v === null) delete obj[field];
  else if (v !== undefined) obj[field] = v;
}

/** Sets the secret `<field>_enc` from a body value: null removes it, undefined leaves it. */
export function setSecret(obj: object, field: string, v: string | null | undefined, crypt: Crypt): void {
  const stored = obj as Record<string, unknown>;
  if (v === null) delete stored[`${field}_enc`];
  else if (v !== undefined) stored[`${field}_enc`] = crypt.encrypt(field, v);
}

/**
 * The next stored value of a save, as every section and channel makes it: a copy of `stored` with each of
 * `fields` as the body says (setOrDrop) and each of the part's declared `secrets` encrypted (setSecret), so
 * that the list the audit log masks is the list that is encrypted. A save with more to it (a check before,
 * a secret tied to another field after) does that around this.
 */
export function nextStored<S extends object, B extends object>(
  part: { readonly secrets: readonly (keyof B & string)[] },
  stored: S,
  body: B,
  fields: readonly (keyof B & keyof S & string)[],
  crypt: Crypt,
): S {
  const next = { ...stored };
  const given = body as Record<string, unknown>;
  for (const f of fields) setOrDrop(next as Record<string, unknown>, f, given[f]);
  for (const f of part.secrets) setSecret(next, f, given[f] as string | null | undefined, crypt);
  return next;
}

/** Secrets bound to their place (`aad(field)`): a ciphertext moved to another setting or field does not decrypt. */
export function settingsCrypt(secretsKey: Buffer, aad: (field: string) => string): Crypt {
  return {
    encrypt: (field, plain) => encryptSecret(secretsKey, plain, aad(field)),
    decrypt: (field, stored) => decryptSecret(secretsKey, stored, aad(field)),
  };
}

/** A section's crypt: its secrets bound to `secretAad(field)`, else to `<key>:<field>`. */
export function sectionCrypt(section: AnySettingsSection, secretsKey: Buffer): Crypt {
  return settingsCrypt(secretsKey, (field) => section.secretAad?.(field) ?? `${section.key}:${field}`);
}

/** A crypt for a section without secrets: using it is a bug. */
export const NO_SECRETS: Crypt = {
  encrypt: () => {
    throw new Error('this setting has no secrets');
  },
  decrypt: () => {
    throw new Error('this setting has no secrets');
  },
};

/**
 * A settings body as the audit log keeps it: secrets only as "set" or "removed" (and "unchanged" when
 * left out, if `unchangedSecrets`), the `audited` fields as their function keeps them, the rest as given.
 */
export function auditableInput(
  part: { readonly secrets: readonly string[]; readonly audited?: object },
  input: object,
  unchangedSecrets = false,
): Record<string, unknown> {
  const secrets: readonly string[] = part.secrets;
  const audited = (part.audited ?? {}) as Record<string, ((v: unknown) => unknown) | undefined>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    const f = audited[k];
    if (secrets.includes(k)) out[k] = v === undefined ? 'unchanged' : v === null ? 'removed' : 'set';
    else if (f && v !== null && v !== undefined) out[k] = f(v);
    else out[k] = v;
  }
  if (unchangedSecrets) for (const k of secrets) if (!(k in out)) out[k] = 'unchanged';
  return out;
}
