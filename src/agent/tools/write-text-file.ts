import { constants } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { JsonValue } from '../../session/index.js'
import { raceAbort } from '../abort.js'
import { DEFAULT_MODE, modeDecision } from '../modes.js'
import { allowedRoots, resolveReal } from './confine.js'
import { pathOf } from './read-text-file.js'
import { inputObject, requiredString, type Tool, type ToolContext } from './tool.js'

/**
 * `write_text_file {path, content}`: writes a whole text file. In `ask` mode it first asks the user
 * through `session/request_permission`; a refusal (or a client that cannot ask) becomes an error
 * result and nothing is written. `accept-edits` writes without asking; `read-only` never writes.
 * Through the editor (`fs/write_text_file`) when the client can, otherwise on the local disk
 * (creating missing directories), the path confined to the session's cwd with symlinks resolved on
 * our side, and never a file with more than one hard link (see `resolveReal`).
 */
export const writeTextFileTool: Tool = {
  spec: {
    name: 'write_text_file',
    description:
      "Write (create or replace) a text file in the user's workspace. `path` is relative to the working " +
      'directory (or absolute inside it); `content` is the whole new file. The user is asked first.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the working directory' },
        content: { type: 'string', description: 'The complete new content of the file' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  kind: 'edit',
  title: (input) => `Write ${pathOf(input) ?? 'file'}`,
  async run(input, context) {
    const fields = inputObject(input)
    const requested = requiredString(fields, 'path')
    const content = fields.content
    if (typeof content !== 'string') return { output: 'input.content must be a string', isError: true }
    const target = await resolveReal(allowedRoots(context), requested, 'write')
    const refusal = await askPermission(requested, input, context)
    if (refusal !== undefined) return { output: refusal, isError: true }
    await writeThrough(target, content, context)
    return { output: `Wrote ${Buffer.byteLength(content)} bytes to ${requested}` }
  },
}

/** Undefined when allowed (by the session's mode or by the user), else why not. */
async function askPermission(
  requested: string,
  input: JsonValue,
  context: ToolContext,
): Promise<string | undefined> {
  const { client, signal } = context
  const mode = context.mode ?? DEFAULT_MODE
  const decision = modeDecision(mode, 'edit')
  if (decision === 'allow') return undefined
  if (decision === 'deny') return `Not written: the session is in ${mode} mode.`
  if (!client.requestPermission) {
    return `Not written: the client cannot ask the user for permission to write ${requested}.`
  }
  const allowed = await client.requestPermission(
    {
      sessionId: context.sessionId,
      toolCallId: context.callId,
      title: `Write ${requested}`,
      kind: 'edit',
      rawInput: input,
    },
    signal,
  )
  return allowed ? undefined : `Not written: the user refused permission to write ${requested}.`
}

async function writeThrough(target: string, content: string, context: ToolContext): Promise<void> {
  const { client, signal } = context
  if (client.writeTextFile) return client.writeTextFile(target, content, signal)
  await raceAbort(mkdir(path.dirname(target), { recursive: true }), signal)
  // O_NOFOLLOW: a symlink planted at the target after it was checked is not followed.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW
  await raceAbort(writeFile(target, content, { encoding: 'utf8', signal, flag: flags }), signal)
}
