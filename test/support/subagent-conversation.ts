import type * as acp from '@agentclientprotocol/sdk/unstable'
import type { OpenAiAgent } from './openai-agent.js'
import { conversationModel, type ModelMove } from './prefix-cache.js'

// The conversation the fork-based subagent tests hold with a fake model: the parent learns a code
// word, delegates the question to a child, and the child answers from the history it inherited.

export const REMEMBER = 'remember: the code word is kiwi'
export const ASK = 'ask a helper for the code word'
export const TASK = 'what is the code word?'

export const say = (text: string): ModelMove => ({ text })
export const delegate = (...tasks: { id: string; task: string; title?: string }[]): ModelMove => ({
  calls: tasks.map(({ id, ...input }) => ({ id, name: 'delegate', arguments: input })),
})

/** The session/list entry of `parent`'s child (by its `_meta.dsh.parentSession`). */
export async function childOf(run: OpenAiAgent, parent: string): Promise<acp.SessionInfo> {
  const { sessions } = await run.agent.agent.request('session/list', {})
  const child = sessions.find(
    (s) => (s._meta as { dsh?: { parentSession?: string } } | undefined)?.dsh?.parentSession === parent,
  )
  if (!child) throw new Error(`no child of ${parent} in ${JSON.stringify(sessions)}`)
  return child
}

/** The child writes a file: its permission request shows which variant of the wire is in use. */
export const WITH_WRITE: Record<string, ModelMove[]> = {
  [REMEMBER]: [say('Noted.')],
  [ASK]: [delegate({ id: 'call_d', task: TASK, title: 'Recall' }), say('Done.')],
  [TASK]: [
    { calls: [{ id: 'call_w', name: 'write_text_file', arguments: { path: 'word.txt', content: 'kiwi' } }] },
    say('kiwi'),
  ],
}

/** An editor that allows every permission once and takes every file write, recording both. */
export function editor() {
  const asked: acp.RequestPermissionRequest[] = []
  const writes: acp.WriteTextFileRequest[] = []
  return {
    asked,
    writes,
    setupClient: (app: acp.ClientApp) => {
      app.onRequest('session/request_permission', ({ params }) => {
        asked.push(params)
        return { outcome: { outcome: 'selected', optionId: 'allow_once' } }
      })
      app.onRequest('fs/write_text_file', ({ params }) => {
        writes.push(params)
        return {}
      })
    },
  }
}

/**
 * The agent for an editor with `fs/write_text_file` and the subagents capability, on the
 * conversation whose child writes a file.
 */
export function capable(client: ReturnType<typeof editor>) {
  return {
    script: conversationModel(WITH_WRITE).script,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: true },
      subagents: {},
    } as acp.ClientCapabilities,
    setupClient: client.setupClient,
  }
}
