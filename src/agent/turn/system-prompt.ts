import type { InstructionFileData, Session } from '../../session/index.js'
import { DEFAULT_MODE, SESSION_MODES } from '../config/modes.js'
import { MAX_INSTRUCTION_BYTES } from '../instructions/agents-files.js'
import { recordedClientPrompt, withClientPrompt } from '../instructions/client-prompt.js'
import {
  type PromptInputs,
  type RecordedPromptInputs,
  recordedPromptInputs,
} from '../instructions/prompt-inputs.js'
import { UPDATE_PLAN_TOOL } from '../plan/update-plan-tool.js'
import type { ToolSpec } from '../types.js'
import { SYSTEM_PROMPT_SOURCE } from './system-prompt-text.gen.js'

/** What one system prompt is made of. */
export interface SystemPromptRequest {
  /**
   * What the session's log records (its last `instructions:set`). Absent (a session of a model
   * that takes no system prompt): the environment is the session's cwd alone, with no instructions.
   */
  readonly recorded: RecordedPromptInputs | undefined
  /** The session's cwd, used when nothing is recorded. */
  readonly cwd: string
  /** The session's mode for this request (the rules it states). */
  readonly mode: string
  /** The tools the model is offered in this request, in order. */
  readonly tools: readonly ToolSpec[]
}

/**
 * The system prompt a chat model gets before the conversation: the prose of `system-prompt.md`
 * with the guidance of each offered tool, the plan rules when `update_plan` is offered, the
 * mode's rules, the environment and the `AGENTS.md` instructions as the session recorded them.
 * Pure: the same log prefix, mode and tools give the same bytes, so a fork child, a subagent and a
 * session loaded later send the prefix their parent sent (the prompt cache depends on it).
 */
export function systemPrompt(request: SystemPromptRequest): string {
  const { template, modes, parts } = SYSTEM_PROMPT_SOURCE
  const mode = SESSION_MODES.find((m) => m.id === request.mode) ?? defaultMode()
  const offersPlan = request.tools.some((tool) => tool.name === UPDATE_PLAN_TOOL)
  const fills: Readonly<Record<string, string>> = {
    tools: toolGuide(request.tools),
    plan: offersPlan ? (parts.plan ?? '') : '',
    mode_name: mode.name,
    mode_rules: modes[mode.id] ?? '',
    environment: environment(request.recorded, request.cwd),
    instructions: instructions(request.recorded?.inputs.files ?? []),
  }
  const filled = template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => fills[name] ?? whole)
  return filled.replace(/\n{3,}/g, '\n\n').trim()
}

function defaultMode() {
  return SESSION_MODES.find((m) => m.id === DEFAULT_MODE) as (typeof SESSION_MODES)[number]
}

function toolGuide(tools: readonly ToolSpec[]): string {
  if (tools.length === 0) return 'You have no tools in this session: answer from the conversation.'
  const lines: string[] = []
  let mcp = false
  for (const tool of tools) {
    const guide = SYSTEM_PROMPT_SOURCE.tools[tool.name]
    if (guide !== undefined) lines.push(guide)
    else if (tool.name.startsWith('mcp__')) mcp = true
    else lines.push(`- \`${tool.name}\`: ${firstSentence(tool.description)}`)
  }
  if (mcp && SYSTEM_PROMPT_SOURCE.parts.mcp !== undefined) lines.push(SYSTEM_PROMPT_SOURCE.parts.mcp)
  return lines.join('\n')
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? ''
  const end = line.search(/\.(\s|$)/)
  return end === -1 ? line : line.slice(0, end + 1)
}

function environment(recorded: RecordedPromptInputs | undefined, cwd: string): string {
  const inputs: Partial<PromptInputs> = recorded?.inputs ?? {}
  const where = inputs.cwd ?? cwd
  const repository =
    inputs.gitRoot === undefined
      ? 'not inside a git repository'
      : `in the git repository at ${inputs.gitRoot}${inputs.gitBranch !== undefined ? `, on ${branchWords(inputs.gitBranch)}` : ''}`
  const lines = [`- Working directory: ${where} (${repository}).`]
  const directories = inputs.directories ?? []
  if (directories.length > 0)
    lines.push(`- Additional directories of the workspace: ${directories.join(', ')}.`)
  lines.push(
    '- File paths you give the tools must lie inside the working directory or an additional directory: absolute, or relative to the working directory.',
  )
  if (inputs.platform !== undefined) {
    lines.push(`- Platform: ${inputs.platform}${inputs.shell ? `; the user's shell: ${inputs.shell}` : ''}.`)
  }
  if (recorded !== undefined)
    lines.push(`- Date: ${recorded.time.slice(0, 10)} (when this session's instructions were read).`)
  return lines.join('\n')
}

function branchWords(branch: string): string {
  return branch.startsWith('detached at ') ? `a ${branch}` : `branch ${branch}`
}

function instructions(files: readonly InstructionFileData[]): string {
  if (files.length === 0) return ''
  const sections = files.map((file) => {
    const heading = `## ${file.path} (${scopeWords(file)})`
    const note = file.cut ? cutNote(file) : ''
    return [heading, file.text.trim(), note].filter((piece) => piece !== '').join('\n\n')
  })
  return [
    '# Instructions (AGENTS.md)',
    'The user and the project left these instructions for agents. Follow them unless the user says otherwise in this conversation; where two disagree, the later one here wins (it is closer to the work).',
    ...sections,
  ].join('\n\n')
}

function scopeWords(file: InstructionFileData): string {
  const dir = file.path.replace(/[\\/]AGENTS\.md$/, '')
  if (file.scope === 'user') return "the user's own, for every project"
  if (file.scope === 'directory') return `for the additional directory ${dir}`
  return `for ${dir} and everything below it`
}

function cutNote(file: InstructionFileData): string {
  const kept = Buffer.byteLength(file.text, 'utf8')
  const limit = `${MAX_INSTRUCTION_BYTES / 1024} KiB`
  if (kept === 0)
    return `[Not included: the instructions' size limit (${limit}) was spent on the files after it. The file has ${file.bytes} bytes; read it with a tool if it matters.]`
  return `[Cut: only the first ${kept} of this file's ${file.bytes} bytes are here (the instructions' size limit is ${limit}). Read the file for the rest.]`
}

/**
 * The system prompt of one request of `session` in `mode` offering `tools`, from its recorded
 * inputs, with the client's own system prompt (its last `instructions:client`) appended or in its place.
 */
export function sessionSystemPrompt(session: Session, mode: string, tools: readonly ToolSpec[]): string {
  const own = systemPrompt({ recorded: recordedPromptInputs(session), cwd: session.cwd, mode, tools })
  return withClientPrompt(own, recordedClientPrompt(session))
}
