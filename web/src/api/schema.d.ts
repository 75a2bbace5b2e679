// Generated from the API OpenAPI document by `npm run gen:api-client` (api/scripts/web-client.ts). Do not edit.
export interface paths {
  '/api/v1/auth/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Log in with username and password
     * @description Returns an access token (JWT, 15 min by default) and a refresh token (30 days by default). When the user has a second factor (TOTP) the right password gives no tokens yet: the answer is 200 `{mfa_required: true, mfa_token, expires_in}` and POST /api/v1/auth/login/mfa with that token and a code (or a recovery code) finishes the login, with the same answers as this route. A wrong password and an unknown user get the same 401 INVALID_CREDENTIALS. At most 3 guesses per username and client address are evaluated in the counting window (15 min by default), however many arrive at once; then, and after 10 per username from any address or 30 per address for any username, logins in that scope get 429 RATE_LIMITED with Retry-After (details.scope: pair, username or address) until the lockout (15 min by default) ends. Wrong second-factor codes count the same way. A browser where the user logged in before sends its device cookie (set by every successful cookie-flow login: HttpOnly, SameSite=Strict, 30 days by default, void after a password change): its attempts are judged by that cookie alone (3 failures lock only that cookie, details.scope device), so strangers cannot lock the owner out of it; an address the user logged in from recently is not subject to the per-username lock either. 503 UNAVAILABLE with Retry-After when too many passwords are being verified at once. Cookie flow (browsers): with `refresh_cookie: true` at login the refresh token is set as the httpOnly, SameSite=Strict cookie `watchpost_refresh` (Path=/api/v1/auth) and left out of the body; /auth/refresh and /auth/logout called with `{}` use that cookie, rotate or clear it, and also leave the refresh token out of the body.
     *
     *     Access: public.
     */
    post: operations['login'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/refresh': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Exchange a refresh token for a new token pair
     * @description The refresh token is single use: the answer carries its successor. Presenting an already used refresh token revokes every token of its session (family) and answers 401. Cookie flow (browsers): with `refresh_cookie: true` at login the refresh token is set as the httpOnly, SameSite=Strict cookie `watchpost_refresh` (Path=/api/v1/auth) and left out of the body; /auth/refresh and /auth/logout called with `{}` use that cookie, rotate or clear it, and also leave the refresh token out of the body.
     *
     *     Access: public.
     */
    post: operations['refreshToken'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * End a session
     * @description Ends the session: revokes the refresh token and its whole family, and every access token of that session is refused from the next request on (access tokens name their session; each request checks it). Its live streams are closed within seconds. Cookie flow (browsers): with `refresh_cookie: true` at login the refresh token is set as the httpOnly, SameSite=Strict cookie `watchpost_refresh` (Path=/api/v1/auth) and left out of the body; /auth/refresh and /auth/logout called with `{}` use that cookie, rotate or clear it, and also leave the refresh token out of the body.
     *
     *     Access: public.
     */
    post: operations['logout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The logged-in user
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getMe'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/login/mfa': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Finish a login with the second factor
     * @description The second step of a login whose password step answered `{mfa_required: true, mfa_token}`: the token and either `code` (the authenticator app’s current 6-digit code; a code is accepted once, and no older one after it) or `recovery_code` (one of the ten shown at enrolment; each works once). The answer is the login’s: the token pair, in the cookie flow when the login asked for it (refresh cookie and device cookie set). 401 INVALID_CODE: a wrong, used or replayed code; it counts as a failed login (the login’s 429 RATE_LIMITED limits apply, details.scope as there). 401 INVALID_MFA_TOKEN: the challenge is unknown, older than 300 s, already completed, took 3 wrong codes, or the user’s password or second factor changed since: log in again.
     *
     *     Access: public.
     */
    post: operations['loginMfa'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/security': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Your second factor and recovery codes
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getAccountSecurity'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/totp/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start enrolling an authenticator app (TOTP)
     * @description Asks for your current password. Answers a new secret, shown this once: add it to an authenticator app (scan `otpauth_uri` as a QR code, or type `secret`), then confirm with a code from the app (POST /api/v1/account/totp/confirm). Until then login does not change. Starting again replaces the pending secret. TOTP (RFC 6238): SHA1, 6 digits, 30 s. The secret is stored encrypted with the secrets key (SERVICE_SECRETS_KEY). 403 WRONG_PASSWORD (counted as a failed login: the login’s 429 RATE_LIMITED applies); 409 TOTP_ALREADY_ENABLED: disable the active one first.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['startTotpEnrolment'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/totp/confirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Activate the authenticator app with a current code
     * @description With a current code of the app the pending secret becomes your second factor: every later login asks for a code. Answers 10 recovery codes, shown this once and stored hashed: each logs in once in place of a code (keep them apart from the phone). The confirming code itself cannot be used again. 403 INVALID_CODE; 409 TOTP_NOT_STARTED (no pending secret) or TOTP_ALREADY_ENABLED.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['confirmTotpEnrolment'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/totp/disable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Remove your second factor
     * @description Asks for your current password and a current code of the app (or a recovery code). Removes the secret and the recovery codes; logins ask for the password only. A user who lost both the app and the recovery codes asks an admin (DELETE /api/v1/users/{id}/totp, or the CLI’s `users reset-totp`). 403 WRONG_PASSWORD or INVALID_CODE, each counted as a failed login (429 RATE_LIMITED as for logins); 409 TOTP_NOT_ENABLED. With SERVICE_REQUIRE_TOTP_FOR_ADMINS an admin's admin routes answer 403 MFA_ENROLMENT_REQUIRED again.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['disableTotp'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/account/password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Change your password
     * @description Asks for the current password; the new one follows the password policy (12 to 1024 characters) and must differ from it. Ends every other session of yours at once (their access and refresh tokens are refused), signs out your mobile devices (they enrol again) and voids the login device cookies of your browsers. This session goes on: its refresh token stays valid and the answer carries its new access token (the one used for this call is refused from now on). 403 WRONG_PASSWORD (counted as a failed login: the login’s 429 RATE_LIMITED applies); 400 PASSWORD_UNCHANGED.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['changeOwnPassword'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List users
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listUsers'];
    put?: never;
    /**
     * Create a user
     * @description Usernames are stored lower-case and match ^[a-z0-9][a-z0-9._@-]{0,63}$. Passwords: at least 12 characters.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['createUser'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Remove a user
     * @description Removes the user for good: their sessions end at once (every token refused) and their mobile devices are deleted with their push subscriptions and enrollment codes. History keeps the name (audit log, acknowledgements). 409 LAST_ADMIN when the user is the last active admin; 409 SELF_REMOVAL for your own account (another admin removes it).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    delete: operations['removeUser'];
    options?: never;
    head?: never;
    /**
     * Change a user’s role and/or active flag
     * @description Takes effect at once: the user’s existing access tokens are refused on their next request (role mismatch or inactive). 409 LAST_ADMIN when the change would leave no active admin.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    patch: operations['updateUser'];
    trace?: never;
  };
  '/api/v1/users/{id}/password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reset a user’s password
     * @description Every access and refresh token issued to the user before is refused from now on: their browser sessions end, their mobile devices are signed out (they enrol again), and the login device cookies of their browsers stop exempting them from the login lockout. The second factor stays (DELETE /api/v1/users/{id}/totp removes it). To change your own password use POST /api/v1/account/password, which keeps your session.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['setUserPassword'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/users/{id}/totp': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Remove a user’s second factor (a user locked out of it)
     * @description For a user who lost both the authenticator app and the recovery codes: removes the TOTP secret and the recovery codes, so the user logs in with the password alone and can enrol again. Their sessions go on (reset the password too when the factor may be in other hands). Audited as user.totp_reset. 404 NOT_FOUND also when the user has no second factor; 409 SELF_RESET for your own (use POST /api/v1/account/totp/disable, which asks for your password and a code: a stolen session cannot remove the factor).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    delete: operations['resetUserTotp'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/event-types': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Severity overrides and visibility per event type
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listEventTypeSettings'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/event-types/{type}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Set the severity override and visibility of an event type
     * @description severity_override null = the severity sent by the agent. The override applies at read time, so also to events already stored, and in correlation for new events. visible=false hides the type from events lists, dashboard, hosts and problems.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putEventTypeSetting'];
    post?: never;
    /**
     * Remove the settings of an event type (back to the agent’s severity, visible)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    delete: operations['deleteEventTypeSetting'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/ui': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * UI settings
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getUiSettings'];
    /**
     * Change UI settings
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putUiSettings'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Audit log
     * @description Logins (success, failure, rate limit), refresh-token reuse, logouts, user changes, setting changes, API key changes, host deletions and problem acknowledge/resolve (problem.acknowledge, problem.resolve). `action` matches by prefix on dot boundaries (`auth.login` matches `auth.login.failure`). For the next page pass `before_id` = the last id of this page.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listAuditLog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List agent API keys
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listApiKeys'];
    put?: never;
    /**
     * Create an agent API key
     * @description The key is in this answer only; just its sha256 is stored.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['createApiKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/api-keys/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Import an existing agent API key
     * @description For fleets moving from another collector: the agents keep the key they have. The key is stored as its sha256 with a display prefix, never returned, and works for ingest like a generated one. It must be 24 to 512 printable ASCII characters without spaces, not a placeholder, and look random (surrounding whitespace is dropped).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['importApiKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/api-keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke an agent API key
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    delete: operations['revokeApiKey'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List events, newest first
     * @description Filters combine with AND. `hostname` matches hosts whose hostname or display name is it (ignoring case; a prefix with a trailing *); `q` searches title and summary (substring) and user, source address, hostname and display name (prefix); `user` and `source_ip` are exact or a prefix ending in `*`. `severity` matches the severity after the per-type override. `type` matches the type itself and every type below it (`rdg.connection` matches `rdg.connection.success`, ...). `from`/`to` are inclusive bounds on occurred_at: an ISO 8601 date (a whole UTC day) or a date-time with offset (second precision). Types hidden by the visibility setting are left out. `total` is exact (an event delivered twice is counted once).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    get: operations['listEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events/facets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Top values of host, type, user and source address among the matching events
     * @description Same filters as GET /events. For each field the `limit` most frequent values, most first (ties by value); an empty user or source address is left out. Counted as stored rows: a redelivered event not yet merged may count twice (the list total is exact).
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['eventFacets'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events/histogram': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Matching events per time bucket over the range
     * @description Same filters as GET /events; `to` defaults to now and `from` to 24 h before `to`. The bucket size follows the range (at most 40 buckets of 1, 5, 10, 15, 30 min, 1, 3, 6, 12 h, 1, 7, 30 days: 15 min -> 1 min, 1 h -> 5 min, 24 h -> 1 h, 7 d -> 6 h); buckets start at multiples of their size since the epoch (UTC), the first one at or before `from`. Every bucket is listed, empty ones with 0. Counts are exact.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['eventHistogram'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One event with its full JSON
     * @description Events of hidden types are returned too (hidden: true); only lists leave them out. The event JSON carries source.agent_instance_id for admins only (not through a mobile device token).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    get: operations['getEvent'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List hosts
     * @description `search` matches hostname or display name (case-insensitive substring). Status is computed when read: online while the last heartbeat/daily report (or first event) is at most SERVICE_HEARTBEAT_STALE_MINUTES old. Sorted by hostname. `pending_changes` counts the changes an admin has to accept or reject (GET /host-changes).
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listHosts'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One host
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getHost'];
    put?: never;
    post?: never;
    /**
     * Delete a host with its problems and events
     * @description Deletes the host record and its problems (with timelines) in Postgres, then submits a ClickHouse mutation deleting its events (ALTER TABLE events DELETE; ClickHouse applies it in the background, usually within seconds). The host is recreated by the next event its agent sends. Audited as host.delete.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    delete: operations['deleteHost'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}/ssh-host-key/reset': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Forget the pinned SSH host key of a host
     * @description SSH actions pin the host key seen at the first connection and refuse a different one. After a host was reinstalled (or its key rotated), this forgets the pinned key: the next SSH action pins whatever key the host then presents, so check the host first. Audited as host.ssh_host_key.reset with the key that was pinned.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['resetHostSshKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/host-changes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List host changes (default: pending), by hostname then kind
     * @description A pending change is what a host reported that differs from its confirmed facts (kind facts), another agent instance or key speaking for it (identity), or a WinRM certificate that differs from the pinned one (winrm_certificate). Remote actions use only the confirmed values until an admin accepts. At most one pending change per host and kind: a newer proposal replaces the older one (seen_count, last_seen).
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listHostChanges'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/host-changes/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One host change
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getHostChange'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/host-changes/{id}/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept one host change
     * @description Applies `proposed` to the host in one transaction (facts: os_family, product, fqdn, ipv4, internal_address; identity: those and the binding: agent_instance_id, agent key, bound_at; winrm_certificate: the pinned certificate) and marks the change accepted. The only way to accept an identity or winrm_certificate change (never in bulk). Deciding an identity change (either way) resolves the host_identity_conflict problem of the host (resolved_by manual). Audited as host.change.accept. 409 CONFLICT when the change is no longer pending (details.reason ALREADY_DECIDED, details.status; of two admins deciding at once exactly one applies) or its proposal is no longer the `proposed` given (details.reason CHANGED: reload and decide again).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['acceptHostChange'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/host-changes/accept': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept several host changes
     * @description Each change as POST /host-changes/{id}/accept does, all in ONE transaction; a change no longer pending (or changed) is answered `conflict` in `items` and the rest are decided. 400 unless exactly one of ids, changes or all is given. A bulk accept applies only what the admin saw: it takes `changes` (each id with the proposal shown) and answers 400 BAD_REQUEST to `ids` or `all: true` (those reject only). Identity and winrm_certificate changes are never accepted in bulk: each is answered `refused`, reason ONE_BY_ONE, and stays pending (identity, winrm_certificate: POST /host-changes/{id}/accept after comparing it). Deciding an identity change (either way) resolves the host_identity_conflict problem of the host (resolved_by manual). Audited as host.change.accept.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['acceptHostChanges'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/host-changes/{id}/reject': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reject one host change
     * @description Marks the change rejected; the host keeps its confirmed facts and binding. Deciding an identity change (either way) resolves the host_identity_conflict problem of the host (resolved_by manual). Audited as host.change.reject. 409 CONFLICT when the change is no longer pending (details.reason ALREADY_DECIDED, details.status; of two admins deciding at once exactly one applies) or its proposal is no longer the `proposed` given (details.reason CHANGED: reload and decide again).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['rejectHostChange'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/host-changes/reject': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Reject several host changes
     * @description Each change as POST /host-changes/{id}/reject does, all in ONE transaction; a change no longer pending (or changed) is answered `conflict` in `items` and the rest are decided. 400 unless exactly one of ids, changes or all is given.  Deciding an identity change (either way) resolves the host_identity_conflict problem of the host (resolved_by manual). Audited as host.change.reject.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['rejectHostChanges'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/problems': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List problems, newest first (or in `sort` order)
     * @description Metrics rule: with `created_within_hours` and no `status`, the list holds only open and acknowledged problems created in that window; resolved ones of the window are counted apart in `counts.resolved`. An explicit `status` is honoured as given. `counts` has every status under the other filters. Severity is matched after the per-type override; problems of hidden types are left out. `type` matches the type and every type below it.
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    get: operations['listProblems'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/problems/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One problem with its event timeline
     * @description Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    get: operations['getProblem'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/problems/{id}/acknowledge': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Acknowledge a problem (open -> acknowledged)
     * @description 409 CONFLICT when the state machine refuses: acknowledge is allowed only from open, resolve from open or acknowledged. details.reason is ALREADY_ACKNOWLEDGED or ALREADY_RESOLVED, details.status the current status. Optional JSON body {"message"} (at most 1000 characters) is stored as the problem's acknowledged_message. Allowed for admin and monitor; audited as problem.acknowledge.
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    post: operations['acknowledgeProblem'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/problems/{id}/resolve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resolve a problem (open or acknowledged -> resolved, resolved_by manual)
     * @description 409 CONFLICT when the state machine refuses: acknowledge is allowed only from open, resolve from open or acknowledged. details.reason is ALREADY_ACKNOWLEDGED or ALREADY_RESOLVED, details.status the current status. Optional JSON body {"message"} (at most 1000 characters) is stored as the problem's resolved_message. Allowed for admin and monitor; audited as problem.resolve.
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    post: operations['resolveProblem'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/problems/bulk': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Acknowledge or resolve several problems at once
     * @description Up to 200 ids in one transaction, each through the state machine as the one-problem routes: a problem whose state forbids the act is reported (outcome conflict, with reason and status) and the rest are done; an unknown id is reported as not_found. Always 200 with one item per id in the order given. The optional message is stored with every act done. Allowed for admin and monitor; each act done is audited as problem.acknowledge / problem.resolve.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['bulkProblemAction'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dashboards/summary': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Dashboard figures of the last 24 hours (or of a chosen window)
     * @description Event figures cover events whose occurred_at is within the window: by default exactly the last 24 hours to the second (the same events as GET /events?from=<now-24h>&to=<now>); `range` picks another rolling window, `from`/`to` an absolute one (at most 31 days; `to` defaults to now). Types hidden by the visibility setting are left out everywhere (heartbeat and daily-report counters included), severities after the per-type override. The `*_24h` names are kept for the default window; they count the chosen window.
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    get: operations['getDashboardSummary'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/stream/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Live dashboard counters (server-sent events)
     * @description text/event-stream. Frames: `event: ready` once at connect (data {"keepalive_seconds"}), then `event: events` (data {"kind":"events","at","total","severity":{info,warning,high,critical},"daily_reports","heartbeats"}: increments per ingested batch), `event: problems` (data {"kind":"problems","action":"opened|reopened|acknowledged|resolved","problem":{...}}) and `event: hosts` (data {"kind":"hosts","hostname","status":"online|stale|removed","previous","counts":{total,online,stale}}). A comment line `: keep-alive` every SERVICE_STREAM_KEEPALIVE_SECONDS (15). Browsers authenticate with `new EventSource("/api/v1/stream/events?access_token=<JWT>")`; the Authorization header works too. At most SERVICE_STREAM_MAX_PER_USER (10) streams per user at once on one API process (429 TOO_MANY_STREAMS beyond it); a mobile device holds at most SERVICE_STREAM_MAX_PER_DEVICE (2): a new one ends its oldest.
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md). The access token may also be passed as the `access_token` query parameter (EventSource cannot send headers).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md). The access token may also be passed as the `access_token` query parameter (EventSource cannot send headers).
     */
    get: operations['streamEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/actions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Remote actions, newest first
     * @description Keyset paging: pass the last id of a page as `before_id` for the next one.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getActions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/actions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One remote action (poll it until status is succeeded or failed)
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getActionsId'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}/actions/winrm-test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * WinRM connection test
     * @description Admin only. Runs `hostname` over WinRM with the configured Windows administrator on a Windows host an admin has confirmed (400 ACTION_NOT_POSSIBLE for another OS). result: {ok, endpoint, remote_hostname}.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postHostsIdActionsWinrmTest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}/actions/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * List the sessions on a Windows host (qwinsta over WinRM)
     * @description result: {endpoint, sessions: [{id, session_name, username, state, current}], raw}.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postHostsIdActionsSessions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}/actions/sessions/{session_id}/logoff': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Terminate one session on a Windows host (logoff over WinRM)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postHostsIdActionsSessionsSessionIdLogoff'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}/actions/ssh-check': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * SSH administration check (sets and persists ssh_admin_ok)
     * @description Connects with the configured SSH user and key and checks for root or passwordless sudo (`sudo -n true`). result: {ssh_admin_ok, via: root|sudo|null, host_key_sha256}. The host key is pinned at the first connection.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postHostsIdActionsSshCheck'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}/actions/agent-update': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Update the agent now over SSH (Linux) or WinRM (Windows)
     * @description Linux: installs the updater script when missing or changed, runs it with the configured git URL and branch, reads the version back. Windows: the agent's own update path: the host downloads the bundle (the repository at the configured ref: a branch head, a tag or a pinned commit; a UTF-8 BOM on every .ps1) over a short-lived signed URL, unpacks it to a staging folder and runs Deploy-LoginMonitor.ps1 -SourceShareRoot <staging>; done when the agent reports the new version in its events. result: {agent, version (what the agent reports), previous_version, installed_updater? (linux), deployed_version?, version_source?, commit (the commit installed, null when the Linux updater did not say), git_url, branch}.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postHostsIdActionsAgentUpdate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/agent-bundles/{id}.zip': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Download a Windows agent bundle (signed, short-lived link)
     * @description The link is made by the actions worker for one WinRM update and lives BUNDLE_URL_TTL_SECONDS (10 minutes): `expires` (unix seconds) and `sig` (HMAC-SHA256 with a key derived from the secrets key). 403 when either is wrong or expired.
     *
     *     Access: public.
     *
     *     Access: public.
     */
    get: operations['getAgentBundlesIdZip'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events/{event_id}/actions/terminate-session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Terminate the session of an rdp.login.success event
     * @description The user is the event's actor user (details.user, username, target_user or account); the host is the event's host. Every session of that user on the host is logged off. result: {user, logged_off: [{id, session_name, state}]}.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postEventsEventIdActionsTerminateSession'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events/{event_id}/actions/gateway-qwinsta': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * qwinsta on the Windows host behind a gateway event (synchronous)
     * @description Resolves the event's internal address (details.internal_address, target_address, internal_ip, target_host or resource; a :port is ignored) to a registered Windows host and runs qwinsta there over WinRM. Admins and monitors (spec rule 3). result: {endpoint, sessions, raw}.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postEventsEventIdActionsGatewayQwinsta'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events/{event_id}/actions/gateway-logoff': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * logoff on the Windows host behind a gateway event (synchronous)
     * @description With `session_id`: logs off that session (for a monitor, only a session of the event user: another answers 400). Without: logs off every session of the event user (details.user, ...). Admins and monitors (spec rule 3).
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postEventsEventIdActionsGatewayLogoff'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/winrm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Windows administrator for WinRM (database over environment)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getSettingsWinrm'];
    /**
     * Save the Windows administrator for WinRM
     * @description Fields left out keep their value; `password: null` removes the stored password. Stored encrypted (AES-256-GCM).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putSettingsWinrm'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/target-networks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The networks remote actions may connect to (database over environment)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getSettingsTargetNetworks'];
    /**
     * Save the networks remote actions may connect to
     * @description Before any SSH or WinRM connection the host address is resolved and every address must lie inside one of these networks; the connection goes to the address checked. 400 VALIDATION_FAILED names an item that is no network or would allow every address.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putSettingsTargetNetworks'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/ssh': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * SSH user and key for Linux hosts (database over environment)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getSettingsSsh'];
    /**
     * Save the SSH user and private key
     * @description private_key: an unencrypted OpenSSH or PEM private key; stored encrypted (AES-256-GCM); `null` removes it.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putSettingsSsh'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/agent-updates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Agent-update repositories per agent kind (linux = ssh-monitor, windows = rdp-login-monitor)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getSettingsAgentUpdates'];
    /**
     * Save the agent-update repositories
     * @description git_url: https:// or ssh:// (file:// only with SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS), without credentials (a user name or token in an https:// URL is refused: api/ACTIONS.md says where they go); branch: a branch, or a tag or full commit id to pin what updates install.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putSettingsAgentUpdates'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/agent-updates/git-test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Test a git repository for agent updates (unsaved form values welcome)
     * @description The actions worker runs `git ls-remote` against the URL (allow-listed schemes only) and checks the ref (a branch, a tag or a full commit id). result: {ok, branch_found, ref_kind, commit, tags, latest_version, version_source} (ref_kind: branch, tag or commit; commit: what the ref points at; version_source: version.txt, Login_Monitor.ps1, ssh-monitor or tag). A failure is 400 ACTION_FAILED with git's message. Nothing is saved.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postSettingsAgentUpdatesGitTest'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/agent-config': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Desired agent configuration returned by the agent poll
     * @description `all` applies to every agent; `linux` and `windows` add to it for that kind (their keys win).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getSettingsAgentConfig'];
    /**
     * Save the desired agent configuration (at most 16 KiB)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putSettingsAgentConfig'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/hosts/{id}/agent-commands': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Commands queued for the host's agent and their results, newest first (last 100)
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getHostsIdAgentCommands'];
    put?: never;
    /**
     * Queue a command for the host's agent (delivered by its next poll)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['postHostsIdAgentCommands'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/policy': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The notification policy: minimum severity and channels
     * @description Defaults come from NOTIFY_MIN_SEVERITY and NOTIFY_CHANNELS; a saved policy overrides them (source says which).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getNotificationPolicy'];
    /**
     * Set the notification policy
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putNotificationPolicy'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/chat': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The chat channel configuration (secrets masked)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getNotificationChannel_chat'];
    /**
     * Update the chat channel configuration
     * @description Fields left out keep their value; a secret set to null is removed (the environment value applies again). Secrets are stored encrypted (AES-256-GCM) and never returned.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putNotificationChannel_chat'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/chat/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test message through the chat channel
     * @description Queued for the deliver role, which sends to every destination of the saved configuration; answers each provider's answer. 504 when no deliver worker answered in NOTIFY_TEST_WAIT_MS.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['testNotificationChannel_chat'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/webhook': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The webhook channel configuration (secrets masked)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getNotificationChannel_webhook'];
    /**
     * Update the webhook channel configuration
     * @description Fields left out keep their value; a secret set to null is removed (the environment value applies again). Secrets are stored encrypted (AES-256-GCM) and never returned.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putNotificationChannel_webhook'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/webhook/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test message through the webhook channel
     * @description Queued for the deliver role, which sends to every destination of the saved configuration; answers each provider's answer. 504 when no deliver worker answered in NOTIFY_TEST_WAIT_MS.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['testNotificationChannel_webhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/email': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The email channel configuration (secrets masked)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getNotificationChannel_email'];
    /**
     * Update the email channel configuration
     * @description Fields left out keep their value; a secret set to null is removed (the environment value applies again). Secrets are stored encrypted (AES-256-GCM) and never returned.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putNotificationChannel_email'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/email/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test message through the email channel
     * @description Queued for the deliver role, which sends to every destination of the saved configuration; answers each provider's answer. 504 when no deliver worker answered in NOTIFY_TEST_WAIT_MS.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['testNotificationChannel_email'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/push': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The push channel configuration (secrets masked)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getNotificationChannel_push'];
    /**
     * Update the push channel configuration
     * @description Fields left out keep their value; a secret set to null is removed (the environment value applies again). Secrets are stored encrypted (AES-256-GCM) and never returned.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    put: operations['putNotificationChannel_push'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/settings/notifications/channels/push/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test message through the push channel
     * @description Queued for the deliver role, which sends to every destination of the saved configuration; answers each provider's answer. 504 when no deliver worker answered in NOTIFY_TEST_WAIT_MS.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['testNotificationChannel_push'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/notifications/explain': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Why an event or a problem was (or was not) notified, and where each delivery stands
     * @description Give event_id or problem_id. Recorded decisions (rule matched when it arrived) come with their deliveries; for an event that matched no rule nothing was recorded, so the decision is computed now with the current policy (recorded: false). An event_id ingest answered 409 as the re-send of another stored event (same host, type, time on the host and content) is explained by subject.resent_of and subject.reason, with no decisions.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['explainNotification'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/notifications/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Deliveries, newest change first (state=failed: the dead ones)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listNotificationDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/reports/daily': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The service's daily reports, newest first
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listDailyReports'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/reports/daily/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One daily report with its HTML (built by the service, every value escaped) and text
     * @description Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getDailyReport'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/devices/enrollment-codes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Issue a single-use enrollment code (shown once)
     * @description The code is 10 Crockford base32 symbols shown as XXXXX-XXXXX (50 bits; case, the dash and O/0, I/L/1 look-alikes do not matter), valid SERVICE_ENROLLMENT_CODE_TTL_MINUTES (15) minutes, stored only as a hash. The device enrolled with it acts as `user_id` (default: the admin issuing it): the issuing admin or a monitor, never another admin (403: an admin enrolls their own phone). The device gets the mobile surface only (api/MOBILE.md).
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['createEnrollmentCode'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/devices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Enrolled mobile devices with their last use
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['listDevices'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/devices/{id}/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke a device: every token refused at once, push subscriptions removed, the record kept
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    post: operations['revokeDevice'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/devices/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Delete a device record completely (its tokens and push subscriptions too)
     * @description Access: admin only. A mobile device's token: 403 DEVICE_SCOPE.
     */
    delete: operations['deleteDevice'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mobile/enroll': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Enroll a device with an admin-issued code
     * @description Answers an access token and a refresh token bound to the device (refresh with POST /auth/refresh, body {refresh_token}). Enrolling the same device_uuid again reuses its record: fresh tokens, the old ones refused. A wrong, used or expired code answers 401 INVALID_CODE. Guesses are limited: 3 per device UUID and address, 10 per device UUID and 10 per client address (an IPv6 client by its /64) in the login window, then 429 RATE_LIMITED with Retry-After for the lockout (details.scope: pair, device or address); across all addresses 60 failures a minute, then every enrollment gets 429 (scope code_space) until the minute ends.
     *
     *     Access: public.
     */
    post: operations['enrollDevice'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mobile/device': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The device of the calling session (400 NOT_A_DEVICE for a browser session)
     * @description Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    get: operations['getOwnDevice'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mobile/push/vapid-public-key': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The service's VAPID public key (applicationServerKey of PushManager.subscribe)
     * @description Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    get: operations['getVapidPublicKey'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/mobile/push-subscriptions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register a Web Push subscription (PushSubscription.toJSON()) for this device
     * @description Many per device; registering an endpoint again refreshes its keys. Device sessions only (400 NOT_A_DEVICE). Keys that cannot encrypt (p256dh not a P-256 point, auth not 16 bytes): 400. An endpoint another device registered: 409.
     *
     *     Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    post: operations['registerPushSubscription'];
    /**
     * Remove one of this device’s push subscriptions
     * @description Access: any logged-in user (monitor or admin). Mobile devices: allowed (api/MOBILE.md).
     */
    delete: operations['deletePushSubscription'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/system/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The service’s own health: ingest rate, consumer lag, queue depths, stores
     * @description Cached for 5 s. Each probe is bounded (1500 ms): a store that is down or hangs is reported `down` and the parts that need it carry nulls; the route itself answers 200.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     *
     *     Access: any logged-in user (monitor or admin). A mobile device's token: 403 DEVICE_SCOPE.
     */
    get: operations['getSystemStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/agent/poll': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Agent poll: pending commands, desired configuration, pending self-update
     * @description Served by the ingest role. Access: agent API key (X-API-Key or Authorization: Bearer). Answered only to the host's bound agent (the key and agent_instance_id of its first events); any other poll gets an empty answer. Each poll costs one event of the key's and the host's (hostname and agent_instance_id) rate limits, the same buckets as the events.
     */
    post: operations['agentPoll'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/agent/commands/{id}/result': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Agent posts a command's result
     * @description Served by the ingest role. Access: agent API key. Accepted only from the agent the command was delivered to: the key, agent_instance_id and hostname of the poll that fetched it (with hostname, our body; without, the Windows agent's: the key, and the id that poll handed out). A result from anyone else, for a command not delivered yet, or for an unknown id gets the same 404 and changes nothing, so ids cannot be probed. The fetcher's second result for the same command is 409 and changes nothing. Costs one event of the key's rate limit and, with hostname, of that host's.
     */
    post: operations['postAgentCommandResult'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/agent/commands': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The Windows agent's command poll (qwinsta, logoff)
     * @description Served by the ingest role. Access: agent API key (Authorization: Bearer or X-API-Key). Answers the commands of the host bound to this key and agent_instance_id in the shape rdp-login-monitor reads; anyone else gets `{commands: []}`. Each poll costs one event of the key's rate limit and, from the bound agent, of its host's (the same buckets as its events).
     */
    get: operations['agentCommands'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: never;
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  login: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          username: string;
          password: string;
          /** @description true: the refresh token goes into an httpOnly cookie, and a device cookie is set (browsers) */
          refresh_cookie?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json':
            | {
                /** @description JWT (HS256); send as `Authorization: Bearer <token>` */
                access_token: string;
                /** @description opaque; single use, rotated by /auth/refresh. Absent in the cookie flow (then in the watchpost_refresh cookie) */
                refresh_token?: string;
                /** @enum {string} */
                token_type: 'Bearer';
                /** @description seconds until the access token expires */
                expires_in: number;
                /** @description seconds until the refresh token expires */
                refresh_expires_in: number;
              }
            | {
                /** @enum {boolean} */
                mfa_required: true;
                /** @description opaque, single use: send it with a code to POST /api/v1/auth/login/mfa to finish the login */
                mfa_token: string;
                /** @description seconds the challenge stays valid (300) */
                expires_in: number;
              };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INVALID_CREDENTIALS */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: too many failed logins for this username, address or device cookie; see the Retry-After header (seconds) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAVAILABLE: too many password verifications at once */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  refreshToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description required unless the browser sends the watchpost_refresh cookie (cookie flow) */
          refresh_token?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description JWT (HS256); send as `Authorization: Bearer <token>` */
            access_token: string;
            /** @description opaque; single use, rotated by /auth/refresh. Absent in the cookie flow (then in the watchpost_refresh cookie) */
            refresh_token?: string;
            /** @enum {string} */
            token_type: 'Bearer';
            /** @description seconds until the access token expires */
            expires_in: number;
            /** @description seconds until the refresh token expires */
            refresh_expires_in: number;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  logout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description required unless the browser sends the watchpost_refresh cookie (cookie flow) */
          refresh_token?: string;
        };
      };
    };
    responses: {
      /** @description logged out (also for an unknown token) */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getMe: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            username: string;
            /** @enum {string} */
            role: 'admin' | 'monitor';
            /** @description the user has an active second factor (TOTP) */
            totp_enabled: boolean;
            /** @description true for an admin without a second factor while SERVICE_REQUIRE_TOTP_FOR_ADMINS is on: admin routes answer 403 MFA_ENROLMENT_REQUIRED until the admin enrols (POST /api/v1/account/totp/start) */
            mfa_enrolment_required: boolean;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  loginMfa: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description from the login answer */
          mfa_token: string;
          /** @description the 6-digit code of the authenticator app (spaces ignored) */
          code?: string;
          /** @description one of the recovery codes shown at enrolment (dashes, spaces and case ignored); each works once */
          recovery_code?: string;
        } & (unknown | unknown);
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description JWT (HS256); send as `Authorization: Bearer <token>` */
            access_token: string;
            /** @description opaque; single use, rotated by /auth/refresh. Absent in the cookie flow (then in the watchpost_refresh cookie) */
            refresh_token?: string;
            /** @enum {string} */
            token_type: 'Bearer';
            /** @description seconds until the access token expires */
            expires_in: number;
            /** @description seconds until the refresh token expires */
            refresh_expires_in: number;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INVALID_CODE or INVALID_MFA_TOKEN */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: too many failed logins for this username, address or device cookie; see the Retry-After header (seconds) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getAccountSecurity: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            totp_enabled: boolean;
            /** Format: date-time */
            totp_enabled_at: string | null;
            /** @description an enrolment was started and not confirmed yet */
            totp_pending: boolean;
            /** @description unused recovery codes (0 without a second factor) */
            recovery_codes_left: number;
            /** @description the service requires a second factor of this user (an admin while SERVICE_REQUIRE_TOTP_FOR_ADMINS is on) */
            totp_required: boolean;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  startTotpEnrolment: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description your current password */
          password: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description base32 (RFC 4648), for typing into the app */
            secret: string;
            /** @description Key URI (otpauth://totp/...) for a QR code */
            otpauth_uri: string;
            /** @enum {string} */
            algorithm: 'SHA1';
            /** @enum {integer} */
            digits: 6;
            /** @enum {integer} */
            period: 30;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description WRONG_PASSWORD */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description TOTP_ALREADY_ENABLED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: too many wrong passwords or codes; see Retry-After */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  confirmTotpEnrolment: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description the 6-digit code of the authenticator app (spaces ignored) */
          code: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            recovery_codes: string[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INVALID_CODE */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description TOTP_NOT_STARTED or TOTP_ALREADY_ENABLED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  disableTotp: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description your current password */
          password: string;
          /** @description the 6-digit code of the authenticator app (spaces ignored) */
          code?: string;
          /** @description one of the recovery codes shown at enrolment (dashes, spaces and case ignored); each works once */
          recovery_code?: string;
        } & (unknown | unknown);
      };
    };
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description WRONG_PASSWORD or INVALID_CODE */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description TOTP_NOT_ENABLED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: too many wrong passwords or codes; see Retry-After */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  changeOwnPassword: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description your current password */
          current_password: string;
          new_password: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description the new access token of this session */
            access_token: string;
            /** @enum {string} */
            token_type: 'Bearer';
            expires_in: number;
            /** @description your other browser or API sessions that were live */
            sessions_ended: number;
            /** @description your mobile devices whose session ended */
            devices_signed_out: number;
          };
        };
      };
      /** @description PASSWORD_UNCHANGED, or VALIDATION_FAILED (the policy) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description WRONG_PASSWORD */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: too many wrong passwords; see Retry-After */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listUsers: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              id: number;
              username: string;
              /** @enum {string} */
              role: 'admin' | 'monitor';
              active: boolean;
              /** @description the user has an active second factor (TOTP) */
              totp_enabled: boolean;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              updated_at: string;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  createUser: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          username: string;
          password: string;
          /** @enum {string} */
          role: 'admin' | 'monitor';
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            username: string;
            /** @enum {string} */
            role: 'admin' | 'monitor';
            active: boolean;
            /** @description the user has an active second factor (TOTP) */
            totp_enabled: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description USER_EXISTS */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  removeUser: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description LAST_ADMIN or SELF_REMOVAL */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  updateUser: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          role?: 'admin' | 'monitor';
          active?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            username: string;
            /** @enum {string} */
            role: 'admin' | 'monitor';
            active: boolean;
            /** @description the user has an active second factor (TOTP) */
            totp_enabled: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description LAST_ADMIN */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  setUserPassword: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          password: string;
        };
      };
    };
    responses: {
      /** @description password changed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  resetUserTotp: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description SELF_RESET */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listEventTypeSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              type: string;
              /** @enum {string|null} */
              severity_override: 'info' | 'warning' | 'high' | 'critical' | null;
              visible: boolean;
              /** Format: date-time */
              updated_at: string;
              updated_by: string | null;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putEventTypeSetting: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        type: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string|null} */
          severity_override: 'info' | 'warning' | 'high' | 'critical' | null;
          visible: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            type: string;
            /** @enum {string|null} */
            severity_override: 'info' | 'warning' | 'high' | 'critical' | null;
            visible: boolean;
            /** Format: date-time */
            updated_at: string;
            updated_by: string | null;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  deleteEventTypeSetting: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        type: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getUiSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description show system statistics in the sidebar */
            sidebar_stats: boolean;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putUiSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description show system statistics in the sidebar */
          sidebar_stats: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description show system statistics in the sidebar */
            sidebar_stats: boolean;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listAuditLog: {
    parameters: {
      query?: {
        limit?: number;
        before_id?: number;
        action?: string;
        actor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              id: number;
              /** Format: date-time */
              at: string;
              actor: string | null;
              address: string | null;
              action: string;
              target: string | null;
              details: {
                [key: string]: unknown;
              };
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listApiKeys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              id: number;
              name: string;
              /** @description first characters of the key, to recognise it */
              prefix: string;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              revoked_at: string | null;
              /** Format: date-time */
              last_used_at: string | null;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  createApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            key: string;
            /** @description what lists show of the key */
            prefix: string;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  importApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
          /** @description the agent key, in clear; stored only as its sha256 */
          key: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            name: string;
            prefix: string;
          };
        };
      };
      /** @description VALIDATION_FAILED: the key is refused (length, characters, placeholder, not random) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description KEY_EXISTS: the same key is registered already (active or revoked) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  revokeApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description revoked */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: no active key with this id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listEvents: {
    parameters: {
      query?: {
        /** @description hosts whose hostname or display name is this, ignoring case; a prefix when it ends in * (`web*`) */
        hostname?: string;
        /** @description free text (one phrase): a substring of title or summary, or the start of user, hostname or display name (all ignoring case), or the start of the source address */
        q?: string;
        /** @description actor_user, ignoring case: exact, or a prefix when it ends with `*` (e.g. adm*) */
        user?: string;
        /** @description source address: exact, or a prefix when it ends with `*` (e.g. 203.0.113.*) */
        source_ip?: string;
        /** @description one severity or a comma list, e.g. high,critical */
        severity?: string;
        /** @description occurred_at from (inclusive): YYYY-MM-DD (a UTC day) or an ISO 8601 date-time with offset */
        from?: string;
        /** @description occurred_at to (inclusive): YYYY-MM-DD (the whole UTC day) or an ISO 8601 date-time with offset */
        to?: string;
        /** @description type prefix on dot boundaries, e.g. rdg.connection */
        type?: string;
        /** @description 1-based page number */
        page?: number;
        /** @description rows per page (max 500) */
        page_size?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description rows matching the filters (all pages) */
            total: number;
            page: number;
            page_size: number;
            items: {
              /** Format: uuid */
              event_id: string;
              /**
               * Format: date-time
               * @description time on the host (UTC, second precision); the receive time when the host's clock was off (clock_skew): every window and order uses this
               */
              occurred_at: string;
              /**
               * Format: date-time
               * @description time the service received it (UTC, second precision)
               */
              received_at: string;
              /**
               * Format: date-time
               * @description occurred_at as the agent sent it (UTC, second precision)
               */
              agent_occurred_at?: string;
              /** @description the agent's time was more than 5 minutes ahead of the receive time or more than 7 days behind it: occurred_at is the receive time */
              clock_skew?: boolean;
              hostname: string;
              display_name?: string;
              os_family?: string;
              /** @description agent product: ssh-monitor or rdp-login-monitor */
              product?: string;
              /** @description source.product_version of the event */
              agent_version?: string;
              category?: string;
              type: string;
              /**
               * @description severity after the per-type override
               * @enum {string}
               */
              severity: 'info' | 'warning' | 'high' | 'critical';
              /** @description severity as the agent sent it */
              stored_severity?: string;
              title: string;
              summary?: string;
              tags?: string[];
              /** @description user the event is about, taken from `details` at store time (empty when none) */
              actor_user?: string;
              /** @description remote address named in `details` (empty when none) */
              source_ip?: string;
              /** @description true on the 302 and 303 events of an RD Gateway flap pair */
              flap: boolean;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  eventFacets: {
    parameters: {
      query?: {
        /** @description hosts whose hostname or display name is this, ignoring case; a prefix when it ends in * (`web*`) */
        hostname?: string;
        /** @description free text (one phrase): a substring of title or summary, or the start of user, hostname or display name (all ignoring case), or the start of the source address */
        q?: string;
        /** @description actor_user, ignoring case: exact, or a prefix when it ends with `*` (e.g. adm*) */
        user?: string;
        /** @description source address: exact, or a prefix when it ends with `*` (e.g. 203.0.113.*) */
        source_ip?: string;
        /** @description one severity or a comma list, e.g. high,critical */
        severity?: string;
        /** @description occurred_at from (inclusive): YYYY-MM-DD (a UTC day) or an ISO 8601 date-time with offset */
        from?: string;
        /** @description occurred_at to (inclusive): YYYY-MM-DD (the whole UTC day) or an ISO 8601 date-time with offset */
        to?: string;
        /** @description type prefix on dot boundaries, e.g. rdg.connection */
        type?: string;
        /** @description values per field */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            hostname: {
              value: string;
              /** @description hostname only: the display name */
              label?: string;
              events: number;
            }[];
            type: {
              value: string;
              /** @description hostname only: the display name */
              label?: string;
              events: number;
            }[];
            actor_user: {
              value: string;
              /** @description hostname only: the display name */
              label?: string;
              events: number;
            }[];
            source_ip: {
              value: string;
              /** @description hostname only: the display name */
              label?: string;
              events: number;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  eventHistogram: {
    parameters: {
      query?: {
        /** @description hosts whose hostname or display name is this, ignoring case; a prefix when it ends in * (`web*`) */
        hostname?: string;
        /** @description free text (one phrase): a substring of title or summary, or the start of user, hostname or display name (all ignoring case), or the start of the source address */
        q?: string;
        /** @description actor_user, ignoring case: exact, or a prefix when it ends with `*` (e.g. adm*) */
        user?: string;
        /** @description source address: exact, or a prefix when it ends with `*` (e.g. 203.0.113.*) */
        source_ip?: string;
        /** @description one severity or a comma list, e.g. high,critical */
        severity?: string;
        /** @description occurred_at from (inclusive): YYYY-MM-DD (a UTC day) or an ISO 8601 date-time with offset */
        from?: string;
        /** @description occurred_at to (inclusive): YYYY-MM-DD (the whole UTC day) or an ISO 8601 date-time with offset */
        to?: string;
        /** @description type prefix on dot boundaries, e.g. rdg.connection */
        type?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: date-time */
            from: string;
            /**
             * Format: date-time
             * @description exclusive end
             */
            to: string;
            bucket_seconds: number;
            buckets: {
              /** Format: date-time */
              start: string;
              events: number;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getEvent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            event_id: string;
            /**
             * Format: date-time
             * @description time on the host (UTC, second precision); the receive time when the host's clock was off (clock_skew): every window and order uses this
             */
            occurred_at: string;
            /**
             * Format: date-time
             * @description time the service received it (UTC, second precision)
             */
            received_at: string;
            /**
             * Format: date-time
             * @description occurred_at as the agent sent it (UTC, second precision)
             */
            agent_occurred_at?: string;
            /** @description the agent's time was more than 5 minutes ahead of the receive time or more than 7 days behind it: occurred_at is the receive time */
            clock_skew?: boolean;
            hostname: string;
            display_name?: string;
            os_family?: string;
            /** @description agent product: ssh-monitor or rdp-login-monitor */
            product?: string;
            /** @description source.product_version of the event */
            agent_version?: string;
            category?: string;
            type: string;
            /**
             * @description severity after the per-type override
             * @enum {string}
             */
            severity: 'info' | 'warning' | 'high' | 'critical';
            /** @description severity as the agent sent it */
            stored_severity?: string;
            title: string;
            summary?: string;
            tags?: string[];
            /** @description user the event is about, taken from `details` at store time (empty when none) */
            actor_user?: string;
            /** @description remote address named in `details` (empty when none) */
            source_ip?: string;
            /** @description true on the 302 and 303 events of an RD Gateway flap pair */
            flap: boolean;
            /** @description the type is hidden from lists by the visibility setting */
            hidden: boolean;
            /** @description the full event as sent by the agent (schema v1); source.agent_instance_id: admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            event: {
              [key: string]: unknown;
            };
            /** @description Who posted the event, judged against the binding of the host it names (issue 33). Gateway and terminate actions act only on `bound` events of a Windows agent (rdp-login-monitor). */
            provenance?: {
              /** @description the agent key ingest verified (null: not recorded) */
              agent_key_id: number | null;
              /**
               * @description bound: the host's bound key and agent instance, and an admin confirmed the host; unconfirmed_host: bound, not confirmed yet; other_key / other_instance: not the agent the host is bound to; no_key: stored without a verified key (before provenance was recorded); unbound_host: the host is bound to no key yet; unknown_host: no such host
               * @enum {string}
               */
              verdict: 'bound' | 'unconfirmed_host' | 'other_key' | 'other_instance' | 'no_key' | 'unbound_host' | 'unknown_host';
              /** @description the verdict in words */
              reason: string;
            };
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listHosts: {
    parameters: {
      query?: {
        search?: string;
        status?: 'online' | 'stale';
        /** @description true: only hosts with a pending change (GET /host-changes); false: only hosts without */
        pending?: boolean;
        /** @description 1-based page number */
        page?: number;
        /** @description rows per page (max 500) */
        page_size?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description rows matching the filters (all pages) */
            total: number;
            page: number;
            page_size: number;
            items: {
              id: number;
              hostname: string;
              display_name?: string | null;
              /**
               * @description computed when read from the last heartbeat
               * @enum {string}
               */
              status: 'online' | 'stale';
              os_family?: string;
              os_version?: string | null;
              fqdn?: string | null;
              ipv4?: string | null;
              product?: string;
              agent_version: string;
              /** Format: date-time */
              first_seen?: string;
              /**
               * Format: date-time
               * @description receive time of the latest event of any type
               */
              last_seen: string;
              /**
               * Format: date-time
               * @description receive time of the latest agent.heartbeat or report.daily.* event
               */
              last_heartbeat?: string | null;
              ssh_admin_ok?: boolean;
              /** @description open and acknowledged problems of visible types */
              live_problems?: number;
              /** @description pending changes (GET /host-changes?host_id=) an admin accepts or rejects before remote actions use them */
              pending_changes: number;
              /** @description kinds of the pending changes: identity = another agent instance or key speaks for the host (an identity conflict) */
              pending_change_kinds: ('facts' | 'identity' | 'winrm_certificate')[];
              /** @description an admin accepted the host's addresses (its first facts change); until then no WinRM, SSH or update action sends credentials to it */
              confirmed: boolean;
              /** @description latest version of the agent kind's update repository: what its branch head states (version.txt, …), else its newest tag (api/ACTIONS.md) */
              latest_version?: string | null;
              /** @description agent_version is older than latest_version */
              outdated?: boolean;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getHost: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            hostname: string;
            display_name?: string | null;
            /**
             * @description computed when read from the last heartbeat
             * @enum {string}
             */
            status: 'online' | 'stale';
            os_family?: string;
            os_version?: string | null;
            fqdn?: string | null;
            ipv4?: string | null;
            product?: string;
            agent_version: string;
            /** Format: date-time */
            first_seen?: string;
            /**
             * Format: date-time
             * @description receive time of the latest event of any type
             */
            last_seen: string;
            /**
             * Format: date-time
             * @description receive time of the latest agent.heartbeat or report.daily.* event
             */
            last_heartbeat?: string | null;
            ssh_admin_ok?: boolean;
            /** @description open and acknowledged problems of visible types */
            live_problems?: number;
            /** @description pending changes (GET /host-changes?host_id=) an admin accepts or rejects before remote actions use them */
            pending_changes: number;
            /** @description kinds of the pending changes: identity = another agent instance or key speaks for the host (an identity conflict) */
            pending_change_kinds: ('facts' | 'identity' | 'winrm_certificate')[];
            /** @description an admin accepted the host's addresses (its first facts change); until then no WinRM, SSH or update action sends credentials to it */
            confirmed: boolean;
            /** @description latest version of the agent kind's update repository: what its branch head states (version.txt, …), else its newest tag (api/ACTIONS.md) */
            latest_version?: string | null;
            /** @description agent_version is older than latest_version */
            outdated?: boolean;
            ipv6?: string | null;
            timezone?: string | null;
            /** @description the bound agent instance (set by the first events, changed only by an accepted identity change); admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            agent_instance_id?: string | null;
            internal_address?: string | null;
            /** @description addresses an admin accepted before ipv4 (a multi-homed host, e.g. a gateway with a LAN and a DMZ leg): an event carrying one is no change */
            known_ipv4?: string[];
            /** @description id of the agent key the host is bound to */
            bound_key_id?: number | null;
            /** @description name of that agent key */
            bound_key_name?: string | null;
            /**
             * Format: date-time
             * @description when the binding was made or last accepted
             */
            bound_at?: string | null;
            /** @description SHA-256 (hex) of the WinRM HTTPS certificate an admin accepted (pinned); null: none accepted yet */
            winrm_cert_sha256?: string | null;
            /**
             * Format: date-time
             * @description when an admin confirmed the host's addresses; null: not confirmed
             */
            confirmed_at?: string | null;
            /** @description the admin who confirmed them */
            confirmed_by?: string | null;
            /** Format: date-time */
            status_changed_at?: string | null;
            inventory?: {
              /** @description latest hardware snapshot (agent.inventory): any JSON, null when none */
              hardware?: unknown;
              /** @description latest software snapshot (agent.inventory): any JSON, null when none */
              software?: unknown;
              /** Format: date-time */
              at?: string | null;
            };
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  deleteHost: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            hostname: string;
            problems_deleted: number;
            /**
             * @description the ClickHouse mutation was accepted
             * @enum {string}
             */
            events: 'deletion_submitted';
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  resetHostSshKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            hostname: string;
            /** @description the SHA-256 (hex) of the key that was pinned; null when none was */
            previous_sha256: string | null;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listHostChanges: {
    parameters: {
      query?: {
        status?: 'pending' | 'accepted' | 'rejected';
        kind?: 'facts' | 'identity' | 'winrm_certificate';
        host_id?: number;
        /** @description case-insensitive substring of the hostname or display name */
        search?: string;
        /** @description 1-based page number */
        page?: number;
        /** @description rows per page (max 500) */
        page_size?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description rows matching the filters (all pages) */
            total: number;
            page: number;
            page_size: number;
            items: {
              id: number;
              host_id: number;
              hostname: string;
              display_name: string | null;
              /**
               * @description facts: the bound agent reports other addresses, FQDN, OS family or product; identity: another agent instance or key speaks for the host, or an event without an instance id for a host bound to one (an identity conflict, also a host_identity_conflict problem; accepted one by one only); winrm_certificate (accepted one by one only): the host's WinRM HTTPS certificate differs from the accepted one (or none is accepted yet: a certificate is pinned only when an admin accepts it). A new host has a facts change with empty `current`: until it is accepted the host is unconfirmed and no credentialed action runs against it
               * @enum {string}
               */
              kind: 'facts' | 'identity' | 'winrm_certificate';
              /** @enum {string} */
              status: 'pending' | 'accepted' | 'rejected';
              /** @description what accepting applies to the host */
              proposed: {
                os_family?: string | null;
                product?: string | null;
                fqdn?: string | null;
                ipv4?: string | null;
                internal_address?: string | null;
                /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
                agent_instance_id?: string | null;
                key_id?: number | null;
                cert_sha256?: string | null;
                /** @description winrm_certificate: the subject of the certificate the host presented */
                cert_subject?: string | null;
                /** @description winrm_certificate: its issuer */
                cert_issuer?: string | null;
                cert_valid_from?: string | null;
                cert_valid_to?: string | null;
              } & {
                [key: string]: unknown;
              };
              /** @description the confirmed values when the change was first seen */
              current: {
                os_family?: string | null;
                product?: string | null;
                fqdn?: string | null;
                ipv4?: string | null;
                internal_address?: string | null;
                /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
                agent_instance_id?: string | null;
                key_id?: number | null;
                cert_sha256?: string | null;
                /** @description winrm_certificate: the subject of the certificate the host presented */
                cert_subject?: string | null;
                /** @description winrm_certificate: its issuer */
                cert_issuer?: string | null;
                cert_valid_from?: string | null;
                cert_valid_to?: string | null;
              } & {
                [key: string]: unknown;
              };
              /** @description agent instance of the event that proposed it; admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              agent_instance_id: string | null;
              /** @description agent key of that event */
              key_id: number | null;
              /** @description name of the proposed agent key */
              key_name: string | null;
              /** @description name of the agent key in `current` (the bound key) */
              current_key_name: string | null;
              /** @description the latest event that proposed it */
              event_id?: string | null;
              /** Format: date-time */
              first_seen: string;
              /** Format: date-time */
              last_seen: string;
              /** @description events that proposed it */
              seen_count: number;
              /** @description the admin who accepted or rejected it */
              decided_by: string | null;
              /** Format: date-time */
              decided_at: string | null;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getHostChange: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            host_id: number;
            hostname: string;
            display_name: string | null;
            /**
             * @description facts: the bound agent reports other addresses, FQDN, OS family or product; identity: another agent instance or key speaks for the host, or an event without an instance id for a host bound to one (an identity conflict, also a host_identity_conflict problem; accepted one by one only); winrm_certificate (accepted one by one only): the host's WinRM HTTPS certificate differs from the accepted one (or none is accepted yet: a certificate is pinned only when an admin accepts it). A new host has a facts change with empty `current`: until it is accepted the host is unconfirmed and no credentialed action runs against it
             * @enum {string}
             */
            kind: 'facts' | 'identity' | 'winrm_certificate';
            /** @enum {string} */
            status: 'pending' | 'accepted' | 'rejected';
            /** @description what accepting applies to the host */
            proposed: {
              os_family?: string | null;
              product?: string | null;
              fqdn?: string | null;
              ipv4?: string | null;
              internal_address?: string | null;
              /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              agent_instance_id?: string | null;
              key_id?: number | null;
              cert_sha256?: string | null;
              /** @description winrm_certificate: the subject of the certificate the host presented */
              cert_subject?: string | null;
              /** @description winrm_certificate: its issuer */
              cert_issuer?: string | null;
              cert_valid_from?: string | null;
              cert_valid_to?: string | null;
            } & {
              [key: string]: unknown;
            };
            /** @description the confirmed values when the change was first seen */
            current: {
              os_family?: string | null;
              product?: string | null;
              fqdn?: string | null;
              ipv4?: string | null;
              internal_address?: string | null;
              /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              agent_instance_id?: string | null;
              key_id?: number | null;
              cert_sha256?: string | null;
              /** @description winrm_certificate: the subject of the certificate the host presented */
              cert_subject?: string | null;
              /** @description winrm_certificate: its issuer */
              cert_issuer?: string | null;
              cert_valid_from?: string | null;
              cert_valid_to?: string | null;
            } & {
              [key: string]: unknown;
            };
            /** @description agent instance of the event that proposed it; admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            agent_instance_id: string | null;
            /** @description agent key of that event */
            key_id: number | null;
            /** @description name of the proposed agent key */
            key_name: string | null;
            /** @description name of the agent key in `current` (the bound key) */
            current_key_name: string | null;
            /** @description the latest event that proposed it */
            event_id?: string | null;
            /** Format: date-time */
            first_seen: string;
            /** Format: date-time */
            last_seen: string;
            /** @description events that proposed it */
            seen_count: number;
            /** @description the admin who accepted or rejected it */
            decided_by: string | null;
            /** Format: date-time */
            decided_at: string | null;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  acceptHostChange: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description the proposal as shown to the admin: decided only while it is still this one (else 409, reason CHANGED) */
          proposed?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            host_id: number;
            hostname: string;
            display_name: string | null;
            /**
             * @description facts: the bound agent reports other addresses, FQDN, OS family or product; identity: another agent instance or key speaks for the host, or an event without an instance id for a host bound to one (an identity conflict, also a host_identity_conflict problem; accepted one by one only); winrm_certificate (accepted one by one only): the host's WinRM HTTPS certificate differs from the accepted one (or none is accepted yet: a certificate is pinned only when an admin accepts it). A new host has a facts change with empty `current`: until it is accepted the host is unconfirmed and no credentialed action runs against it
             * @enum {string}
             */
            kind: 'facts' | 'identity' | 'winrm_certificate';
            /** @enum {string} */
            status: 'pending' | 'accepted' | 'rejected';
            /** @description what accepting applies to the host */
            proposed: {
              os_family?: string | null;
              product?: string | null;
              fqdn?: string | null;
              ipv4?: string | null;
              internal_address?: string | null;
              /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              agent_instance_id?: string | null;
              key_id?: number | null;
              cert_sha256?: string | null;
              /** @description winrm_certificate: the subject of the certificate the host presented */
              cert_subject?: string | null;
              /** @description winrm_certificate: its issuer */
              cert_issuer?: string | null;
              cert_valid_from?: string | null;
              cert_valid_to?: string | null;
            } & {
              [key: string]: unknown;
            };
            /** @description the confirmed values when the change was first seen */
            current: {
              os_family?: string | null;
              product?: string | null;
              fqdn?: string | null;
              ipv4?: string | null;
              internal_address?: string | null;
              /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              agent_instance_id?: string | null;
              key_id?: number | null;
              cert_sha256?: string | null;
              /** @description winrm_certificate: the subject of the certificate the host presented */
              cert_subject?: string | null;
              /** @description winrm_certificate: its issuer */
              cert_issuer?: string | null;
              cert_valid_from?: string | null;
              cert_valid_to?: string | null;
            } & {
              [key: string]: unknown;
            };
            /** @description agent instance of the event that proposed it; admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            agent_instance_id: string | null;
            /** @description agent key of that event */
            key_id: number | null;
            /** @description name of the proposed agent key */
            key_name: string | null;
            /** @description name of the agent key in `current` (the bound key) */
            current_key_name: string | null;
            /** @description the latest event that proposed it */
            event_id?: string | null;
            /** Format: date-time */
            first_seen: string;
            /** Format: date-time */
            last_seen: string;
            /** @description events that proposed it */
            seen_count: number;
            /** @description the admin who accepted or rejected it */
            decided_by: string | null;
            /** Format: date-time */
            decided_at: string | null;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description CONFLICT: no longer pending or changed */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  acceptHostChanges: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** @description Exactly one of `ids`, `changes` (ids with the proposal shown, decided only while unchanged) or `all: true` (every pending change under kind, host_id and search, at most 1000 a call; `remaining` says how many are left). A bulk accept takes `changes` only (400 otherwise): it applies nothing the admin did not see. */
    requestBody: {
      content: {
        'application/json': {
          ids?: number[];
          changes?: {
            id: number;
            proposed: {
              [key: string]: unknown;
            };
          }[];
          /** @enum {boolean} */
          all?: true;
          /**
           * @description with `all`
           * @enum {string}
           */
          kind?: 'facts' | 'identity' | 'winrm_certificate';
          /** @description with `all` */
          host_id?: number;
          /** @description with `all`: substring of the hostname or display name */
          search?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description changes this call accepted or rejected */
            decided: number;
            /** @description changes no longer pending (another decision came first) or changed */
            conflicts: number;
            /** @description identity and certificate changes a bulk accept left pending (ONE_BY_ONE) */
            refused: number;
            not_found: number;
            /** @description with `all`: pending changes still matching the filters (call again) */
            remaining: number;
            /** @description one outcome per change, in the order asked */
            items: {
              id: number;
              /**
               * @description accepted/rejected: decided by this call; conflict: no longer pending (ALREADY_DECIDED) or changed (CHANGED); refused: an identity or winrm_certificate change in a bulk accept (ONE_BY_ONE: still pending, accept it with POST /host-changes/{id}/accept); not_found: no such change
               * @enum {string}
               */
              outcome: 'accepted' | 'rejected' | 'conflict' | 'refused' | 'not_found';
              /** @enum {string} */
              reason?: 'ALREADY_DECIDED' | 'CHANGED' | 'ONE_BY_ONE';
              /**
               * @description the change's status after this call
               * @enum {string}
               */
              status?: 'pending' | 'accepted' | 'rejected';
              host_id?: number;
              hostname?: string;
              /** @enum {string} */
              kind?: 'facts' | 'identity' | 'winrm_certificate';
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  rejectHostChange: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description the proposal as shown to the admin: decided only while it is still this one (else 409, reason CHANGED) */
          proposed?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            host_id: number;
            hostname: string;
            display_name: string | null;
            /**
             * @description facts: the bound agent reports other addresses, FQDN, OS family or product; identity: another agent instance or key speaks for the host, or an event without an instance id for a host bound to one (an identity conflict, also a host_identity_conflict problem; accepted one by one only); winrm_certificate (accepted one by one only): the host's WinRM HTTPS certificate differs from the accepted one (or none is accepted yet: a certificate is pinned only when an admin accepts it). A new host has a facts change with empty `current`: until it is accepted the host is unconfirmed and no credentialed action runs against it
             * @enum {string}
             */
            kind: 'facts' | 'identity' | 'winrm_certificate';
            /** @enum {string} */
            status: 'pending' | 'accepted' | 'rejected';
            /** @description what accepting applies to the host */
            proposed: {
              os_family?: string | null;
              product?: string | null;
              fqdn?: string | null;
              ipv4?: string | null;
              internal_address?: string | null;
              /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              agent_instance_id?: string | null;
              key_id?: number | null;
              cert_sha256?: string | null;
              /** @description winrm_certificate: the subject of the certificate the host presented */
              cert_subject?: string | null;
              /** @description winrm_certificate: its issuer */
              cert_issuer?: string | null;
              cert_valid_from?: string | null;
              cert_valid_to?: string | null;
            } & {
              [key: string]: unknown;
            };
            /** @description the confirmed values when the change was first seen */
            current: {
              os_family?: string | null;
              product?: string | null;
              fqdn?: string | null;
              ipv4?: string | null;
              internal_address?: string | null;
              /** @description admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              agent_instance_id?: string | null;
              key_id?: number | null;
              cert_sha256?: string | null;
              /** @description winrm_certificate: the subject of the certificate the host presented */
              cert_subject?: string | null;
              /** @description winrm_certificate: its issuer */
              cert_issuer?: string | null;
              cert_valid_from?: string | null;
              cert_valid_to?: string | null;
            } & {
              [key: string]: unknown;
            };
            /** @description agent instance of the event that proposed it; admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            agent_instance_id: string | null;
            /** @description agent key of that event */
            key_id: number | null;
            /** @description name of the proposed agent key */
            key_name: string | null;
            /** @description name of the agent key in `current` (the bound key) */
            current_key_name: string | null;
            /** @description the latest event that proposed it */
            event_id?: string | null;
            /** Format: date-time */
            first_seen: string;
            /** Format: date-time */
            last_seen: string;
            /** @description events that proposed it */
            seen_count: number;
            /** @description the admin who accepted or rejected it */
            decided_by: string | null;
            /** Format: date-time */
            decided_at: string | null;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description CONFLICT: no longer pending or changed */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  rejectHostChanges: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** @description Exactly one of `ids`, `changes` (ids with the proposal shown, decided only while unchanged) or `all: true` (every pending change under kind, host_id and search, at most 1000 a call; `remaining` says how many are left). A bulk accept takes `changes` only (400 otherwise): it applies nothing the admin did not see. */
    requestBody: {
      content: {
        'application/json': {
          ids?: number[];
          changes?: {
            id: number;
            proposed: {
              [key: string]: unknown;
            };
          }[];
          /** @enum {boolean} */
          all?: true;
          /**
           * @description with `all`
           * @enum {string}
           */
          kind?: 'facts' | 'identity' | 'winrm_certificate';
          /** @description with `all` */
          host_id?: number;
          /** @description with `all`: substring of the hostname or display name */
          search?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description changes this call accepted or rejected */
            decided: number;
            /** @description changes no longer pending (another decision came first) or changed */
            conflicts: number;
            /** @description identity and certificate changes a bulk accept left pending (ONE_BY_ONE) */
            refused: number;
            not_found: number;
            /** @description with `all`: pending changes still matching the filters (call again) */
            remaining: number;
            /** @description one outcome per change, in the order asked */
            items: {
              id: number;
              /**
               * @description accepted/rejected: decided by this call; conflict: no longer pending (ALREADY_DECIDED) or changed (CHANGED); refused: an identity or winrm_certificate change in a bulk accept (ONE_BY_ONE: still pending, accept it with POST /host-changes/{id}/accept); not_found: no such change
               * @enum {string}
               */
              outcome: 'accepted' | 'rejected' | 'conflict' | 'refused' | 'not_found';
              /** @enum {string} */
              reason?: 'ALREADY_DECIDED' | 'CHANGED' | 'ONE_BY_ONE';
              /**
               * @description the change's status after this call
               * @enum {string}
               */
              status?: 'pending' | 'accepted' | 'rejected';
              host_id?: number;
              hostname?: string;
              /** @enum {string} */
              kind?: 'facts' | 'identity' | 'winrm_certificate';
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listProblems: {
    parameters: {
      query?: {
        /** @description one status or a comma list */
        status?: string;
        /** @description exact hostname */
        host?: string;
        /** @description type prefix on dot boundaries */
        type?: string;
        /** @description one of info, warning, high, critical or a comma list */
        severity?: string;
        created_within_hours?: number;
        /** @description order of the list: created_at, last_seen, count or severity (the effective one: critical > high > warning > info); `-` first for descending. Ties: newest created first. */
        sort?: 'created_at' | '-created_at' | 'last_seen' | '-last_seen' | 'count' | '-count' | 'severity' | '-severity';
        /** @description 1-based page number */
        page?: number;
        /** @description rows per page (max 500) */
        page_size?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description rows matching the filters (all pages) */
            total: number;
            page: number;
            page_size: number;
            counts: {
              open: number;
              acknowledged: number;
              resolved: number;
            };
            items: {
              /** Format: uuid */
              id: string;
              /** @enum {string} */
              status: 'open' | 'acknowledged' | 'resolved';
              /** @description host|type|rule */
              fingerprint?: string;
              /** @description hostname */
              host: string;
              /** @description id of the host record (null once the host was deleted) */
              host_id?: number | null;
              display_name?: string | null;
              type: string;
              rule?: string;
              title?: string;
              /**
               * @description after the per-type override
               * @enum {string}
               */
              severity: 'info' | 'warning' | 'high' | 'critical';
              stored_severity?: string;
              /** @description correlated events */
              count: number;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              last_seen: string;
              /** Format: date-time */
              acknowledged_at?: string | null;
              acknowledged_by?: string | null;
              /** Format: date-time */
              resolved_at?: string | null;
              /** @enum {string|null} */
              resolved_by?: 'manual' | 'auto' | null;
              resolved_by_user?: string | null;
              /** @description the operator's message on the current acknowledgement */
              acknowledged_message?: string | null;
              /** @description the operator's message on the current manual resolution */
              resolved_message?: string | null;
              reopened_count?: number;
              rdg_flap: boolean;
              /** @description what the rule recorded; agent_instance_id keys (a host_identity_conflict's bound, latest, recent): admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
              details?: {
                [key: string]: unknown;
              };
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getProblem: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: 'open' | 'acknowledged' | 'resolved';
            /** @description host|type|rule */
            fingerprint?: string;
            /** @description hostname */
            host: string;
            /** @description id of the host record (null once the host was deleted) */
            host_id?: number | null;
            display_name?: string | null;
            type: string;
            rule?: string;
            title?: string;
            /**
             * @description after the per-type override
             * @enum {string}
             */
            severity: 'info' | 'warning' | 'high' | 'critical';
            stored_severity?: string;
            /** @description correlated events */
            count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_seen: string;
            /** Format: date-time */
            acknowledged_at?: string | null;
            acknowledged_by?: string | null;
            /** Format: date-time */
            resolved_at?: string | null;
            /** @enum {string|null} */
            resolved_by?: 'manual' | 'auto' | null;
            resolved_by_user?: string | null;
            /** @description the operator's message on the current acknowledgement */
            acknowledged_message?: string | null;
            /** @description the operator's message on the current manual resolution */
            resolved_message?: string | null;
            reopened_count?: number;
            rdg_flap: boolean;
            /** @description what the rule recorded; agent_instance_id keys (a host_identity_conflict's bound, latest, recent): admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            details?: {
              [key: string]: unknown;
            };
            /** @description events of the problem, oldest first */
            timeline: {
              /** Format: uuid */
              event_id: string;
              /** Format: date-time */
              occurred_at: string;
              /** Format: date-time */
              received_at?: string;
              type: string;
              severity: string;
              title: string;
              flap: boolean;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  acknowledgeProblem: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description optional operator message (at most 1000 characters; blank = none), shown in the timeline */
          message?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: 'open' | 'acknowledged' | 'resolved';
            /** @description host|type|rule */
            fingerprint?: string;
            /** @description hostname */
            host: string;
            /** @description id of the host record (null once the host was deleted) */
            host_id?: number | null;
            display_name?: string | null;
            type: string;
            rule?: string;
            title?: string;
            /**
             * @description after the per-type override
             * @enum {string}
             */
            severity: 'info' | 'warning' | 'high' | 'critical';
            stored_severity?: string;
            /** @description correlated events */
            count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_seen: string;
            /** Format: date-time */
            acknowledged_at?: string | null;
            acknowledged_by?: string | null;
            /** Format: date-time */
            resolved_at?: string | null;
            /** @enum {string|null} */
            resolved_by?: 'manual' | 'auto' | null;
            resolved_by_user?: string | null;
            /** @description the operator's message on the current acknowledgement */
            acknowledged_message?: string | null;
            /** @description the operator's message on the current manual resolution */
            resolved_message?: string | null;
            reopened_count?: number;
            rdg_flap: boolean;
            /** @description what the rule recorded; agent_instance_id keys (a host_identity_conflict's bound, latest, recent): admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            details?: {
              [key: string]: unknown;
            };
            /** @description events of the problem, oldest first */
            timeline: {
              /** Format: uuid */
              event_id: string;
              /** Format: date-time */
              occurred_at: string;
              /** Format: date-time */
              received_at?: string;
              type: string;
              severity: string;
              title: string;
              flap: boolean;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description CONFLICT: the problem state does not allow it */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  resolveProblem: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description optional operator message (at most 1000 characters; blank = none), shown in the timeline */
          message?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: 'open' | 'acknowledged' | 'resolved';
            /** @description host|type|rule */
            fingerprint?: string;
            /** @description hostname */
            host: string;
            /** @description id of the host record (null once the host was deleted) */
            host_id?: number | null;
            display_name?: string | null;
            type: string;
            rule?: string;
            title?: string;
            /**
             * @description after the per-type override
             * @enum {string}
             */
            severity: 'info' | 'warning' | 'high' | 'critical';
            stored_severity?: string;
            /** @description correlated events */
            count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_seen: string;
            /** Format: date-time */
            acknowledged_at?: string | null;
            acknowledged_by?: string | null;
            /** Format: date-time */
            resolved_at?: string | null;
            /** @enum {string|null} */
            resolved_by?: 'manual' | 'auto' | null;
            resolved_by_user?: string | null;
            /** @description the operator's message on the current acknowledgement */
            acknowledged_message?: string | null;
            /** @description the operator's message on the current manual resolution */
            resolved_message?: string | null;
            reopened_count?: number;
            rdg_flap: boolean;
            /** @description what the rule recorded; agent_instance_id keys (a host_identity_conflict's bound, latest, recent): admins only: null or left out for monitors and for every mobile device token (an admin's phone too): with the fleet key, a host's instance id would fetch that host's agent commands */
            details?: {
              [key: string]: unknown;
            };
            /** @description events of the problem, oldest first */
            timeline: {
              /** Format: uuid */
              event_id: string;
              /** Format: date-time */
              occurred_at: string;
              /** Format: date-time */
              received_at?: string;
              type: string;
              severity: string;
              title: string;
              flap: boolean;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description CONFLICT: the problem state does not allow it */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  bulkProblemAction: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          ids: string[];
          /** @enum {string} */
          action: 'acknowledge' | 'resolve';
          /** @description optional operator message (at most 1000 characters; blank = none), shown in the timeline */
          message?: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description problems this call acknowledged or resolved */
            done: number;
            /** @description problems whose state forbade the act */
            conflicts: number;
            not_found: number;
            /** @description one outcome per id, in the order given */
            items: {
              /** Format: uuid */
              id: string;
              /** @enum {string} */
              outcome: 'acknowledged' | 'resolved' | 'conflict' | 'not_found';
              /**
               * @description with conflict
               * @enum {string}
               */
              reason?: 'ALREADY_ACKNOWLEDGED' | 'ALREADY_RESOLVED';
              /**
               * @description the problem's status after this call
               * @enum {string}
               */
              status?: 'open' | 'acknowledged' | 'resolved';
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getDashboardSummary: {
    parameters: {
      query?: {
        /** @description rolling window ending now (default 24h when neither range nor from/to is given) */
        range?: '15m' | '1h' | '24h' | '7d';
        /** @description occurred_at from (inclusive): YYYY-MM-DD or ISO 8601 date-time, as on GET /events */
        from?: string;
        /** @description occurred_at to (inclusive, to the second): YYYY-MM-DD (whole day) or ISO 8601 date-time; default now */
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: date-time */
            generated_at: string;
            /** @description occurred_at window of the event figures: [from, to) (to exclusive), its length in hours (0.01) */
            window: {
              /** Format: date-time */
              from: string;
              /** Format: date-time */
              to: string;
              hours: number;
            };
            /** @description events of visible types in the window */
            events_24h: number;
            /** @description events in the window by severity after the per-type override */
            severity: {
              info: number;
              warning: number;
              high: number;
              critical: number;
            };
            /** @description events per UTC hour of the window, every hour it touches (the first and last may be partial), empty hours as 0 */
            events_by_hour: {
              hour: string;
              events: number;
            }[];
            /** @description the 10 hosts with the most events in the window */
            top_hosts: {
              hostname: string;
              display_name?: string | null;
              events: number;
            }[];
            /** @description the 10 most frequent types in the window */
            top_event_types: {
              type: string;
              events: number;
            }[];
            /** @description events of type report.daily.* in the window */
            daily_reports_24h: number;
            heartbeats: {
              /** @description agent.heartbeat events in the window */
              events_24h: number;
              /** @description hosts that sent at least one agent.heartbeat in the window */
              hosts_24h: number;
              /**
               * Format: date-time
               * @description latest heartbeat/daily report of any host
               */
              last_heartbeat_at: string | null;
            };
            hosts: {
              total: number;
              online: number;
              stale: number;
            };
            /** @description problems in status open (any age) */
            open_problems: number;
            /** @description problems in status acknowledged (any age) */
            acknowledged_problems: number;
            /** @description metrics rule: problems created in the last 24 h (whatever the window); total = open + acknowledged; resolved counted apart */
            problems_24h: {
              open: number;
              acknowledged: number;
              total: number;
              resolved: number;
            };
            /** @description the 10 newest events */
            recent_events: {
              /** Format: uuid */
              event_id: string;
              /**
               * Format: date-time
               * @description time on the host (UTC, second precision); the receive time when the host's clock was off (clock_skew): every window and order uses this
               */
              occurred_at: string;
              /**
               * Format: date-time
               * @description time the service received it (UTC, second precision)
               */
              received_at: string;
              /**
               * Format: date-time
               * @description occurred_at as the agent sent it (UTC, second precision)
               */
              agent_occurred_at?: string;
              /** @description the agent's time was more than 5 minutes ahead of the receive time or more than 7 days behind it: occurred_at is the receive time */
              clock_skew?: boolean;
              hostname: string;
              display_name?: string;
              os_family?: string;
              /** @description agent product: ssh-monitor or rdp-login-monitor */
              product?: string;
              /** @description source.product_version of the event */
              agent_version?: string;
              category?: string;
              type: string;
              /**
               * @description severity after the per-type override
               * @enum {string}
               */
              severity: 'info' | 'warning' | 'high' | 'critical';
              /** @description severity as the agent sent it */
              stored_severity?: string;
              title: string;
              summary?: string;
              tags?: string[];
              /** @description user the event is about, taken from `details` at store time (empty when none) */
              actor_user?: string;
              /** @description remote address named in `details` (empty when none) */
              source_ip?: string;
              /** @description true on the 302 and 303 events of an RD Gateway flap pair */
              flap: boolean;
            }[];
          };
        };
      };
      /** @description BAD_REQUEST */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  streamEvents: {
    parameters: {
      query?: {
        /** @description access JWT (EventSource cannot send headers) */
        access_token?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description an endless text/event-stream */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': string;
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description TOO_MANY_STREAMS: the user holds SERVICE_STREAM_MAX_PER_USER streams already */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getActions: {
    parameters: {
      query?: {
        host_id?: number;
        kind?: string;
        before_id?: number;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              id: number;
              /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
              kind: string;
              host_id?: number | null;
              hostname?: string | null;
              /** @description user who started it */
              actor: string;
              /** @description client address of the request */
              address?: string | null;
              params?: {
                [key: string]: unknown;
              };
              /**
               * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
               * @enum {string}
               */
              status: 'queued' | 'running' | 'succeeded' | 'failed';
              /**
               * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
               * @enum {string|null}
               */
              transport?: 'winrm' | 'agent' | null;
              /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
              result?: {
                [key: string]: unknown;
              } | null;
              /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
              error?: string | null;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              started_at?: string | null;
              /** Format: date-time */
              finished_at?: string | null;
              /** @description from start (or creation when it never started) to finish */
              duration_ms?: number | null;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getActionsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postHostsIdActionsWinrmTest: {
    parameters: {
      query?: {
        /** @description true: answer when the action finished (200, or 400 ACTION_FAILED, or 504 when it takes longer than SERVICE_ACTION_WAIT_MS); false: answer 202 at once and poll GET /actions/{id}. Default true. */
        wait?: boolean;
      };
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postHostsIdActionsSessions: {
    parameters: {
      query?: {
        /** @description true: answer when the action finished (200, or 400 ACTION_FAILED, or 504 when it takes longer than SERVICE_ACTION_WAIT_MS); false: answer 202 at once and poll GET /actions/{id}. Default true. */
        wait?: boolean;
      };
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postHostsIdActionsSessionsSessionIdLogoff: {
    parameters: {
      query?: {
        /** @description true: answer when the action finished (200, or 400 ACTION_FAILED, or 504 when it takes longer than SERVICE_ACTION_WAIT_MS); false: answer 202 at once and poll GET /actions/{id}. Default true. */
        wait?: boolean;
      };
      header?: never;
      path: {
        id: number;
        session_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postHostsIdActionsSshCheck: {
    parameters: {
      query?: {
        /** @description true: answer when the action finished (200, or 400 ACTION_FAILED, or 504 when it takes longer than SERVICE_ACTION_WAIT_MS); false: answer 202 at once and poll GET /actions/{id}. Default false. */
        wait?: boolean;
      };
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postHostsIdActionsAgentUpdate: {
    parameters: {
      query?: {
        /** @description true: answer when the action finished (200, or 400 ACTION_FAILED, or 504 when it takes longer than SERVICE_ACTION_WAIT_MS); false: answer 202 at once and poll GET /actions/{id}. Default false. */
        wait?: boolean;
      };
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getAgentBundlesIdZip: {
    parameters: {
      query: {
        expires: number;
        sig: string;
      };
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description the zip (repository at its branch plus VERSION) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/zip': string;
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/zip': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: invalid or expired link */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/zip': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/zip': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/zip': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postEventsEventIdActionsTerminateSession: {
    parameters: {
      query?: {
        /** @description true: answer when the action finished (200, or 400 ACTION_FAILED, or 504 when it takes longer than SERVICE_ACTION_WAIT_MS); false: answer 202 at once and poll GET /actions/{id}. Default true. */
        wait?: boolean;
      };
      header?: never;
      path: {
        event_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postEventsEventIdActionsGatewayQwinsta: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        event_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postEventsEventIdActionsGatewayLogoff: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        event_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          session_id?: number;
        } | null;
      };
    };
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getSettingsWinrm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description DOMAIN\user or user */
            username: string;
            /** @description the password is never returned */
            password_set: boolean;
            /** @enum {string|null} */
            password_source?: 'database' | 'environment' | null;
            /** @enum {string} */
            transport: 'http' | 'https';
            port: number;
            /**
             * @description HTTP authentication: basic or ntlm (NTLMv2)
             * @enum {string}
             */
            auth: 'basic' | 'ntlm';
            /** @description check the HTTPS certificate of the host */
            verify_tls: boolean;
            /** @description let WinRM run over plain HTTP (credentials readable on the path and by whatever answers at the host address; labs only). Off: HTTP is refused with 400. */
            allow_unencrypted: boolean;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putSettingsWinrm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          username?: string;
          password?: string | null;
          /** @enum {string} */
          transport?: 'http' | 'https';
          port?: number;
          /**
           * @description HTTP authentication: basic or ntlm (NTLMv2)
           * @enum {string}
           */
          auth?: 'basic' | 'ntlm';
          verify_tls?: boolean;
          allow_unencrypted?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description DOMAIN\user or user */
            username: string;
            /** @description the password is never returned */
            password_set: boolean;
            /** @enum {string|null} */
            password_source?: 'database' | 'environment' | null;
            /** @enum {string} */
            transport: 'http' | 'https';
            port: number;
            /**
             * @description HTTP authentication: basic or ntlm (NTLMv2)
             * @enum {string}
             */
            auth: 'basic' | 'ntlm';
            /** @description check the HTTPS certificate of the host */
            verify_tls: boolean;
            /** @description let WinRM run over plain HTTP (credentials readable on the path and by whatever answers at the host address; labs only). Off: HTTP is refused with 400. */
            allow_unencrypted: boolean;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getSettingsTargetNetworks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description the networks remote actions (SSH, WinRM) may connect to: every address a host resolves to must lie inside one; empty = none */
            networks: string[];
            /**
             * @description where the list in force comes from (null: nowhere, so no remote action connects)
             * @enum {string|null}
             */
            source: 'database' | 'environment' | null;
            /** @description SERVICE_ACTION_TARGET_NETWORKS (applies when none is saved) */
            environment: string[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putSettingsTargetNetworks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description CIDRs; `null` removes the saved list (the environment applies again). 0.0.0.0/0 and ::/0 are refused here (environment only); loopback and link-local addresses are reached only when a network inside them is listed (127.0.0.0/8). */
          networks: string[] | null;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description the networks remote actions (SSH, WinRM) may connect to: every address a host resolves to must lie inside one; empty = none */
            networks: string[];
            /**
             * @description where the list in force comes from (null: nowhere, so no remote action connects)
             * @enum {string|null}
             */
            source: 'database' | 'environment' | null;
            /** @description SERVICE_ACTION_TARGET_NETWORKS (applies when none is saved) */
            environment: string[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getSettingsSsh: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            username: string;
            /** @description the key is never returned */
            private_key_set: boolean;
            /** @enum {string|null} */
            private_key_source?: 'database' | 'environment' | null;
            port: number;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putSettingsSsh: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          username?: string;
          private_key?: string | null;
          port?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            username: string;
            /** @description the key is never returned */
            private_key_set: boolean;
            /** @enum {string|null} */
            private_key_source?: 'database' | 'environment' | null;
            port: number;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getSettingsAgentUpdates: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            linux: {
              /** @description the repository (shown without credentials; none are accepted in it) */
              git_url: string;
              /** @description the ref: a branch (updates install its head), or a tag or full commit id (updates install that commit) */
              branch: string;
              /** @description latest version of the repository: what the ref states (version.txt, …), else its newest tag, as last read */
              latest_version?: string | null;
              /** @description the commit latest_version was read at (a branch head moves; a tag or commit pins it) */
              commit?: string | null;
              /**
               * @description what `branch` named when last read
               * @enum {string|null}
               */
              ref_kind?: 'branch' | 'tag' | 'commit' | null;
              /**
               * Format: date-time
               * @description when the tags were last read (every SERVICE_VERSION_REFRESH_SECONDS)
               */
              checked_at?: string | null;
              /** @description why the last read failed */
              error?: string | null;
            };
            windows: {
              /** @description the repository (shown without credentials; none are accepted in it) */
              git_url: string;
              /** @description the ref: a branch (updates install its head), or a tag or full commit id (updates install that commit) */
              branch: string;
              /** @description latest version of the repository: what the ref states (version.txt, …), else its newest tag, as last read */
              latest_version?: string | null;
              /** @description the commit latest_version was read at (a branch head moves; a tag or commit pins it) */
              commit?: string | null;
              /**
               * @description what `branch` named when last read
               * @enum {string|null}
               */
              ref_kind?: 'branch' | 'tag' | 'commit' | null;
              /**
               * Format: date-time
               * @description when the tags were last read (every SERVICE_VERSION_REFRESH_SECONDS)
               */
              checked_at?: string | null;
              /** @description why the last read failed */
              error?: string | null;
            };
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putSettingsAgentUpdates: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          linux?: {
            git_url?: string;
            branch?: string;
          };
          windows?: {
            git_url?: string;
            branch?: string;
          };
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            linux: {
              /** @description the repository (shown without credentials; none are accepted in it) */
              git_url: string;
              /** @description the ref: a branch (updates install its head), or a tag or full commit id (updates install that commit) */
              branch: string;
              /** @description latest version of the repository: what the ref states (version.txt, …), else its newest tag, as last read */
              latest_version?: string | null;
              /** @description the commit latest_version was read at (a branch head moves; a tag or commit pins it) */
              commit?: string | null;
              /**
               * @description what `branch` named when last read
               * @enum {string|null}
               */
              ref_kind?: 'branch' | 'tag' | 'commit' | null;
              /**
               * Format: date-time
               * @description when the tags were last read (every SERVICE_VERSION_REFRESH_SECONDS)
               */
              checked_at?: string | null;
              /** @description why the last read failed */
              error?: string | null;
            };
            windows: {
              /** @description the repository (shown without credentials; none are accepted in it) */
              git_url: string;
              /** @description the ref: a branch (updates install its head), or a tag or full commit id (updates install that commit) */
              branch: string;
              /** @description latest version of the repository: what the ref states (version.txt, …), else its newest tag, as last read */
              latest_version?: string | null;
              /** @description the commit latest_version was read at (a branch head moves; a tag or commit pins it) */
              commit?: string | null;
              /**
               * @description what `branch` named when last read
               * @enum {string|null}
               */
              ref_kind?: 'branch' | 'tag' | 'commit' | null;
              /**
               * Format: date-time
               * @description when the tags were last read (every SERVICE_VERSION_REFRESH_SECONDS)
               */
              checked_at?: string | null;
              /** @description why the last read failed */
              error?: string | null;
            };
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postSettingsAgentUpdatesGitTest: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          git_url: string;
          branch: string;
        };
      };
    };
    responses: {
      /** @description finished (wait=true) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description queued (wait=false), or handed to the host's agent (transport agent, status queued: WinRM is not configured or not reachable; the agent polls every 60 s, the action expires after 10 minutes without its answer): poll GET /api/v1/actions/{id} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** @description winrm.test, winrm.sessions, winrm.logoff, winrm.logoff_user, ssh.check or agent.update */
            kind: string;
            host_id?: number | null;
            hostname?: string | null;
            /** @description user who started it */
            actor: string;
            /** @description client address of the request */
            address?: string | null;
            params?: {
              [key: string]: unknown;
            };
            /**
             * @description through the agent: queued until its poll (every 60 s) fetches the command, then running
             * @enum {string}
             */
            status: 'queued' | 'running' | 'succeeded' | 'failed';
            /**
             * @description how a Windows session action reached the host: over WinRM, or through the host's rdp-login-monitor agent (its command poll) when WinRM is not configured or not reachable; null for other kinds
             * @enum {string|null}
             */
            transport?: 'winrm' | 'agent' | null;
            /** @description what the action found or did (per kind, see api/ACTIONS.md); through the agent also transport_reason (why not WinRM, from the start) and agent_command_ids */
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description why it failed (WinRM/SSH error text, exit code and stderr tail, timeout) */
            error?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            /** @description from start (or creation when it never started) to finish */
            duration_ms?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED, ACTION_FAILED (the WinRM or SSH error; details.action_id) or ACTION_NOT_POSSIBLE (e.g. the host has no usable address; a session action with WinRM not configured on a host without a bound Windows agent) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND: host or event */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description ACTION_TIMEOUT: not finished within SERVICE_ACTION_WAIT_MS; details.action_id can still be polled */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getSettingsAgentConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description for every agent */
            all?: {
              [key: string]: unknown;
            };
            /** @description ssh-monitor agents (on top of all) */
            linux?: {
              [key: string]: unknown;
            };
            /** @description rdp-login-monitor agents (on top of all) */
            windows?: {
              [key: string]: unknown;
            };
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putSettingsAgentConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description for every agent */
          all?: {
            [key: string]: unknown;
          };
          /** @description ssh-monitor agents (on top of all) */
          linux?: {
            [key: string]: unknown;
          };
          /** @description rdp-login-monitor agents (on top of all) */
          windows?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description for every agent */
            all?: {
              [key: string]: unknown;
            };
            /** @description ssh-monitor agents (on top of all) */
            linux?: {
              [key: string]: unknown;
            };
            /** @description rdp-login-monitor agents (on top of all) */
            windows?: {
              [key: string]: unknown;
            };
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getHostsIdAgentCommands: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              id: number;
              hostname: string;
              /** @description what to do; an agent answers failed "unsupported" to a kind it does not know */
              kind: string;
              params: {
                [key: string]: unknown;
              };
              /** @enum {string} */
              status: 'pending' | 'delivered' | 'succeeded' | 'failed' | 'expired';
              created_by?: string | null;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              delivered_at?: string | null;
              /** Format: date-time */
              finished_at?: string | null;
              result?: {
                [key: string]: unknown;
              } | null;
              /** @description the session action that queued it (qwinsta/logoff through the agent, GET /actions/{id}); null when an admin queued it */
              action_id?: number | null;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postHostsIdAgentCommands: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description e.g. send_inventory, send_test_event, restart */
          kind: string;
          /** @description at most 4 KiB as JSON */
          params?: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            hostname: string;
            /** @description what to do; an agent answers failed "unsupported" to a kind it does not know */
            kind: string;
            params: {
              [key: string]: unknown;
            };
            /** @enum {string} */
            status: 'pending' | 'delivered' | 'succeeded' | 'failed' | 'expired';
            created_by?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            delivered_at?: string | null;
            /** Format: date-time */
            finished_at?: string | null;
            result?: {
              [key: string]: unknown;
            } | null;
            /** @description the session action that queued it (qwinsta/logoff through the agent, GET /actions/{id}); null when an admin queued it */
            action_id?: number | null;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getNotificationPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            min_severity: 'info' | 'warning' | 'high' | 'critical';
            channels: ('chat' | 'webhook' | 'email' | 'push')[];
            /** @enum {string} */
            source?: 'database' | 'environment';
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putNotificationPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          min_severity: 'info' | 'warning' | 'high' | 'critical';
          channels: ('chat' | 'webhook' | 'email' | 'push')[];
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            min_severity: 'info' | 'warning' | 'high' | 'critical';
            channels: ('chat' | 'webhook' | 'email' | 'push')[];
            /** @enum {string} */
            source?: 'database' | 'environment';
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getNotificationChannel_chat: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
            enabled?: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putNotificationChannel_chat: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          enabled?: boolean;
          /** Format: uri */
          telegram_api_base?: string;
          telegram_token?: string | null;
          destinations?: {
            id: string;
            /** @enum {string} */
            kind: 'telegram' | 'slack';
            /** @description telegram: numeric chat id or @channel */
            chat_id?: string;
            /**
             * Format: uri
             * @description slack-compatible hook URL (write-only)
             */
            url?: string;
            /** @description agent.lifecycle routing values; empty: all */
            routes?: string[];
          }[];
          /** @description private addresses, CIDRs (inside 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7) or host names the SSRF guard lets through (private ranges are refused otherwise); loopback, link-local, metadata and any-address ranges only from the environment (NOTIFY_<CHANNEL>_ALLOW) */
          allow?: string[];
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  testNotificationChannel_chat: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel: 'chat' | 'webhook' | 'email' | 'push';
            results: {
              destination: string;
              ok: boolean;
              response: string;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getNotificationChannel_webhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
            enabled?: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putNotificationChannel_webhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          enabled?: boolean;
          /** Format: uri */
          url?: string | null;
          /** @description HMAC-SHA256 signing secret (write-only) */
          secret?: string | null;
          timeout_ms?: number;
          /** @description private addresses, CIDRs (inside 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7) or host names the SSRF guard lets through (private ranges are refused otherwise); loopback, link-local, metadata and any-address ranges only from the environment (NOTIFY_<CHANNEL>_ALLOW) */
          allow?: string[];
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  testNotificationChannel_webhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel: 'chat' | 'webhook' | 'email' | 'push';
            results: {
              destination: string;
              ok: boolean;
              response: string;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getNotificationChannel_email: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
            enabled?: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putNotificationChannel_email: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          enabled?: boolean;
          host?: string | null;
          port?: number;
          /** @enum {string} */
          security?: 'starttls' | 'tls' | 'none';
          user?: string | null;
          password?: string | null;
          from?: string;
          recipients?: string[];
          verify_tls?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  testNotificationChannel_email: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel: 'chat' | 'webhook' | 'email' | 'push';
            results: {
              destination: string;
              ok: boolean;
              response: string;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getNotificationChannel_push: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
            enabled?: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  putNotificationChannel_push: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          enabled?: boolean;
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel?: 'chat' | 'webhook' | 'email' | 'push';
          } & {
            [key: string]: unknown;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  testNotificationChannel_push: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            channel: 'chat' | 'webhook' | 'email' | 'push';
            results: {
              destination: string;
              ok: boolean;
              response: string;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  explainNotification: {
    parameters: {
      query?: {
        event_id?: string;
        problem_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            subject: {
              [key: string]: unknown;
            };
            decisions: {
              subject_key: string;
              /** @description the notification rule that matched; null: nothing is sent */
              rule: string | null;
              reason: string;
              /** @enum {string} */
              severity?: 'info' | 'warning' | 'high' | 'critical';
              routes: {
                /** @enum {string} */
                channel: 'chat' | 'webhook' | 'email' | 'push';
                destination: string;
                chosen: boolean;
                reason: string;
              }[];
              /** @description true: what was decided when it arrived; false: computed now with the current policy */
              recorded: boolean;
              /** Format: date-time */
              created_at?: string;
              deliveries: {
                /** @description delivery id = BullMQ job id */
                id: string;
                subject_key: string;
                rule: string;
                /** @enum {string} */
                channel: 'chat' | 'webhook' | 'email' | 'push';
                destination: string;
                /** @enum {string} */
                state: 'queued' | 'sending' | 'sent' | 'failed';
                attempts: number;
                last_error: string | null;
                /** @description the provider's answer */
                response: string | null;
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                updated_at: string;
                /** Format: date-time */
                sent_at: string | null;
              }[];
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listNotificationDeliveries: {
    parameters: {
      query?: {
        state?: 'queued' | 'sending' | 'sent' | 'failed';
        channel?: 'chat' | 'webhook' | 'email' | 'push';
        limit?: number;
        /** @description page: deliveries changed before this time */
        before?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              /** @description delivery id = BullMQ job id */
              id: string;
              subject_key: string;
              rule: string;
              /** @enum {string} */
              channel: 'chat' | 'webhook' | 'email' | 'push';
              destination: string;
              /** @enum {string} */
              state: 'queued' | 'sending' | 'sent' | 'failed';
              attempts: number;
              last_error: string | null;
              /** @description the provider's answer */
              response: string | null;
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              updated_at: string;
              /** Format: date-time */
              sent_at: string | null;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listDailyReports: {
    parameters: {
      query?: {
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              id: number;
              /** Format: date */
              day: string;
              timezone: string;
              /** Format: date-time */
              period_start: string;
              /** Format: date-time */
              period_end: string;
              /** Format: date-time */
              created_at: string;
              figures: {
                [key: string]: unknown;
              };
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getDailyReport: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** Format: date */
            day: string;
            timezone: string;
            /** Format: date-time */
            period_start: string;
            /** Format: date-time */
            period_end: string;
            /** Format: date-time */
            created_at: string;
            figures: {
              [key: string]: unknown;
            };
            html: string;
            text: string;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  createEnrollmentCode: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          user_id?: number;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            code: string;
            /** Format: date-time */
            expires_at: string;
            user_id: number;
            username: string;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: user_id names another admin (details.reason ANOTHER_ADMIN) or the role does not allow it; DEVICE_SCOPE: a mobile device's token */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  listDevices: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: {
              id: number;
              /** Format: uuid */
              device_uuid: string;
              name: string;
              platform: string;
              user_id: number;
              username: string;
              /**
               * @description the device acts with its user's role
               * @enum {string}
               */
              role: 'admin' | 'monitor';
              /**
               * @description signed_out: no usable session (refresh token reused, session expired, password changed or user inactive): the device enrolls again; it gets no pushes meanwhile
               * @enum {string}
               */
              status: 'active' | 'signed_out' | 'revoked';
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              enrolled_at: string;
              /** @description enrollments of this device UUID (re-enrollment reuses the record) */
              enroll_count?: number;
              /** Format: date-time */
              last_used_at: string | null;
              /** Format: date-time */
              revoked_at?: string | null;
              revoked_by?: string | null;
              push_subscriptions?: number;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  revokeDevice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** Format: uuid */
            device_uuid: string;
            name: string;
            platform: string;
            user_id: number;
            username: string;
            /**
             * @description the device acts with its user's role
             * @enum {string}
             */
            role: 'admin' | 'monitor';
            /**
             * @description signed_out: no usable session (refresh token reused, session expired, password changed or user inactive): the device enrolls again; it gets no pushes meanwhile
             * @enum {string}
             */
            status: 'active' | 'signed_out' | 'revoked';
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            enrolled_at: string;
            /** @description enrollments of this device UUID (re-enrollment reuses the record) */
            enroll_count?: number;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            revoked_at?: string | null;
            revoked_by?: string | null;
            push_subscriptions?: number;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  deleteDevice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description FORBIDDEN: the role does not allow this operation; DEVICE_SCOPE: a mobile device's token; MFA_ENROLMENT_REQUIRED: SERVICE_REQUIRE_TOTP_FOR_ADMINS is on and the admin has no second factor yet */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  enrollDevice: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          code: string;
          /** Format: uuid */
          device_uuid: string;
          name: string;
          /** @enum {string} */
          platform: 'ios' | 'android' | 'web' | 'other';
        };
      };
    };
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            access_token: string;
            refresh_token: string;
            /** @enum {string} */
            token_type: 'Bearer';
            expires_in: number;
            refresh_expires_in: number;
            device: {
              id: number;
              /** Format: uuid */
              device_uuid: string;
              name: string;
              platform: string;
              user_id: number;
              username: string;
              /**
               * @description the device acts with its user's role
               * @enum {string}
               */
              role: 'admin' | 'monitor';
              /**
               * @description signed_out: no usable session (refresh token reused, session expired, password changed or user inactive): the device enrolls again; it gets no pushes meanwhile
               * @enum {string}
               */
              status: 'active' | 'signed_out' | 'revoked';
              /** Format: date-time */
              created_at: string;
              /** Format: date-time */
              enrolled_at: string;
              /** @description enrollments of this device UUID (re-enrollment reuses the record) */
              enroll_count?: number;
              /** Format: date-time */
              last_used_at: string | null;
              /** Format: date-time */
              revoked_at?: string | null;
              revoked_by?: string | null;
              push_subscriptions?: number;
            };
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INVALID_CODE */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getOwnDevice: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
            /** Format: uuid */
            device_uuid: string;
            name: string;
            platform: string;
            user_id: number;
            username: string;
            /**
             * @description the device acts with its user's role
             * @enum {string}
             */
            role: 'admin' | 'monitor';
            /**
             * @description signed_out: no usable session (refresh token reused, session expired, password changed or user inactive): the device enrolls again; it gets no pushes meanwhile
             * @enum {string}
             */
            status: 'active' | 'signed_out' | 'revoked';
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            enrolled_at: string;
            /** @description enrollments of this device UUID (re-enrollment reuses the record) */
            enroll_count?: number;
            /** Format: date-time */
            last_used_at: string | null;
            /** Format: date-time */
            revoked_at?: string | null;
            revoked_by?: string | null;
            push_subscriptions?: number;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getVapidPublicKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description base64url, uncompressed P-256 point */
            public_key: string;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  registerPushSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uri */
          endpoint: string;
          keys: {
            /** @description base64url P-256 public key (65 bytes) */
            p256dh: string;
            /** @description base64url auth secret (16 bytes) */
            auth: string;
          };
        } & {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: number;
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description CONFLICT: the endpoint belongs to another device */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  deletePushSubscription: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          endpoint: string;
        };
      };
    };
    responses: {
      /** @description Default Response */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  getSystemStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /**
             * Format: date-time
             * @description when the probes ran (cached for a few seconds)
             */
            generated_at: string;
            ingest: {
              /** @enum {string} */
              status: 'up' | 'down';
              /** @description events stored with received_at in the last full minute */
              events_last_minute: number | null;
              events_per_second: number | null;
            };
            consumers: {
              /** @enum {string} */
              status: 'up' | 'down';
              groups: {
                /** @description store, correlate, stream or notify */
                group: string;
                /** @description messages not yet committed by the group; null: unknown */
                lag: number | null;
                /** @description consumers in the group now */
                members: number | null;
                /** @description Kafka's group state (Stable, Empty, ...) */
                state: string | null;
              }[];
            };
            queues: {
              /** @enum {string} */
              status: 'up' | 'down';
              items: {
                queue: string;
                waiting: number;
                active: number;
                delayed: number;
                failed: number;
              }[];
            };
            stores: {
              /** @enum {string} */
              name: 'postgres' | 'redis' | 'clickhouse' | 'kafka';
              /** @enum {string} */
              status: 'up' | 'down';
              latency_ms: number | null;
              /** @enum {string|null} */
              error: 'timed out' | 'unreachable' | null;
            }[];
          };
        };
      };
      /** @description VALIDATION_FAILED: the request does not match the schema */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHENTICATED: missing, invalid or expired credentials, or a disabled user */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description DEVICE_SCOPE: a mobile device's token (api/MOBILE.md) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description INTERNAL: unexpected error (no internals are returned) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              /** @description stable machine-readable code, e.g. UNAUTHENTICATED */
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  agentPoll: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description host.hostname as in the events */
          hostname: string;
          /**
           * @description informational: the host's stored product decides
           * @enum {string}
           */
          product?: 'ssh-monitor' | 'rdp-login-monitor';
          /** @description the running agent version; it can only hold back an update offer (the stored version from the events decides), never cause one */
          product_version?: string;
          /** @description source.agent_instance_id as in the host's events; required when the host is bound to one (else the answer is empty) */
          agent_instance_id?: string;
        };
      };
    };
    responses: {
      /** @description what the agent should do */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description Commands not yet answered, oldest first (at most 20), delivered to this agent (key and agent_instance_id): only its result is taken. A command is delivered again when no result arrived within 10 minutes: run each id once and post its result. */
            commands: {
              id: number;
              kind: string;
              params: {
                [key: string]: unknown;
              };
              /** Format: date-time */
              created_at: string;
            }[];
            /** @description desired configuration (settings: all, then the kind) */
            config: {
              [key: string]: unknown;
            };
            /** @description A pending self-update: the agent runs its updater with git_url and branch and then sends an agent.update event. When it still reports an older version after SERVICE_AGENT_UPDATE_FALLBACK_MINUTES, the service updates it over SSH or WinRM. */
            update: {
              version: string;
              git_url: string;
              branch: string;
            } | null;
            /** @description when to poll next */
            poll_interval_seconds: number;
          };
        };
      };
      /** @description VALIDATION_FAILED */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHORIZED: missing or invalid agent API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: the key or the host is over its rate; Retry-After says when to poll again */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  postAgentCommandResult: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description with hostname in the body, the command id from POST /agent/poll; without, the id GET /agent/commands handed out */
        id: number;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description must be the host the command was for */
          hostname?: string;
          /** @description as in the poll that fetched the command (with hostname: required when that poll sent one; without: optional, and then must be it) */
          agent_instance_id?: string;
          /**
           * @description completed is stored as succeeded
           * @enum {string}
           */
          status: 'succeeded' | 'completed' | 'failed';
          exit_code?: number;
          /** @description what the command printed (truncated by the agent) */
          output?: string;
          /** @description the Windows agent's output (stored truncated to 16 KiB) */
          stdout?: string;
          /** @description the Windows agent's error output (stored truncated to 16 KiB) */
          stderr?: string;
        };
      };
    };
    responses: {
      /** @description recorded (was 204 before issue 22: agents count only 200/201) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @description the id as posted */
            id: number;
            /** @enum {string} */
            status: 'succeeded' | 'failed';
          };
        };
      };
      /** @description VALIDATION_FAILED */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description NOT_FOUND "no such command delivered to this agent": an unknown id, a command not delivered yet, or one delivered to another key, agent_instance_id or host */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description CONFLICT: the command already has a result (only the agent it was delivered to is told) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: the key or the named host is over its rate (Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
  agentCommands: {
    parameters: {
      query?: {
        agent_instance_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description commands to run */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            commands: {
              /** @description Not the command id: a random handle of this delivery (2^52 to 2^53-1) that only this agent learns; its result goes to /agent/commands/{this id}/result, and to any other id it is refused as unknown */
              id: number;
              /** @enum {string} */
              type: 'qwinsta' | 'logoff';
              params: {
                session_id: number | null;
              };
              /** @description always null: the agent runs as SYSTEM and needs no credentials, so none are ever sent */
              run_as: {
                [key: string]: unknown;
              } | null;
            }[];
          };
        };
      };
      /** @description UNAUTHORIZED: missing or invalid agent API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
      /** @description RATE_LIMITED: the key or the host is over its rate (Retry-After); the agent takes it as no commands */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            error: {
              code: string;
              message: string;
              details?: unknown;
            };
          };
        };
      };
    };
  };
}
