import path from 'node:path'
import { defineTool } from '../define-tool.js'
import { pathOf, type Tool, ToolFailure } from '../tool.js'
import { assertAsPreviewed, diffPreview } from './diff-preview.js'
import { readWorkspaceText, workspacePath, writeWorkspaceText } from './workspace-files.js'

export interface TextEdit {
  readonly oldText: string
  readonly newText: string
}

/**
 * `edit_text_file {path, edits: [{oldText, newText}]}`: replaces each `oldText` span of the file
 * with its `newText`. Every `oldText` must occur exactly once in the file as it was, and no two may
 * overlap; otherwise nothing is written and the model is told which edit failed and why. A local
 * file that is not valid UTF-8 is refused (its other bytes would not survive a round trip through
 * text), and one that changed since it was read (or since the user approved the diff) is not
 * written. The editor is shown the change as an ACP `diff` (`path`, `oldText`, `newText`), before
 * approval too.
 */
export const editTextFileTool: Tool = defineTool({
  spec: {
    name: 'edit_text_file',
    description:
      'Edit part of a text file: each edit replaces `oldText` (which must occur exactly once in the file; ' +
      'include enough surrounding lines to make it unique) with `newText`. All edits apply to the file as it ' +
      'is now, or none does.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the working directory' },
        edits: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: {
              oldText: { type: 'string', minLength: 1, description: 'Exact text to replace' },
              newText: { type: 'string', description: 'Replacement text' },
            },
            required: ['oldText', 'newText'],
            additionalProperties: false,
          },
        },
      },
      required: ['path', 'edits'],
      additionalProperties: false,
    } as const,
  },
  kind: 'edit',
  effect: 'edit',
  title: (input) => `Edit ${pathOf(input) ?? 'file'}`,
  locations: (input, cwd) => {
    const requested = pathOf(input)
    return requested === undefined ? [] : [{ path: path.resolve(cwd, requested) }]
  },
  async preview(input, context) {
    const { path: requested, edits } = input
    await workspacePath(requested, context, 'write')
    const read = await readWorkspaceText(requested, context, true)
    const newText = applyEdits(read.text, edits, requested)
    return diffPreview(read.path, read.text, newText, firstLine(read.text, edits))
  },
  async run(input, context) {
    const { path: requested, edits } = input
    await workspacePath(requested, context, 'write')
    const read = await readWorkspaceText(requested, context, true)
    const oldText = read.text
    assertAsPreviewed(oldText, context.previewed, requested)
    const newText = applyEdits(oldText, edits, requested)
    const target = await writeWorkspaceText(requested, newText, context, read)
    const line = firstLine(oldText, edits)
    return {
      output: `Edited ${requested}: ${edits.length} ${edits.length === 1 ? 'replacement' : 'replacements'} (first at line ${line}).`,
      content: [{ type: 'diff', path: target, oldText, newText }],
    }
  },
})

/**
 * `text` with every edit applied. Each `oldText` must occur exactly once in `text` and the spans
 * must not overlap; otherwise a {@link ToolFailure} names the edit and the reason.
 */
export function applyEdits(text: string, edits: readonly TextEdit[], name: string): string {
  const spans = edits.map((edit, i) => {
    const at = text.indexOf(edit.oldText)
    const label = `edit ${i + 1} of ${edits.length}`
    if (at < 0) throw new ToolFailure(`${label}: oldText was not found in ${name}; nothing was changed`)
    const again = text.indexOf(edit.oldText, at + 1)
    if (again >= 0) {
      throw new ToolFailure(
        `${label}: oldText occurs more than once in ${name} (lines ${lineOf(text, at)} and ${lineOf(text, again)}); ` +
          'include more surrounding text to make it unique; nothing was changed',
      )
    }
    return { at, end: at + edit.oldText.length, edit, label }
  })
  spans.sort((a, b) => a.at - b.at)
  for (let i = 1; i < spans.length; i++) {
    const prev = spans[i - 1] as (typeof spans)[number]
    const next = spans[i] as (typeof spans)[number]
    if (next.at < prev.end)
      throw new ToolFailure(`${prev.label} and ${next.label} overlap; nothing was changed`)
  }
  let out = ''
  let from = 0
  for (const span of spans) {
    out += text.slice(from, span.at) + span.edit.newText
    from = span.end
  }
  return out + text.slice(from)
}

/** The line of the file where the first edit's `oldText` starts. */
function firstLine(text: string, edits: readonly TextEdit[]): number {
  return lineOf(text, text.indexOf(edits[0]?.oldText ?? ''))
}

function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
}
