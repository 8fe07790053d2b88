/**
 * The system prompt's prose (`system-prompt.md`), split into what `system-prompt.ts` assembles:
 * the template (everything before the first `## kind: name` heading), and the parts by kind:
 * `tool` (guidance for one tool), `mode` (one session mode's rules) and `part` (pieces used when
 * they apply). HTML comments are dropped; each piece is trimmed.
 */
export interface SystemPromptSource {
  readonly template: string
  readonly tools: Readonly<Record<string, string>>
  readonly modes: Readonly<Record<string, string>>
  readonly parts: Readonly<Record<string, string>>
}

const PART_HEADING = /^## (tool|mode|part): (\S+)\s*$/

/** Splits the Markdown source; throws on a part named twice or a heading kind it does not know. */
export function parseSystemPromptSource(markdown: string): SystemPromptSource {
  const text = markdown.replace(/<!--[\s\S]*?-->\n?/g, '')
  const lines = text.split('\n')
  const template: string[] = []
  const groups: Record<'tool' | 'mode' | 'part', Record<string, string>> = { tool: {}, mode: {}, part: {} }
  let current: { kind: 'tool' | 'mode' | 'part'; name: string; lines: string[] } | undefined
  const close = () => {
    if (!current) return
    const group = groups[current.kind]
    if (current.name in group) throw new Error(`system-prompt.md: ## ${current.kind}: ${current.name} twice`)
    group[current.name] = current.lines.join('\n').trim()
  }
  for (const line of lines) {
    const heading = PART_HEADING.exec(line)
    if (heading) {
      close()
      current = { kind: heading[1] as 'tool' | 'mode' | 'part', name: heading[2] as string, lines: [] }
    } else if (current) current.lines.push(line)
    else template.push(line)
  }
  close()
  return {
    template: template.join('\n').trim(),
    tools: groups.tool,
    modes: groups.mode,
    parts: groups.part,
  }
}
