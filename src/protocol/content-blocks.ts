import type { ContentBlock } from '../session/index.js'
import { ProtocolError } from './errors.js'

type Fields = Record<string, unknown>
type Check = (block: Fields) => string | undefined

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isString = (value: unknown) => typeof value === 'string'

/** `undefined` when every listed field is a string; else what is wrong. */
function strings(
  block: Fields,
  required: readonly string[],
  optional: readonly string[] = [],
): string | undefined {
  for (const field of required) if (!isString(block[field])) return `${field} must be a string`
  for (const field of optional) {
    if (block[field] !== undefined && block[field] !== null && !isString(block[field]))
      return `${field} must be a string`
  }
  return undefined
}

/** Per block type: the prompt capability it needs (if any) and the shape ACP's schema requires. */
const BLOCKS: Readonly<Record<string, { needs?: 'image' | 'audio' | 'embeddedContext'; check: Check }>> = {
  text: { check: (b) => strings(b, ['text']) },
  resource_link: {
    check: (b) =>
      strings(b, ['uri', 'name'], ['title', 'description', 'mimeType']) ??
      (b.size !== undefined && b.size !== null && !Number.isSafeInteger(b.size)
        ? 'size must be an integer'
        : undefined),
  },
  image: { needs: 'image', check: (b) => strings(b, ['data', 'mimeType'], ['uri']) },
  audio: { needs: 'audio', check: (b) => strings(b, ['data', 'mimeType']) },
  resource: {
    needs: 'embeddedContext',
    check: (b) => {
      const resource = b.resource
      if (!isObject(resource)) return 'resource must be an object'
      const contents = isString(resource.text) ? ['uri', 'text'] : ['uri', 'blob']
      const problem = strings(resource, contents, ['mimeType'])
      return problem === undefined ? undefined : `resource.${problem}`
    },
  },
}

/**
 * A prompt's content blocks, checked against ACP's content block shapes and the prompt
 * capabilities this agent advertises, so nothing the log keeps (and `session/load` replays) is
 * malformed. Throws -32602 naming the block and what is wrong.
 */
export function promptBlocks(
  method: string,
  prompt: unknown,
  supported: Readonly<Record<string, boolean>>,
): ContentBlock[] {
  if (!Array.isArray(prompt))
    throw ProtocolError.invalidParams(`${method}: prompt must be an array of content blocks`)
  prompt.forEach((block: unknown, index) => {
    const fail = (problem: string) =>
      ProtocolError.invalidParams(`${method}: prompt[${index}] ${problem}`, { field: `prompt[${index}]` })
    if (!isObject(block) || !isString(block.type))
      throw fail('is not a content block (an object with a type)')
    // Own keys only: `__proto__`, `constructor` or `toString` are no block types.
    const kind = Object.hasOwn(BLOCKS, block.type as string) ? BLOCKS[block.type as string] : undefined
    if (!kind) throw fail(`has unknown type ${JSON.stringify(block.type)}`)
    if (kind.needs !== undefined && !supported[kind.needs]) {
      throw fail(`is ${block.type} content, which this agent does not accept (see promptCapabilities)`)
    }
    const problem = kind.check(block)
    if (problem !== undefined) throw fail(`(${block.type}): ${problem}`)
    for (const field of ['annotations', '_meta']) {
      if (block[field] !== undefined && block[field] !== null && !isObject(block[field])) {
        throw fail(`(${block.type}): ${field} must be an object`)
      }
    }
  })
  return prompt as ContentBlock[]
}
