import { SECRET_NAME } from '../../../lib/secret-names.js'

/**
 * The variables a command gets from the agent's environment when nobody configured more: what a
 * shell and common tools need to find programs, the user, the locale and the terminal. Everything
 * else (provider keys, cloud credentials, tokens) stays with the agent.
 */
export const COMMAND_ENV_ALLOWED = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'COLORTERM',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
] as const

/** Locale variables (`LC_ALL`, `LC_CTYPE`, ...) pass like the allowed names. */
const LOCALE = /^LC_[A-Z_]+$/

/** Which variables of the agent's environment a command may see. */
export interface CommandEnvPolicy {
  /** Names the user asked to pass besides the allowed ones (`--pass-env`, `sandbox.passEnv`). */
  readonly pass?: readonly string[]
  /**
   * Names the configuration gives to secrets (each provider's `apiKeyEnv`, the variables MCP
   * servers are configured with): never passed, even when named in `pass`.
   */
  readonly deny?: readonly string[]
}

/** Always withheld: the agent's own key and settings, and the OpenAI client's. */
const AGENT_OWN = /^(DSH_|OPENAI_)/

/**
 * The environment of a command: from `source`, the allowed names, the locale and the names in
 * `pass`; never a name in `deny` or an agent variable (`DSH_*`, `OPENAI_*`); never a name that
 * says key, token, secret, password, auth or credential unless `pass` names it exactly.
 */
export function commandEnvironment(
  policy: CommandEnvPolicy = {},
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const allowed = new Set<string>(COMMAND_ENV_ALLOWED)
  const passed = new Set(policy.pass ?? [])
  const denied = new Set(policy.deny ?? [])
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || denied.has(name) || AGENT_OWN.test(name)) continue
    const wanted = passed.has(name) || allowed.has(name) || LOCALE.test(name)
    // A secret-looking name passes only when the user named it.
    if (wanted && (passed.has(name) || !SECRET_NAME.test(name))) env[name] = value
  }
  return env
}
