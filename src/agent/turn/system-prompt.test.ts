import { describe, expect, it } from 'vitest'
import { systemPrompt } from './system-prompt.js'

describe('systemPrompt', () => {
  it('names the working directory and the tools, and says writes need permission', () => {
    const prompt = systemPrompt({
      cwd: '/work/project',
      tools: [
        { name: 'read_text_file', description: '', inputSchema: {} },
        { name: 'write_text_file', description: '', inputSchema: {} },
      ],
    })
    expect(prompt).toContain('/work/project')
    expect(prompt).toContain('read_text_file, write_text_file')
    expect(prompt).toContain('permission')
  })

  it('says nothing about tools when there are none', () => {
    expect(systemPrompt({ cwd: '/w', tools: [] })).not.toContain('tools:')
  })
})
