// Secrets: credentials at rest (the secrets key, encrypt/decrypt; the file stays in actions/, where it began)
// and the policy configured secrets must meet. Its own entry so that a role storing a channel's password,
// a TOTP seed or backing up the key needs neither the actions nor the users area for it.
export * from '../actions/secrets.ts';
export * from '../secret-policy.ts';
