import type { ContentBlock } from '../../../session/index.js'
import type { ToolCallContent, ToolResult } from '../../types.js'
import { redactor } from '../server-config.js'

/**
 * The most of one MCP tool result that is kept (stored, sent to the editor, read by the model):
 * 4 MiB, counted in characters over its text, its images' and audio's base64 data, its embedded
 * resources and, when it has no content, its structured content as JSON. Parts past it are cut
 * (text) or dropped (everything else), and the model and the editor are told what was cut.
 */
export const MCP_RESULT_LIMIT = 4 * 1024 * 1024

/** An MCP `CallToolResult` as the SDK parsed it (content blocks of the types MCP defines). */
export interface McpCallResult {
  readonly content?: unknown
  readonly isError?: unknown
  readonly structuredContent?: unknown
}

interface Part {
  readonly type?: unknown
  readonly [key: string]: unknown
}

/**
 * An MCP `CallToolResult` as a tool result. The model reads the text parts, each other part as a
 * placeholder (`[image image/png]`, `[resource_link NAME URI]`, an embedded resource's text), and
 * images as images when its model accepts them (they are the result's `content`). The editor gets
 * every part as an ACP content block (text, image, audio, resource_link, resource) when there is
 * any but text; a text-only result is shown as its output. Every secret in `secrets` is replaced
 * by `***` in every string but base64 data, and the result is held to `limit` characters.
 */
export function toolResultOf(
  result: McpCallResult,
  options: { readonly secrets?: readonly string[]; readonly limit?: number } = {},
): ToolResult {
  const hide = redactor(options.secrets ?? [])
  const budget = new Budget(options.limit ?? MCP_RESULT_LIMIT)
  const parts = Array.isArray(result.content) ? (result.content as Part[]) : []
  const texts: string[] = []
  const blocks: ContentBlock[] = []
  let rich = false
  for (const part of parts) {
    const block = budget.fit(blockOf(part, hide))
    if (block === undefined) continue
    if (block.type !== 'text') rich = true
    blocks.push(block)
    texts.push(placeholder(block))
  }
  let output = texts.join('\n')
  if (output === '' && result.structuredContent !== undefined) {
    output = budget.cutText(hide(JSON.stringify(result.structuredContent)))
  }
  const note = budget.note(parts.length)
  if (note !== undefined) {
    output = output === '' ? note : `${output}\n${note}`
    blocks.push({ type: 'text', text: note })
  }
  const content: ToolCallContent[] | undefined = rich
    ? blocks.map((block) => ({ type: 'content', content: block }))
    : undefined
  return {
    output,
    ...(result.isError === true && { isError: true }),
    ...(content !== undefined && { content }),
  }
}

/** The ACP block for one MCP content part, from its known fields only (strings redacted). */
function blockOf(part: Part, hide: (text: string) => string): ContentBlock {
  const str = (value: unknown) => (typeof value === 'string' ? hide(value) : undefined)
  const optional = (fields: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<string, string>
  switch (part.type) {
    case 'text':
      return { type: 'text', text: str(part.text) ?? '' }
    case 'image':
    case 'audio':
      if (typeof part.data === 'string' && typeof part.mimeType === 'string')
        return { type: part.type, data: part.data, mimeType: hide(part.mimeType) }
      break
    case 'resource_link':
      if (typeof part.uri === 'string') {
        const size = typeof part.size === 'number' && Number.isSafeInteger(part.size) ? part.size : undefined
        return {
          type: 'resource_link',
          uri: hide(part.uri),
          name: str(part.name) ?? hide(part.uri),
          ...optional({
            title: str(part.title),
            description: str(part.description),
            mimeType: str(part.mimeType),
          }),
          ...(size !== undefined && size >= 0 && { size }),
        }
      }
      break
    case 'resource': {
      const resource = (part.resource ?? {}) as Part
      const uri = str(resource.uri) ?? ''
      const mimeType = optional({ mimeType: str(resource.mimeType) })
      if (typeof resource.text === 'string')
        return { type: 'resource', resource: { uri, text: hide(resource.text), ...mimeType } }
      if (typeof resource.blob === 'string')
        return { type: 'resource', resource: { uri, blob: resource.blob, ...mimeType } }
      break
    }
    default:
      break
  }
  return { type: 'text', text: `[${hide(String(part.type))} content this client cannot show]` }
}

/** What the model reads for a block (besides the image itself, when it takes images). */
function placeholder(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}]`
    case 'resource_link':
      return `[resource_link ${block.name} ${block.uri}]`
    case 'resource':
      return 'text' in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`
  }
}

/** A result's size allowance: what fits is kept, text is cut at the limit, other parts dropped. */
class Budget {
  private used = 0
  private dropped = 0
  private cut = false

  constructor(private readonly limit: number) {}

  fit(block: ContentBlock): ContentBlock | undefined {
    const size = sizeOf(block)
    if (this.used + size <= this.limit) {
      this.used += size
      return block
    }
    if (block.type === 'text' && this.used < this.limit)
      return { type: 'text', text: this.cutText(block.text) }
    this.dropped++
    return undefined
  }

  cutText(text: string): string {
    if (this.used + text.length <= this.limit) {
      this.used += text.length
      return text
    }
    const room = Math.max(0, this.limit - this.used)
    this.used = this.limit
    this.cut = true
    return text.slice(0, room)
  }

  /** The note saying what was cut, or undefined when nothing was. */
  note(parts: number): string | undefined {
    if (!this.cut && this.dropped === 0) return undefined
    const what = [
      ...(this.cut ? ['its text was cut there'] : []),
      ...(this.dropped > 0 ? [`${this.dropped} of its ${parts} parts were left out`] : []),
    ]
    return `[MCP result cut: it is larger than the ${this.limit}-character limit; ${what.join(' and ')}]`
  }
}

function sizeOf(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return block.text.length
    case 'image':
    case 'audio':
      return block.data.length
    case 'resource_link':
      return block.uri.length + block.name.length
    case 'resource':
      return (
        block.resource.uri.length +
        ('text' in block.resource ? block.resource.text : block.resource.blob).length
      )
  }
}
