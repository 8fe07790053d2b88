import { describe, expect, it } from 'vitest'
import { acpFormSchema } from './elicitation-schema.js'

type Form = Parameters<typeof acpFormSchema>[0]

describe("MCP's form schema as ACP's", () => {
  it('keeps every field kind with its title, description, bounds and default', () => {
    const form: Form = {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name', description: 'Yours', minLength: 1, maxLength: 80 },
        email: { type: 'string', format: 'email' },
        agree: { type: 'boolean', default: false },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        score: { type: 'number', default: 3.5 },
        pick: { type: 'string', enum: ['a', 'b'], default: 'a' },
        titled: { type: 'string', oneOf: [{ const: 'x', title: 'Ex' }] },
        many: { type: 'array', minItems: 1, items: { type: 'string', enum: ['p', 'q'] }, default: ['p'] },
        manyTitled: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }] } },
      },
      required: ['name'],
    }
    expect(acpFormSchema(form)).toEqual({
      ok: true,
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Name', description: 'Yours', minLength: 1, maxLength: 80 },
          email: { type: 'string', format: 'email' },
          agree: { type: 'boolean', default: false },
          age: { type: 'integer', minimum: 0, maximum: 150 },
          score: { type: 'number', default: 3.5 },
          pick: { type: 'string', enum: ['a', 'b'], default: 'a' },
          titled: { type: 'string', oneOf: [{ const: 'x', title: 'Ex' }] },
          many: { type: 'array', minItems: 1, items: { type: 'string', enum: ['p', 'q'] }, default: ['p'] },
          manyTitled: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }] } },
        },
        required: ['name'],
      },
    })
  })

  it('turns the legacy enumNames into a titled one-of', () => {
    const form: Form = {
      type: 'object',
      properties: { pet: { type: 'string', enum: ['c', 'd'], enumNames: ['Cats', 'Dogs'] } },
    }
    expect(acpFormSchema(form)).toEqual({
      ok: true,
      schema: {
        type: 'object',
        properties: {
          pet: {
            type: 'string',
            oneOf: [
              { const: 'c', title: 'Cats' },
              { const: 'd', title: 'Dogs' },
            ],
          },
        },
      },
    })
  })

  it('refuses, saying why, what it cannot state', () => {
    const refused = (properties: Form['properties'], required?: string[]) =>
      acpFormSchema({ type: 'object', properties, ...(required && { required }) })
    expect(refused({}, ['ghost'])).toEqual({ ok: false, reason: 'required fields not in the form: ghost' })
    expect(refused({ e: { type: 'string', enum: [] } })).toEqual({
      ok: false,
      reason: 'field "e": a choice with no options',
    })
    expect(refused({ e: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } })).toEqual({
      ok: false,
      reason: 'field "e": enumNames does not match enum',
    })
    expect(refused({ m: { type: 'array', items: { anyOf: [] } } })).toMatchObject({ ok: false })
    expect(refused({ o: { type: 'object' } as never })).toEqual({
      ok: false,
      reason: 'field "o": fields of type "object" cannot be shown',
    })
  })
})
