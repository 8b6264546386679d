/**
 * A small CEL interpreter: the subset of the Common Expression Language that Regent's CRDs use in
 * `x-kubernetes-validations` (literals, field selection, has(), size(), all/exists/exists_one,
 * comparison, logic, ternary, `in`). It exists so the agreement test evaluates the rules written in
 * the CRD YAML, not a copy of them. Anything outside the subset throws, so a new rule shape fails
 * the test loudly instead of being skipped.
 */

type Node =
  | { kind: 'lit'; value: unknown }
  | { kind: 'ident'; name: string }
  | { kind: 'select'; target: Node; field: string }
  | { kind: 'index'; target: Node; index: Node }
  | { kind: 'call'; name: string; target?: Node; args: Node[] }
  | { kind: 'list'; items: Node[] }
  | { kind: 'unary'; op: string; arg: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'cond'; test: Node; then: Node; else: Node };

interface Token {
  type: 'num' | 'str' | 'ident' | 'op' | 'eof';
  text: string;
  value?: unknown;
}

const OPS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '+', '-', '*', '/', '%', '?', ':', '.', ',', '(', ')', '[', ']'];

const tokenize = (src: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const m = /^[0-9]+(\.[0-9]+)?/.exec(src.slice(i)) as RegExpExecArray;
      tokens.push({ type: 'num', text: m[0], value: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      let out = '';
      while (j < src.length && src[j] !== ch) {
        if (src[j] === '\\') {
          j++;
          out += src[j] ?? '';
        } else out += src[j];
        j++;
      }
      if (j >= src.length) throw new Error(`CEL: unterminated string in ${src}`);
      tokens.push({ type: 'str', text: out, value: out });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i)) as RegExpExecArray;
      tokens.push({ type: 'ident', text: m[0] });
      i += m[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new Error(`CEL: unexpected '${ch}' in ${src}`);
    tokens.push({ type: 'op', text: op });
    i += op.length;
  }
  tokens.push({ type: 'eof', text: '' });
  return tokens;
};

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[], private readonly src: string) {}

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }
  private next(): Token {
    return this.tokens[this.pos++] as Token;
  }
  private accept(text: string): boolean {
    const t = this.peek();
    if (t.type === 'op' && t.text === text) {
      this.pos++;
      return true;
    }
    return false;
  }
  private expect(text: string): void {
    if (!this.accept(text)) throw new Error(`CEL: expected '${text}' at token ${this.pos} in ${this.src}`);
  }

  parseAll(): Node {
    const node = this.expr();
    if (this.peek().type !== 'eof') throw new Error(`CEL: trailing input in ${this.src}`);
    return node;
  }
  private expr(): Node {
    const test = this.binary(0);
    if (this.accept('?')) {
      const then = this.expr();
      this.expect(':');
      return { kind: 'cond', test, then, else: this.expr() };
    }
    return test;
  }
  private static readonly LEVELS: string[][] = [['||'], ['&&'], ['==', '!=', '<', '<=', '>', '>=', 'in'], ['+', '-'], ['*', '/', '%']];
  private binary(level: number): Node {
    if (level >= Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      const ops = Parser.LEVELS[level] as string[];
      const isOp = (t.type === 'op' || (t.type === 'ident' && t.text === 'in')) && ops.includes(t.text);
      if (!isOp) return left;
      this.pos++;
      left = { kind: 'binary', op: t.text, left, right: this.binary(level + 1) };
    }
  }
  private unary(): Node {
    if (this.accept('!')) return { kind: 'unary', op: '!', arg: this.unary() };
    if (this.accept('-')) return { kind: 'unary', op: '-', arg: this.unary() };
    return this.member();
  }
  private args(): Node[] {
    const args: Node[] = [];
    if (this.accept(')')) return args;
    do args.push(this.expr());
    while (this.accept(','));
    this.expect(')');
    return args;
  }
  private member(): Node {
    let node = this.primary();
    for (;;) {
      if (this.accept('.')) {
        const name = this.next();
        if (name.type !== 'ident') throw new Error(`CEL: expected a field name in ${this.src}`);
        node = this.accept('(') ? { kind: 'call', name: name.text, target: node, args: this.args() } : { kind: 'select', target: node, field: name.text };
      } else if (this.accept('[')) {
        const index = this.expr();
        this.expect(']');
        node = { kind: 'index', target: node, index };
      } else return node;
    }
  }
  private primary(): Node {
    const t = this.next();
    if (t.type === 'num' || t.type === 'str') return { kind: 'lit', value: t.value };
    if (t.type === 'ident') {
      if (t.text === 'true' || t.text === 'false') return { kind: 'lit', value: t.text === 'true' };
      if (t.text === 'null') return { kind: 'lit', value: null };
      if (this.accept('(')) return { kind: 'call', name: t.text, args: this.args() };
      return { kind: 'ident', name: t.text };
    }
    if (t.type === 'op' && t.text === '(') {
      const node = this.expr();
      this.expect(')');
      return node;
    }
    if (t.type === 'op' && t.text === '[') {
      const items: Node[] = [];
      if (!this.accept(']')) {
        do items.push(this.expr());
        while (this.accept(','));
        this.expect(']');
      }
      return { kind: 'list', items };
    }
    throw new Error(`CEL: unexpected '${t.text}' in ${this.src}`);
  }
}

const canonical = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
};

type Scope = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const evaluate = (node: Node, scope: Scope): unknown => {
  switch (node.kind) {
    case 'lit':
      return node.value;
    case 'ident':
      if (!(node.name in scope)) throw new Error(`CEL: undeclared reference '${node.name}'`);
      return scope[node.name];
    case 'list':
      return node.items.map((item) => evaluate(item, scope));
    case 'select': {
      const target = evaluate(node.target, scope);
      if (!isObject(target) || !(node.field in target)) throw new Error(`CEL: no such key: ${node.field}`);
      return target[node.field];
    }
    case 'index': {
      const target = evaluate(node.target, scope);
      const index = evaluate(node.index, scope);
      const value = Array.isArray(target) ? target[index as number] : isObject(target) ? target[index as string] : undefined;
      if (value === undefined) throw new Error('CEL: index out of range or no such key');
      return value;
    }
    case 'unary': {
      const arg = evaluate(node.arg, scope);
      return node.op === '!' ? !truthy(arg) : -(arg as number);
    }
    case 'cond':
      return truthy(evaluate(node.test, scope)) ? evaluate(node.then, scope) : evaluate(node.else, scope);
    case 'binary':
      return binary(node, scope);
    case 'call':
      return call(node, scope);
  }
};

const truthy = (v: unknown): boolean => {
  if (typeof v !== 'boolean') throw new Error(`CEL: expected bool, got ${canonical(v)}`);
  return v;
};

const binary = (node: Extract<Node, { kind: 'binary' }>, scope: Scope): unknown => {
  if (node.op === '&&') return truthy(evaluate(node.left, scope)) && truthy(evaluate(node.right, scope));
  if (node.op === '||') return truthy(evaluate(node.left, scope)) || truthy(evaluate(node.right, scope));
  const l = evaluate(node.left, scope);
  const r = evaluate(node.right, scope);
  switch (node.op) {
    case '==':
      return canonical(l) === canonical(r);
    case '!=':
      return canonical(l) !== canonical(r);
    case '<':
      return (l as number) < (r as number);
    case '<=':
      return (l as number) <= (r as number);
    case '>':
      return (l as number) > (r as number);
    case '>=':
      return (l as number) >= (r as number);
    case '+':
      return Array.isArray(l) && Array.isArray(r) ? [...l, ...r] : (l as number) + (r as number);
    case '-':
      return (l as number) - (r as number);
    case '*':
      return (l as number) * (r as number);
    case '/':
      return Math.trunc((l as number) / (r as number));
    case '%':
      return (l as number) % (r as number);
    case 'in':
      return Array.isArray(r) ? r.some((x) => canonical(x) === canonical(l)) : isObject(r) && typeof l === 'string' && l in r;
  }
  throw new Error(`CEL: unknown operator ${node.op}`);
};

const call = (node: Extract<Node, { kind: 'call' }>, scope: Scope): unknown => {
  if (node.name === 'has' && !node.target) {
    const arg = node.args[0];
    if (node.args.length !== 1 || arg?.kind !== 'select') throw new Error('CEL: has() takes one field selection');
    const target = evaluate(arg.target, scope);
    return isObject(target) && arg.field in target;
  }
  const macro = ['all', 'exists', 'exists_one', 'map', 'filter'].includes(node.name) && node.target !== undefined;
  if (macro) {
    const range = evaluate(node.target as Node, scope);
    const [variable, body] = node.args;
    if (variable?.kind !== 'ident' || !body) throw new Error(`CEL: ${node.name}() takes a variable and an expression`);
    const items = Array.isArray(range) ? range : isObject(range) ? Object.keys(range) : [];
    const results = items.map((item) => evaluate(body, { ...scope, [variable.name]: item }));
    switch (node.name) {
      case 'all':
        return results.every(truthy);
      case 'exists':
        return results.some(truthy);
      case 'exists_one':
        return results.filter(truthy).length === 1;
      case 'map':
        return results;
      default:
        return items.filter((_, i) => truthy(results[i]));
    }
  }
  const target = node.target ? evaluate(node.target, scope) : undefined;
  const args = node.args.map((arg) => evaluate(arg, scope));
  const subject = node.target ? target : args.shift();
  switch (node.name) {
    case 'bytes':
      // CEL's string-to-bytes conversion: the UTF-8 encoding
      if (typeof subject === 'string') return new TextEncoder().encode(subject);
      throw new Error('CEL: no matching overload for bytes()');
    case 'size':
      if (subject instanceof Uint8Array) return subject.length;
      if (typeof subject === 'string') return [...subject].length;
      if (Array.isArray(subject)) return subject.length;
      if (isObject(subject)) return Object.keys(subject).length;
      break;
    case 'startsWith':
      return (subject as string).startsWith(args[0] as string);
    case 'endsWith':
      return (subject as string).endsWith(args[0] as string);
    case 'contains':
      return (subject as string).includes(args[0] as string);
    case 'matches':
      return new RegExp(args[0] as string, 'u').test(subject as string);
  }
  throw new Error(`CEL: unsupported function ${node.name}`);
};

const cache = new Map<string, Node>();

/** Evaluates `rule` with the given variables (`self`, and `oldSelf` for transition rules). */
export const evaluateCel = (rule: string, scope: Scope): unknown => {
  let ast = cache.get(rule);
  if (!ast) {
    ast = new Parser(tokenize(rule), rule).parseAll();
    cache.set(rule, ast);
  }
  return evaluate(ast, scope);
};

/** True when the rule reads `oldSelf`: a transition rule, evaluated on update only. */
export const isTransitionRule = (rule: string): boolean => /\boldSelf\b/.test(rule);
