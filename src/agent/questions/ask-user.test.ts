import { describe, expect, it } from 'vitest'
import type { ClientBridge, ElicitationRequest } from '../types.js'
import { answerResult, askUserTool, questionSchema } from './ask-user.js'

const forms = (answer: unknown, asked: ElicitationRequest[] = []): ClientBridge => ({
  elicitation: {
    form: true,
    url: false,
    complete: () => {},
    create: async (request) => {
      asked.push(request)
      return answer as never
    },
  },
})

function context(client: ClientBridge, signal = new AbortController().signal) {
  return { sessionId: 's1', cwd: '/w', callId: 'call_1', turn: 1, client, signal, progress: () => {} }
}

describe('ask_user', () => {
  it('is offered only to a client that shows forms', () => {
    expect(askUserTool.offeredTo?.(forms({}))).toBe(true)
    expect(askUserTool.offeredTo?.({})).toBe(false)
    expect(
      askUserTool.offeredTo?.({
        elicitation: {
          form: false,
          url: true,
          create: async () => ({ action: 'cancel' }),
          complete: () => {},
        },
      }),
    ).toBe(false)
    expect(askUserTool.effect).toBe('read')
  })

  it('asks a one-of of the options, or free text, about its own call', async () => {
    const asked: ElicitationRequest[] = []
    await askUserTool.run(
      { question: 'Which?', options: ['a', 'b'] },
      context(forms({ action: 'decline' }, asked)),
    )
    await askUserTool.run({ question: 'Name?' }, context(forms({ action: 'decline' }, asked)))
    expect(asked).toEqual([
      { mode: 'form', message: 'Which?', toolCallId: 'call_1', requestedSchema: questionSchema(['a', 'b']) },
      { mode: 'form', message: 'Name?', toolCallId: 'call_1', requestedSchema: questionSchema(undefined) },
    ])
    expect(questionSchema(['a'])).toEqual({
      type: 'object',
      properties: { answer: { type: 'string', title: 'Answer', oneOf: [{ const: 'a', title: 'a' }] } },
      required: ['answer'],
    })
  })

  it('answers with what the user did', () => {
    expect(answerResult({ action: 'accept', content: { answer: 'b' } }, ['a', 'b']).output).toBe(
      'The user answered: b',
    )
    expect(answerResult({ action: 'decline' }, undefined).output).toBe('The user declined to answer.')
    expect(answerResult({ action: 'cancel' }, undefined).output).toBe(
      'The user dismissed the question without answering.',
    )
    expect(answerResult({ action: 'accept', content: {} }, undefined)).toMatchObject({ isError: true })
    expect(answerResult({ action: 'accept', content: { answer: 'z' } }, ['a', 'b'])).toMatchObject({
      isError: true,
      output: 'The user answered with "z", which is none of the options.',
    })
  })

  it('refuses a blank question and an editor without forms', async () => {
    await expect(askUserTool.run({ question: '  ' }, context(forms({})))).rejects.toThrow('must not be blank')
    await expect(askUserTool.run({ question: 'Q?' }, context({}))).rejects.toThrow('cannot show questions')
    await expect(
      askUserTool.run({ question: 'Q?', options: ['a', 'a'] }, context(forms({}))),
    ).rejects.toThrow('invalid input')
  })

  it('titles the call with the question, cut when long', () => {
    expect(askUserTool.title({ question: 'Which  database\nshould I use?' })).toBe(
      'Ask: Which database should I use?',
    )
    expect(askUserTool.title({ question: 'x'.repeat(200) })).toHaveLength(85)
    expect(askUserTool.title(null)).toBe('Ask the user')
  })
})
