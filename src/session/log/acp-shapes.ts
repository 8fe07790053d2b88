import type * as acp from '@agentclientprotocol/sdk'
import type { JsonValue } from './event-values.js'

/**
 * An ACP shape as the session log holds it: the SDK's type, with the members it leaves open
 * (`unknown`, such as `_meta`) narrowed to JSON. Every value of it is also a value of the SDK type.
 */
export type AsJson<T> = unknown extends T
  ? JsonValue
  : T extends string | number | boolean | null
    ? T
    : T extends readonly (infer Item)[]
      ? AsJson<Item>[]
      : { [K in keyof T]: AsJson<T[K]> }

/** ACP `ContentBlock` (text, image, audio, resource_link, resource), as JSON. */
export type ContentBlock = AsJson<acp.ContentBlock>

/** ACP `ToolCallContent` (`content`, `diff` or `terminal`): what the editor shows for a call, as JSON. */
export type ToolCallContent = AsJson<acp.ToolCallContent>

/** ACP `ToolCallLocation`: a file (absolute path) and, when known, a 1-based line, as JSON. */
export type ToolCallLocation = AsJson<acp.ToolCallLocation>
