import type { FromSchema } from 'json-schema-to-ts'
import type { PROJECT_FILE_SCHEMA, USER_FILE_SCHEMA } from './file-schema.js'

/** The types of a valid configuration file, inferred from its schema (file-schema.ts). */

/** `config.json` in the user's config directory. */
export type UserConfigFile = FromSchema<typeof USER_FILE_SCHEMA>

/** `.dsh-acp/config.json` in a project's root. */
export type ProjectConfigFile = FromSchema<typeof PROJECT_FILE_SCHEMA>

export type ProviderEntry = NonNullable<UserConfigFile['providers']>[string]

export type ModelEntry = ProviderEntry['models'][number]

export type McpServerEntry = NonNullable<UserConfigFile['mcpServers']>[number]

export type LimitsEntry = NonNullable<UserConfigFile['limits']>

export type ModeName = NonNullable<UserConfigFile['defaultMode']>
