import { ScimError } from '../../errors/index.js';
import { storable } from './scim-text.js';

/*
 * SCIM filters (RFC 7644 §3.4.2.2), parsed into a tree that scim-filter.sql.ts turns into SQL
 * with parameters only. Attribute names are case-insensitive (RFC 7643 §2.1): paths come out
 * lower-cased, without their schema's URN. A value path (`emails[type eq "work"]`) comes out as
 * its inner filter, each attribute under the outer one (`emails.type`): our multi-valued
 * attributes hold one value each, so the two mean the same here.
 */

export const COMPARISONS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'] as const;
export type Comparison = (typeof COMPARISONS)[number];
export type FilterValue = string | number | boolean | null;

export type Filter =
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; filter: Filter }
  | { kind: 'compare'; path: string; op: Comparison; value: FilterValue }
  | { kind: 'present'; path: string };

type Token =
  | { type: 'word'; text: string }
  | { type: 'string'; text: string }
  | { type: '(' | ')' | '[' | ']' };

const invalid = (detail: string) => new ScimError(400, 'invalidFilter', detail);

/** Longest filter taken: a directory's filters are a few clauses; a longer one is abuse. */
const MAX_LENGTH = 4096;
const MAX_DEPTH = 32;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if ('()[]'.includes(c)) {
      tokens.push({ type: c as '(' | ')' | '[' | ']' });
      i++;
    } else if (c === '"') {
      // A JSON string (RFC 7644: values are JSON), escapes included.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw invalid('A string is not closed');
      let value: string;
      try {
        value = JSON.parse(text.slice(i, j + 1)) as string;
      } catch {
        throw invalid('A string has an invalid escape');
      }
      // PostgreSQL refuses NUL in text, and a lone surrogate is no text: refused here, not there.
      if (!storable(value)) throw invalid('A string holds no text');
      tokens.push({ type: 'string', text: value });
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && !/[\s()[\]"]/.test(text[j] as string)) j++;
      tokens.push({ type: 'word', text: text.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

const SCHEMA_PREFIX =
  /^urn:ietf:params:scim:schemas:(?:core:2\.0:(?:user|group)|extension:[^:]+(?::[^:]+)*):/i;
const ATTRIBUTE = /^[a-z$][\w$-]*(\.[a-z$][\w$-]*)?$/i;

/** An attribute path as written, lower-cased and without its schema: `name.familyname`. */
export function attributePath(text: string): string {
  const bare = text.replace(SCHEMA_PREFIX, '');
  if (!ATTRIBUTE.test(bare)) throw invalid(`"${text}" is not an attribute path`);
  return bare.toLowerCase();
}

function literalOf(token: Token | undefined): FilterValue {
  if (!token) throw invalid('A comparison has no value');
  if (token.type === 'string') return token.text;
  if (token.type !== 'word') throw invalid('A comparison has no value');
  const word = token.text.toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token.text)) return Number(token.text);
  throw invalid(`"${token.text}" is not a value: quote a string`);
}

class Parser {
  private at = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Filter {
    const filter = this.or(undefined);
    if (this.at < this.tokens.length) throw invalid('Unexpected text after the filter');
    return filter;
  }

  private peekWord(): string | undefined {
    const token = this.tokens[this.at];
    return token?.type === 'word' ? token.text.toLowerCase() : undefined;
  }

  private expect(type: '(' | ')' | ']'): void {
    if (this.tokens[this.at]?.type !== type) throw invalid(`Expected "${type}"`);
    this.at++;
  }

  private or(prefix: string | undefined): Filter {
    let left = this.and(prefix);
    while (this.peekWord() === 'or') {
      this.at++;
      left = { kind: 'or', left, right: this.and(prefix) };
    }
    return left;
  }

  private and(prefix: string | undefined): Filter {
    let left = this.unary(prefix);
    while (this.peekWord() === 'and') {
      this.at++;
      left = { kind: 'and', left, right: this.unary(prefix) };
    }
    return left;
  }

  private nested(run: () => Filter): Filter {
    if (++this.depth > MAX_DEPTH) throw invalid('The filter is nested too deeply');
    const filter = run();
    this.depth--;
    return filter;
  }

  private unary(prefix: string | undefined): Filter {
    const token = this.tokens[this.at];
    if (!token) throw invalid('The filter ends too early');
    if (token.type === '(') {
      this.at++;
      const inner = this.nested(() => this.or(prefix));
      this.expect(')');
      return inner;
    }
    if (
      token.type === 'word' &&
      token.text.toLowerCase() === 'not' &&
      this.tokens[this.at + 1]?.type === '('
    ) {
      this.at += 2;
      const inner = this.nested(() => this.or(prefix));
      this.expect(')');
      return { kind: 'not', filter: inner };
    }
    if (token.type !== 'word') throw invalid('Expected an attribute');
    this.at++;
    const path = attributePath(token.text);
    const full = prefix ? `${prefix}.${path}` : path;
    if (this.tokens[this.at]?.type === '[') {
      if (prefix) throw invalid('A value filter cannot hold another');
      this.at++;
      const inner = this.nested(() => this.or(full));
      this.expect(']');
      return inner;
    }
    const op = this.peekWord();
    if (op === 'pr') {
      this.at++;
      return { kind: 'present', path: full };
    }
    if (!op || !(COMPARISONS as readonly string[]).includes(op)) {
      throw invalid(
        `"${token.text}" is not followed by an operator (eq, ne, co, sw, ew, gt, ge, lt, le, pr)`,
      );
    }
    this.at++;
    const value = literalOf(this.tokens[this.at]);
    this.at++;
    return { kind: 'compare', path: full, op: op as Comparison, value };
  }
}

/** The filter's tree, or a 400 `invalidFilter` saying what is wrong. */
export function parseFilter(text: string): Filter {
  if (text.length > MAX_LENGTH) throw invalid(`A filter is at most ${MAX_LENGTH} characters`);
  const tokens = tokenize(text);
  if (tokens.length === 0) throw invalid('The filter is empty');
  return new Parser(tokens).parse();
}
