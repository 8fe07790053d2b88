import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { RecordedPromptInputs } from '../instructions/prompt-inputs.js'
import type { ToolSpec } from '../types.js'
import { systemPrompt } from './system-prompt.js'
import { parseSystemPromptSource } from './system-prompt-source.js'
import { SYSTEM_PROMPT_SOURCE } from './system-prompt-text.gen.js'

const tool = (name: string, description = ''): ToolSpec => ({ name, description, inputSchema: {} })
const BUILTIN = ['read_text_file', 'edit_text_file', 'run_command', 'update_plan'].map((name) => tool(name))

const recorded: RecordedPromptInputs = {
  seq: 1,
  time: '2026-03-04T05:06:07.000Z',
  inputs: {
    platform: 'linux x64',
    shell: '/bin/bash',
    cwd: '/repo/pkg',
    directories: ['/other'],
    gitRoot: '/repo',
    gitBranch: 'main',
    files: [
      { path: '/home/u/.config/dsh-acp/AGENTS.md', scope: 'user', text: 'Be brief.', bytes: 9, cut: false },
      { path: '/repo/AGENTS.md', scope: 'project', text: 'Use tabs.', bytes: 9, cut: false },
      { path: '/repo/pkg/AGENTS.md', scope: 'project', text: 'Use spaces here.', bytes: 40_000, cut: true },
    ],
  },
}

describe('systemPrompt', () => {
  it('is generated from system-prompt.md (run `npm run generate` after editing the prose)', () => {
    const markdown = readFileSync(new URL('./system-prompt.md', import.meta.url), 'utf8')
    expect(SYSTEM_PROMPT_SOURCE).toEqual(parseSystemPromptSource(markdown))
  })

  it('guides each offered tool, and only those', () => {
    const prompt = systemPrompt({ recorded, cwd: '/repo/pkg', mode: 'ask', tools: BUILTIN })
    for (const name of ['read_text_file', 'edit_text_file', 'run_command', 'update_plan'])
      expect(prompt).toContain(`- \`${name}\`:`)
    expect(prompt).not.toContain('- `write_text_file`:')
    expect(prompt).not.toContain('- `delegate`:')
  })

  it('says when to keep a plan only while update_plan is offered', () => {
    const withPlan = systemPrompt({ recorded, cwd: '/repo/pkg', mode: 'ask', tools: BUILTIN })
    expect(withPlan).toContain('# Keeping a plan')
    expect(withPlan).toContain('Do not make a plan for a question you answer at once')
    const without = systemPrompt({ recorded, cwd: '/repo/pkg', mode: 'ask', tools: [tool('read_text_file')] })
    expect(without).not.toContain('Keeping a plan')
  })

  it("states the mode's rules", () => {
    const readOnly = systemPrompt({ recorded, cwd: '/repo/pkg', mode: 'read-only', tools: [] })
    expect(readOnly).toContain("# The session's mode: Read only")
    expect(readOnly).toContain('Only tools that change nothing are offered')
    const ask = systemPrompt({ recorded, cwd: '/repo/pkg', mode: 'ask', tools: [] })
    expect(ask).toContain('The user approves each change')
  })

  it('names the environment: cwd, repository and branch, directories, platform, shell and date', () => {
    const prompt = systemPrompt({ recorded, cwd: '/repo/pkg', mode: 'ask', tools: [] })
    expect(prompt).toContain(
      '- Working directory: /repo/pkg (in the git repository at /repo, on branch main).',
    )
    expect(prompt).toContain('- Additional directories of the workspace: /other.')
    expect(prompt).toContain("- Platform: linux x64; the user's shell: /bin/bash.")
    expect(prompt).toContain('- Date: 2026-03-04')
  })

  it('holds the AGENTS.md texts in order, each with where it came from, and a note on a cut one', () => {
    const prompt = systemPrompt({ recorded, cwd: '/repo/pkg', mode: 'ask', tools: [] })
    const user = prompt.indexOf("## /home/u/.config/dsh-acp/AGENTS.md (the user's own, for every project)")
    const root = prompt.indexOf('## /repo/AGENTS.md (for /repo and everything below it)')
    const closest = prompt.indexOf('## /repo/pkg/AGENTS.md (for /repo/pkg and everything below it)')
    expect(user).toBeGreaterThan(0)
    expect(root).toBeGreaterThan(user)
    expect(closest).toBeGreaterThan(root)
    expect(prompt).toContain('where two disagree, the later one here wins')
    expect(prompt.slice(closest)).toContain('Use spaces here.')
    expect(prompt.slice(closest)).toContain("[Cut: only the first 16 of this file's 40000 bytes are here")
  })

  it('leaves no placeholder unfilled and no instructions section without files', () => {
    const prompt = systemPrompt({ recorded: undefined, cwd: '/w', mode: 'ask', tools: [] })
    expect(prompt).not.toMatch(/\{\{\w+\}\}/)
    expect(prompt).not.toContain('AGENTS.md')
    expect(prompt).toContain('- Working directory: /w (not inside a git repository).')
    expect(prompt).toContain('You have no tools in this session')
  })

  it('lists an unknown tool by the first sentence of its description, MCP tools once together', () => {
    const prompt = systemPrompt({
      recorded,
      cwd: '/repo/pkg',
      mode: 'ask',
      tools: [tool('custom', 'Does X. Then Y.'), tool('mcp__a__b'), tool('mcp__c__d')],
    })
    expect(prompt).toContain('- `custom`: Does X.')
    expect(prompt.match(/mcp__<server>__<tool>/g)).toHaveLength(1)
  })
})
