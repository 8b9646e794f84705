/** Contract §5: every error answer, whatever the endpoint. */
import { Type, type Static } from '@sinclair/typebox';
import { STATUS, type ErrorCode } from '../errors.js';

export const ERROR_CODES = Object.keys(STATUS) as ErrorCode[];

/** The error answer; `codes` narrows `error.code` to those one status can carry. */
export const ErrorAnswer = (codes: readonly string[] = ERROR_CODES) => Type.Object({
  result: Type.Literal('ERROR'),
  error: Type.Object({
    code: Type.Union(codes.map((c) => Type.Literal(c))),
    message: Type.String({ description: 'for people; says what was wrong and what was expected' }),
    path: Type.Optional(Type.String({ description: 'JSON Pointer into the request body (or /<name> of a query parameter), where it applies' })),
  }),
});

export type ErrorAnswer = Static<ReturnType<typeof ErrorAnswer>>;
