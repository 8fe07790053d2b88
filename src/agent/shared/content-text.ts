import type { ContentBlock } from '../../session/index.js'

/**
 * Renders ACP prompt content as plain text for a text-only model: `text` as is, a `resource_link`
 * as a reference line, an embedded text `resource` as its text in a fenced block named by its uri
 * (a blob resource as a note that binary content was left out), and any other block (image, audio)
 * as a note naming its type. Blocks are joined with a blank line.
 */
export function contentToText(blocks: readonly ContentBlock[]): string {
  return blocks.map(blockToText).join('\n\n')
}

function blockToText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : ''
    case 'resource_link': {
      const name = typeof block.name === 'string' ? block.name : ''
      const uri = typeof block.uri === 'string' ? block.uri : ''
      return `[resource: ${name || uri}${name && uri ? ` <${uri}>` : ''}]`
    }
    case 'resource': {
      const resource = block.resource
      if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) return '[resource]'
      const fields = resource as { readonly [key: string]: unknown }
      const uri = typeof fields.uri === 'string' ? fields.uri : 'resource'
      if (typeof fields.text === 'string') return `<context uri="${uri}">\n${fields.text}\n</context>`
      return `[binary resource left out: ${uri}]`
    }
    default:
      return `[${block.type} left out]`
  }
}
