/*
 * Lays a statement out on lines for a reviewer, by its keywords: each clause on a line of its own
 * with its content indented below, a list one item a line, a subquery indented in its parentheses,
 * and what does not fit on a line broken at its commas, AND/OR, or WHEN/ELSE. Only whitespace
 * outside literals changes: formatSql checks that it kept every token and every space between two.
 */

const WIDTH = 100;
const INDENT = '  ';

type Token = { kind: 'word' | 'literal' | 'comma'; text: string; spaced: boolean };
type Group = { kind: 'group'; items: Item[]; spaced: boolean };
type Item = Token | Group;

/** Whitespace, a quoted string or identifier, a parenthesis, a comma, or a run of anything else. */
const TOKEN = /\s+|'(?:[^']|'')*'|"(?:[^"]|"")*"|[(),]|[^\s'"(),]+/y;

type Flat = { text: string; spaced: boolean };

function tokens(sql: string): Flat[] {
  const flat: Flat[] = [];
  let spaced = false;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < sql.length) {
    const at = TOKEN.lastIndex;
    const text = TOKEN.exec(sql)?.[0];
    if (!text) throw new Error(`cannot read the SQL from ${sql.slice(at, at + 40)}`);
    if (/^\s/.test(text)) spaced = true;
    else {
      flat.push({ text, spaced });
      spaced = false;
    }
  }
  return flat;
}

function tree(sql: string): Item[] {
  const stack: Item[][] = [[]];
  const groups: Group[] = [];
  for (const { text, spaced } of tokens(sql)) {
    const items = stack[stack.length - 1] as Item[];
    if (text === '(') {
      const group: Group = { kind: 'group', items: [], spaced };
      items.push(group);
      groups.push(group);
      stack.push(group.items);
    } else if (text === ')') {
      if (stack.length === 1) throw new Error('unbalanced parentheses in the SQL');
      stack.pop();
      groups.pop();
    } else {
      const kind = text === ',' ? 'comma' : /^['"]/.test(text) ? 'literal' : 'word';
      items.push({ kind, text, spaced });
    }
  }
  if (stack.length !== 1) throw new Error('unbalanced parentheses in the SQL');
  return stack[0] as Item[];
}

const wordAt = (items: Item[], index: number) => {
  const item = items[index];
  return item?.kind === 'word' ? item.text.toLowerCase() : undefined;
};

/** Clauses start a line of their own; a list clause puts one item a line. */
const CLAUSES: { words: string[]; list?: boolean; flush?: boolean }[] = [
  { words: ['with'], list: true },
  { words: ['select'], list: true },
  { words: ['insert', 'into'] },
  { words: ['delete', 'from'] },
  { words: ['update'] },
  { words: ['set'], list: true },
  { words: ['from'] },
  { words: ['where'] },
  { words: ['group', 'by'], list: true },
  { words: ['having'] },
  { words: ['order', 'by'], list: true },
  { words: ['limit'] },
  { words: ['offset'] },
  { words: ['for', 'no', 'key', 'update'] },
  { words: ['for', 'key', 'share'] },
  { words: ['for', 'update'] },
  { words: ['for', 'share'] },
  { words: ['values'] },
  { words: ['on', 'conflict'] },
  { words: ['do', 'update', 'set'], list: true },
  { words: ['do', 'nothing'] },
  { words: ['returning'], list: true },
  { words: ['union', 'all'], flush: true },
  { words: ['union'], flush: true },
  { words: ['except'], flush: true },
  { words: ['intersect'], flush: true },
];
const JOINS = [
  ['left', 'join', 'lateral'],
  ['inner', 'join', 'lateral'],
  ['cross', 'join', 'lateral'],
  ['left', 'join'],
  ['inner', 'join'],
  ['right', 'join'],
  ['full', 'join'],
  ['cross', 'join'],
  ['join'],
];
const STATEMENT_STARTS = new Set(['select', 'with', 'insert', 'update', 'delete', 'values']);

const matches = (items: Item[], index: number, words: string[]) =>
  words.every((word, offset) => wordAt(items, index + offset) === word);

function clauseAt(items: Item[], index: number) {
  // "is [not] distinct from" compares; its FROM is no clause.
  if (wordAt(items, index) === 'from' && wordAt(items, index - 1) === 'distinct') return undefined;
  return CLAUSES.find((clause) => matches(items, index, clause.words));
}
const joinAt = (items: Item[], index: number) => JOINS.find((words) => matches(items, index, words));

/** A parenthesised statement (a subquery, a CTE's body), laid out like the outermost one. */
function isStatement(group: Group): boolean {
  const first = group.items[0];
  if (first?.kind === 'group') return isStatement(first);
  return first?.kind === 'word' && STATEMENT_STARTS.has(first.text.toLowerCase());
}

function inline(items: Item[]): string {
  let text = '';
  for (const item of items) {
    if (text && item.spaced) text += ' ';
    text += item.kind === 'group' ? `(${inline(item.items)})` : item.text;
  }
  return text;
}

/** The index of the END that closes the CASE at `start`, among its siblings. */
function caseEnd(items: Item[], start: number): number {
  let depth = 0;
  for (let index = start; index < items.length; index++) {
    const word = wordAt(items, index);
    if (word === 'case') depth++;
    if (word === 'end' && --depth === 0) return index;
  }
  throw new Error('a CASE without its END in the SQL');
}

class Lines {
  readonly done: string[] = [];
  private line = '';
  private indent = 0;

  get width(): number {
    return this.indent * INDENT.length + this.line.length;
  }

  /** Starts a line, unless the current one is still empty (it then takes this indent). */
  newline(indent: number): void {
    if (this.line) this.done.push(INDENT.repeat(this.indent) + this.line);
    this.line = '';
    this.indent = indent;
  }

  write(text: string, spaced: boolean): void {
    this.line += this.line && spaced ? ` ${text}` : text;
  }

  end(): string {
    this.newline(0);
    return this.done.join('\n');
  }
}

const fits = (out: Lines, items: Item[]) => out.width + 1 + inline(items).length <= WIDTH;

/** A statement: its clauses, each on a line, their content indented below. */
function statement(items: Item[], indent: number, out: Lines): void {
  let index = 0;
  while (index < items.length) {
    const clause = clauseAt(items, index);
    let contentStart = index;
    if (clause) {
      out.newline(indent);
      for (let offset = 0; offset < clause.words.length; offset++) {
        out.write((items[index + offset] as Token).text, offset > 0);
      }
      contentStart = index + clause.words.length;
    }
    let contentEnd = contentStart;
    while (contentEnd < items.length && !clauseAt(items, contentEnd)) contentEnd++;
    const content = items.slice(contentStart, contentEnd);
    if (content.length > 0) {
      const contentIndent = clause && !clause.flush ? indent + 1 : indent;
      out.newline(contentIndent);
      clauseContent(content, contentIndent, out, clause?.list ?? false);
    }
    index = contentEnd;
  }
}

/** A clause's content: in FROM, each join on a line of its own. */
function clauseContent(items: Item[], indent: number, out: Lines, list: boolean): void {
  const starts = [0];
  for (let index = 1; index < items.length; index++) {
    const join = joinAt(items, index);
    if (!join) continue;
    starts.push(index);
    index += join.length - 1;
  }
  for (const [part, start] of starts.entries()) {
    if (part > 0) out.newline(indent);
    sequence(items.slice(start, starts[part + 1]), indent, out, list);
  }
}

/**
 * A run of items from where the line is: on it when it fits (and it is no list); otherwise broken
 * after each comma and before each AND/OR, its long parentheses and CASEs laid out on lines too.
 */
function sequence(items: Item[], indent: number, out: Lines, list: boolean): void {
  const broken = list || !fits(out, items);
  const logicBroken = !fits(out, items);
  let between = false;
  for (let index = 0; index < items.length; index++) {
    const item = items[index] as Item;
    const word = wordAt(items, index);
    if (word === 'between') between = true;
    if (item.kind === 'comma') {
      out.write(',', item.spaced);
      if (broken) out.newline(indent);
    } else if ((word === 'and' || word === 'or') && logicBroken && !(word === 'and' && between)) {
      out.newline(indent);
      out.write((item as Token).text, item.spaced);
    } else if (word === 'case') {
      const end = caseEnd(items, index);
      caseExpression(items.slice(index, end + 1), indent, out);
      index = end;
    } else if (item.kind === 'group') {
      group(item, indent, out);
    } else {
      if (word === 'and') between = false;
      out.write(item.text, item.spaced);
    }
  }
}

function caseExpression(items: Item[], indent: number, out: Lines): void {
  if (fits(out, items)) {
    out.write(inline(items), (items[0] as Item).spaced);
    return;
  }
  out.write((items[0] as Token).text, (items[0] as Item).spaced);
  let depth = 0;
  let start = 1;
  const part = (end: number) => {
    if (end > start) {
      out.newline(indent + 1);
      sequence(items.slice(start, end), indent + 2, out, false);
    }
    start = end;
  };
  for (let index = 1; index < items.length - 1; index++) {
    const word = wordAt(items, index);
    if (word === 'case') depth++;
    if (word === 'end') depth--;
    if (depth === 0 && (word === 'when' || word === 'else')) part(index);
  }
  part(items.length - 1);
  out.newline(indent);
  out.write((items[items.length - 1] as Token).text, true);
}

function group(item: Group, indent: number, out: Lines): void {
  const text = `(${inline(item.items)})`;
  if (!isStatement(item) && out.width + 1 + text.length <= WIDTH) {
    out.write(text, item.spaced);
    return;
  }
  out.write('(', item.spaced);
  out.newline(indent + 1);
  if (isStatement(item)) statement(item.items, indent + 1, out);
  else sequence(item.items, indent + 1, out, false);
  out.newline(indent);
  out.write(')', false);
}

/** The statement laid out on lines; throws if that changed anything but whitespace. */
export function formatSql(sql: string): string {
  const out = new Lines();
  statement(tree(sql), 0, out);
  const formatted = out.end();
  const before = tokens(sql);
  const after = tokens(formatted);
  const same =
    before.length === after.length &&
    before.every(
      (token, index) =>
        token.text === after[index]?.text && (!token.spaced || after[index]?.spaced || index === 0),
    );
  if (!same) throw new Error(`formatting changed more than whitespace:\n${sql}\n---\n${formatted}`);
  return formatted;
}
