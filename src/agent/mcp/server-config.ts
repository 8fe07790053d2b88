import { SECRET_NAME } from '../../lib/secret-names.js'

/**
 * A variable or header given to an MCP server. Its value never reaches a log, the transcript or
 * the store; it is masked in the server's results when it is a secret (see {@link secretsOf}).
 */
export interface SecretPair {
  readonly name: string
  readonly value: string
  /** The user marked the value a secret although its name does not say so. */
  readonly secret?: true
}

/** An MCP server a session connects to (ACP `McpServer`: stdio or streamable HTTP). */
export type McpServerConfig =
  | {
      readonly transport: 'stdio'
      readonly name: string
      readonly command: string
      readonly args: readonly string[]
      readonly env: readonly SecretPair[]
      /** `false`: the server is not offered MCP roots (it keeps the directories of its own args). */
      readonly roots?: false
    }
  | {
      readonly transport: 'http'
      readonly name: string
      readonly url: string
      readonly headers: readonly SecretPair[]
      /** `false`: the server is not offered MCP roots. */
      readonly roots?: false
    }

/**
 * The secret values of a server's config, masked in what it answers: every header value; the value
 * of a variable whose name says key, token, secret, password, auth or credential, or that the user
 * marked. Other variables (`ROOT=/home/me/project`) are settings, shown as they are. Values under 4
 * characters are never masked (they would mask every word).
 */
export function secretsOf(config: McpServerConfig): string[] {
  const pairs =
    config.transport === 'stdio'
      ? config.env.filter((pair) => pair.secret === true || SECRET_NAME.test(pair.name))
      : config.headers
  return pairs.map((pair) => pair.value).filter((value) => value.length >= 4)
}

/**
 * Replaces every secret with `***`: each value whole, and each of its words of 8 characters or
 * more (the token of `Bearer <token>`), longest first so one inside another is hidden whole.
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const words = secrets.flatMap((secret) => [secret, ...secret.split(/\s+/).filter((w) => w.length >= 8)])
  const sorted = [...new Set(words)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length)
  if (sorted.length === 0) return (text) => text
  return (text) => sorted.reduce((out, secret) => out.split(secret).join('***'), text)
}

/** `text` with every secret of `config` hidden as {@link redactor} hides them, so it is safe to log or record. */
export function redact(text: string, config: McpServerConfig): string {
  return redactor(secretsOf(config))(text)
}

/** A tool name the model APIs accept: `mcp__<server>__<tool>`, odd characters as `_`, at most 64. */
export function namespacedToolName(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_')
  return `mcp__${clean(server)}__${clean(tool)}`.slice(0, 64)
}
