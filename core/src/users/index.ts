// Users and how they sign in: the user store, password hashing and policy, TOTP and the second factor.
export * from './users.ts';
export * from './passwords.ts';
export * from './password-policy.ts';
export * from './totp.ts';
export * from './mfa.ts';
