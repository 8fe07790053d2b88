import type * as acp from '@agentclientprotocol/sdk'
import type { JsonValue } from '../../session/index.js'
import { defineTool } from '../tools/define-tool.js'
import { stringField, type Tool, ToolFailure } from '../tools/tool.js'
import type { ClientBridge, ElicitationAnswer, ToolResult } from '../types.js'

/** The name the model calls the question tool by. */
export const ASK_USER_TOOL = 'ask_user'

/** The form field the answer comes back in. */
const ANSWER = 'answer'
/** Most options one question offers (a longer list is not a question but a search). */
export const MAX_OPTIONS = 20
/** Longest question, and longest option, in characters. */
export const MAX_QUESTION_LENGTH = 2000
export const MAX_OPTION_LENGTH = 200

/** The longest title shown for the call before the question is cut with `…`. */
const TITLE_LENGTH = 80

/** True when the client can show the question's form (it advertised `elicitation.form`). */
function canAsk(client: ClientBridge): boolean {
  return client.elicitation?.form === true
}

/**
 * The form a question asks for: one required string `answer`, a one-of of the options (each its
 * own title) when there are any, free text otherwise.
 */
export function questionSchema(options: readonly string[] | undefined): acp.ElicitationSchema {
  const answer: acp.ElicitationPropertySchema =
    options === undefined
      ? { type: 'string', title: 'Answer' }
      : {
          type: 'string',
          title: 'Answer',
          oneOf: options.map((option) => ({ const: option, title: option })),
        }
  return { type: 'object', properties: { [ANSWER]: answer }, required: [ANSWER] }
}

/** The tool's result for the user's answer: what the model reads, and what the editor shows. */
export function answerResult(answer: ElicitationAnswer, options: readonly string[] | undefined): ToolResult {
  const said = (text: string): ToolResult => ({
    output: text,
    content: [{ type: 'content', content: { type: 'text', text } }],
  })
  if (answer.action === 'decline') return said('The user declined to answer.')
  if (answer.action === 'cancel') return said('The user dismissed the question without answering.')
  const value = answer.content?.[ANSWER]
  if (typeof value !== 'string' || value === '') {
    return { ...said('The user accepted the question but gave no answer.'), isError: true }
  }
  if (options !== undefined && !options.includes(value)) {
    return {
      ...said(`The user answered with ${JSON.stringify(value)}, which is none of the options.`),
      isError: true,
    }
  }
  return said(`The user answered: ${value}`)
}

function titleOf(input: JsonValue): string {
  const question = stringField(input, 'question')
  if (question === undefined) return 'Ask the user'
  const line = question.replace(/\s+/g, ' ').trim()
  return `Ask: ${line.length > TITLE_LENGTH ? `${line.slice(0, TITLE_LENGTH - 1)}…` : line}`
}

/**
 * `ask_user {question, options?}`: asks the user one question through the editor (ACP
 * `elicitation/create` in form mode, about this call), offered only to turns whose client
 * advertised `elicitation.form`. The answer (`accept` with the text or the option chosen,
 * `decline`, `cancel`) is the call's result; a cancelled turn cancels the question. It changes
 * nothing, so it runs in every mode without asking permission.
 */
export const askUserTool: Tool = defineTool({
  spec: {
    name: ASK_USER_TOOL,
    description:
      'Ask the user one question and wait for the answer. Use it when you cannot go on well without ' +
      'a decision or a fact only the user has (which of two designs, a name, a missing detail); do not ' +
      'use it for what you can find out yourself or for confirmation of routine steps. With `options`, ' +
      'the user picks one of them; without, the user types a free answer. The user may decline.',
    inputSchema: {
      type: 'object',
      properties: {
        question: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_QUESTION_LENGTH,
          description: 'The question, complete in itself',
        },
        options: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: MAX_OPTION_LENGTH },
          minItems: 2,
          maxItems: MAX_OPTIONS,
          uniqueItems: true,
          description: 'The answers the user may choose from (omit for a free answer)',
        },
      },
      required: ['question'],
      additionalProperties: false,
    } as const,
  },
  kind: 'other',
  effect: 'read',
  offeredTo: canAsk,
  title: titleOf,
  async run(input, context): Promise<ToolResult> {
    const elicitation = context.client.elicitation
    if (!elicitation?.form) throw new ToolFailure('this editor cannot show questions')
    if (input.question.trim() === '') throw new ToolFailure('input.question must not be blank')
    const options = input.options
    const answer = await elicitation.create(
      {
        mode: 'form',
        message: input.question,
        toolCallId: context.callId,
        requestedSchema: questionSchema(options),
      },
      context.signal,
    )
    return answerResult(answer, options)
  },
})
