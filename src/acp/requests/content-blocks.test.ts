import { describe, expect, it } from 'vitest'
import { validateAcpDefinition } from '../../../test/support/acp-schema.js'
import { validateParams } from '../validate-params.js'
import { promptBlocks } from './content-blocks.js'

const ALL = { image: true, audio: true, embeddedContext: true }
const NONE = { image: false, audio: false, embeddedContext: false }

const valid = [
  { type: 'text', text: 'hi' },
  { type: 'text', text: 'hi', annotations: { priority: 1 }, _meta: { x: 1 } },
  { type: 'resource_link', uri: 'file:///a.ts', name: 'a.ts', mimeType: 'text/x-typescript', size: 12 },
  { type: 'image', data: 'aGk=', mimeType: 'image/png' },
  { type: 'audio', data: 'aGk=', mimeType: 'audio/wav' },
  { type: 'resource', resource: { uri: 'file:///a.ts', text: 'x' } },
  { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'aGk=' } },
]

const invalid = [
  { type: 'text' },
  { type: 'text', text: 3 },
  { type: 'resource_link', uri: 'file:///a' },
  { type: 'resource_link', uri: 'file:///a', name: 'a', size: '12' },
  { type: 'image', data: 'aGk=' },
  { type: 'audio', mimeType: 'audio/wav' },
  { type: 'resource', resource: { uri: 'file:///a' } },
  { type: 'resource', resource: 'file:///a' },
  { type: 'text', text: 'x', annotations: 'loud' },
  { type: 'video', data: 'x' },
  { type: '__proto__', text: 'x' },
  { text: 'no type' },
  'text',
  null,
]

const prompt = (blocks: unknown) => validateParams('session/prompt', { sessionId: 's', prompt: blocks })

describe('prompt content blocks', () => {
  it.each(valid)('accepts what the ACP schema accepts: %j', (block) => {
    expect(validateAcpDefinition('ContentBlock', block)).toEqual([])
    expect(() => prompt([block])).not.toThrow()
    expect(promptBlocks('session/prompt', [block] as never, ALL)).toEqual([block])
  })

  it.each(invalid)('refuses with -32602 what the ACP schema refuses: %j', (block) => {
    expect(validateAcpDefinition('ContentBlock', block)).not.toEqual([])
    expect(() => prompt([block])).toThrow(expect.objectContaining({ code: -32602 }))
  })

  it('refuses image, audio and embedded resources the agent does not advertise', () => {
    for (const block of valid.filter((b) => ['image', 'audio', 'resource'].includes(b.type))) {
      expect(() => promptBlocks('session/prompt', [block] as never, NONE)).toThrow(/does not accept/)
    }
    expect(promptBlocks('session/prompt', [valid[0], valid[2]] as never, NONE)).toHaveLength(2)
  })

  it('names the field that is wrong', () => {
    expect(() => prompt([valid[0], { type: 'text' }])).toThrow('session/prompt: prompt[1].text is required')
    expect(() => prompt([{ type: 'text', text: 3 }])).toThrow(
      'session/prompt: prompt[0].text must be of type string',
    )
    expect(() => prompt([{ type: 'video' }])).toThrow(
      'session/prompt: prompt[0].type "video" is not one of the types ACP defines here',
    )
    expect(() => prompt('hi')).toThrow('session/prompt: prompt must be of type array')
  })
})
