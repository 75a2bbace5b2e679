// The two agents the service updates and configures: ssh-monitor on Linux, rdp-login-monitor on Windows.
// Its own file, below both the settings (per-kind update repositories) and the latest versions read
// from them (per-kind cache), so neither imports the other for it.
export type AgentKind = 'linux' | 'windows';
