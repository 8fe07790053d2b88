import { defineTool } from '../define-tool.js'
import { pathOf, type Tool } from '../tool.js'
import { assertAsPreviewed, diffPreview } from './diff-preview.js'
import { fileLocation } from './read-text-file.js'
import { readExistingText, workspacePath, writeWorkspaceText } from './workspace-files.js'

/**
 * `write_text_file {path, content}`: writes a whole text file (an `edit`: the permission policy
 * asks first in `ask` mode). Through the editor (`fs/write_text_file`) when the client can,
 * otherwise on the local disk (creating missing directories), the path confined to the session's
 * cwd; on the local disk atomically, and not when the file changed since it was read. The editor
 * is shown the change as an ACP `diff`, before approval too.
 */
export const writeTextFileTool: Tool = defineTool({
  spec: {
    name: 'write_text_file',
    description:
      "Write (create or replace) a text file in the user's workspace. `path` is relative to the working " +
      'directory (or absolute inside it); `content` is the whole new file. To change part of a file, use edit_text_file.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path, relative to the working directory' },
        content: { type: 'string', description: 'The complete new content of the file' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    } as const,
  },
  kind: 'edit',
  effect: 'edit',
  title: (input) => `Write ${pathOf(input) ?? 'file'}`,
  locations: (input, cwd) => fileLocation(input, cwd),
  async preview(input, context) {
    await workspacePath(input.path, context, 'write')
    const read = await readExistingText(input.path, context)
    return diffPreview(read.path, read.text, input.content)
  },
  async run(input, context) {
    const { path: requested, content } = input
    await workspacePath(requested, context, 'write')
    const read = await readExistingText(requested, context)
    const oldText = read.text
    assertAsPreviewed(oldText, context.previewed, requested)
    const target = await writeWorkspaceText(requested, content, context, read)
    return {
      output: `Wrote ${Buffer.byteLength(content)} bytes to ${requested}`,
      content: [{ type: 'diff', path: target, oldText, newText: content }],
    }
  },
})
