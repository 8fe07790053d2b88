import type { FromSchema } from 'json-schema-to-ts'

/**
 * The JSON schema of the ACP Remote draft's attach, as served on v2 connections (no SDK schema has
 * it yet): `session/attach`, its delivery barrier `session/ready`, and `session/detach`. A source
 * event id is the event's seq (`_meta.dsh.seq` of its updates) as a decimal string. Published as
 * `schemas/attach.schema.json` (written by scripts/generate-extension-validators.mjs).
 */
export const ATTACH_WIRE_SCHEMA = {
  $id: 'https://dsh-acp.dev/schemas/attach.schema.json',
  title: 'dsh-acp session attach (ACP Remote draft)',
  description:
    'Params and result of session/attach, session/ready and session/detach on ACP v2 connections, and the replayFrom cursor session/resume takes too.',
  $defs: {
    sessionId: { type: 'string', minLength: 1 },
    meta: { type: ['object', 'null'] },
    eventId: {
      description: "An event's seq as a decimal string (the _meta.dsh.seq of its updates).",
      type: 'string',
      pattern: '^(0|[1-9][0-9]{0,15})$',
    },
    replayFrom: {
      description:
        'start: every event of the session; after_event: the events after sourceEventId (one the client saw).',
      oneOf: [
        {
          type: 'object',
          required: ['type'],
          additionalProperties: false,
          properties: { type: { const: 'start' } },
        },
        {
          type: 'object',
          required: ['type', 'sourceEventId'],
          additionalProperties: false,
          properties: { type: { const: 'after_event' }, sourceEventId: { $ref: '#/$defs/eventId' } },
        },
      ],
    },
    attachParams: {
      description:
        'Attaches this connection to a session (any client may have it open). Nothing of the session is delivered before session/ready names the answer’s deliveryBarrierId: then the events after replayFrom (without it: after the answer’s latestSourceEventId), then every update live.',
      type: 'object',
      required: ['sessionId'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        operationId: { type: 'string', maxLength: 256 },
        attachmentCapabilities: { type: ['object', 'null'] },
        subscriptions: {
          type: 'array',
          maxItems: 16,
          items: { type: 'string', maxLength: 64 },
        },
        replayFrom: { $ref: '#/$defs/replayFrom' },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    attachResult: {
      type: 'object',
      required: [
        'attachmentId',
        'participantId',
        'sessionVersion',
        'controlPolicy',
        'recovery',
        'deliveryBarrierId',
        'effectiveSubscriptions',
      ],
      properties: {
        attachmentId: { type: 'string' },
        attachmentRevision: { type: 'integer' },
        participantId: { type: 'string' },
        roles: { type: 'array', items: { type: 'string' } },
        sessionVersion: { $ref: '#/$defs/eventId' },
        controlPolicy: { const: 'ordered_multi_writer' },
        recovery: {
          type: 'object',
          required: ['type', 'latestSourceEventId'],
          properties: { type: { const: 'event_replay' }, latestSourceEventId: { $ref: '#/$defs/eventId' } },
        },
        deliveryBarrierId: { type: 'string' },
        effectiveSubscriptions: {
          type: 'array',
          items: { enum: ['events', 'pending_interactions', 'presence'] },
        },
      },
    },
    readyParams: {
      description: 'The delivery barrier of an attach: its replay, then live updates, follow.',
      type: 'object',
      required: ['sessionId', 'deliveryBarrierId'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        deliveryBarrierId: { type: 'string', minLength: 1, maxLength: 128 },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
    detachParams: {
      description: 'Detaches this connection; the session goes on for the other clients (and stays stored).',
      type: 'object',
      required: ['sessionId'],
      additionalProperties: false,
      properties: {
        sessionId: { $ref: '#/$defs/sessionId' },
        attachmentId: { type: 'string', maxLength: 128 },
        _meta: { $ref: '#/$defs/meta' },
      },
    },
  },
} as const

type Defs = (typeof ATTACH_WIRE_SCHEMA)['$defs']

export type AttachParams = FromSchema<{ $ref: '#/$defs/attachParams'; $defs: Defs }>
export type ReadyParams = FromSchema<{ $ref: '#/$defs/readyParams'; $defs: Defs }>
export type DetachParams = FromSchema<{ $ref: '#/$defs/detachParams'; $defs: Defs }>
export type ReplayFrom = FromSchema<{ $ref: '#/$defs/replayFrom'; $defs: Defs }>
