import type { SandboxMode } from '../../agent/tools/command/sandbox-mode.js'
import type { LogLevelName } from '../log-levels.js'

/** The types of a valid configuration file (file-schema.ts says the same in JSON Schema). */

export interface ModelEntry {
  readonly name: string
  readonly title?: string
  readonly contextWindow?: number
  readonly prices?: {
    readonly input: number
    readonly cachedInput?: number
    readonly output: number
    readonly currency?: string
  }
  readonly imageInput?: boolean
  readonly reasoningEffort?: 'low' | 'medium' | 'high'
}

export interface ProviderEntry {
  readonly title?: string
  readonly baseUrl: string
  readonly apiKeyEnv?: string
  readonly keyRequired?: boolean
  readonly models: readonly ModelEntry[]
}

interface Pair {
  readonly name: string
  readonly value: string
  readonly secret?: boolean
}

export type McpServerEntry =
  | {
      readonly type?: 'stdio'
      readonly name: string
      readonly command: string
      readonly args?: readonly string[]
      readonly env?: readonly Pair[]
    }
  | { readonly type: 'http'; readonly name: string; readonly url: string; readonly headers?: readonly Pair[] }

export interface LimitsEntry {
  readonly maxSteps?: number
  readonly mcpTimeoutMs?: number
  readonly maxRetries?: number
  readonly requestTimeout?: number
  readonly maxLineBytes?: number
  readonly maxSubagents?: number
  readonly subagentMaxSteps?: number
  readonly mcpSamplingPerTurn?: number
}

export type ModeName = 'ask' | 'accept-edits' | 'read-only'

/** `config.json` in the user's config directory. */
export interface UserConfigFile {
  readonly providers?: Readonly<Record<string, ProviderEntry>>
  readonly defaultModel?: string
  readonly defaultMode?: ModeName
  readonly mcpServers?: readonly McpServerEntry[]
  readonly limits?: LimitsEntry
  readonly sandbox?: {
    readonly mode?: SandboxMode
    readonly network?: boolean
    readonly passEnv?: readonly string[]
  }
  readonly logLevel?: LogLevelName
}

/** `.dsh-acp/config.json` in a project's root. */
export interface ProjectConfigFile {
  readonly defaultModel?: string
  readonly defaultMode?: ModeName
  readonly mcpServers?: readonly McpServerEntry[]
  readonly limits?: LimitsEntry
}
