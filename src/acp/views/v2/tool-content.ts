import type * as acp from '@agentclientprotocol/sdk'
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2'
import { gitPatch } from './git-patch.js'

/**
 * A tool call (v1's `tool_call` or `tool_call_update`, or a permission request's) as v2's
 * `ToolCallUpdate` upsert: the same fields, with its content in v2's words. Fields v1 left out
 * stay out (v2: unchanged).
 */
export function toolCallV2(call: acp.ToolCallUpdate | acp.ToolCall): v2.ToolCallUpdate {
  const { content, locations, ...fields } = call
  return {
    ...fields,
    ...(content !== undefined && { content: content === null ? null : contentV2(content) }),
    ...(locations !== undefined && { locations }),
  }
}

/**
 * v1's tool call content as v2's: text and resources as they are; a diff as v2's `diff` (its
 * change, `add` for a new file, else `modify`, with a `git_patch`); a client terminal's reference
 * is left out (v2 clients have no client terminals, and none is made for them).
 */
function contentV2(content: readonly acp.ToolCallContent[]): v2.ToolCallContent[] {
  const out: v2.ToolCallContent[] = []
  for (const item of content) {
    if (item.type === 'content') out.push({ type: 'content', content: item.content })
    else if (item.type === 'diff') out.push(diffV2(item))
  }
  return out
}

function diffV2(diff: acp.Diff): v2.ToolCallContent {
  const added = diff.oldText === null || diff.oldText === undefined
  const text = gitPatch(diff.path, diff.oldText, diff.newText)
  const change: v2.DiffChange = added
    ? { operation: 'add', path: diff.path }
    : { operation: 'modify', path: diff.path }
  return {
    type: 'diff',
    changes: [change],
    ...(text !== '' && { patch: { format: 'git_patch' as const, text } }),
  }
}
