import express, { type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '../errors/index.js';

export const BODY_LIMIT = '100kb';

const parseJson = express.json({ limit: BODY_LIMIT, strict: true, type: 'application/json' });

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Runs after authentication, so an anonymous caller never gets its body read. */
export const jsonBody: RequestHandler = (req, res, next) => {
  if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !hasBody(req)) return next();
  if (!req.is('application/json')) return next(new UnsupportedMediaTypeError());
  parseJson(req, res, next);
};
