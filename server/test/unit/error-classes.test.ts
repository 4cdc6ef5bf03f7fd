import { HTTP_STATUS, RESPONSE_CODES } from '@tms/contract';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/index.js';
import { ERROR_EXAMPLES } from '../../src/errors/registry.js';

describe('every ResponseCode has its error class', () => {
  it.each(RESPONSE_CODES)('%s', (code) => {
    const error = ERROR_EXAMPLES[code]();
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe(code);
    expect(error.status).toBe(HTTP_STATUS[code]);
    expect(error.message.length).toBeGreaterThan(0);
  });

  it('no two codes share a class', () => {
    const classes = RESPONSE_CODES.map((code) => ERROR_EXAMPLES[code]().constructor);
    expect(new Set(classes).size).toBe(RESPONSE_CODES.length);
  });
});
