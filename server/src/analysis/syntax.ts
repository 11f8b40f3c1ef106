// What the rules need to know about each grammar: how a method call looks, which nodes are
// functions, classes, blocks, conditions and string literals. Everything else is shared.
import type { Node } from '@vscode/tree-sitter-wasm';
import { grammarOf, type Grammar } from '../languages';

export interface Arg {
  /** The argument as written (with a keyword/named prefix if any). */
  node: Node;
  /** The expression passed. */
  value: Node;
  /** Keyword or named argument name (`nx=True`, `when: When.NotExists`), lower case. */
  name?: string;
}

export interface Call {
  node: Node;
  /** The method name as written; diagnostics start here. */
  nameNode: Node;
  receiver?: Node;
  args: Arg[];
}

export interface Syntax {
  grammar: Grammar;
  /** Reads a method call from `node`, or undefined when `node` is not one. */
  call(node: Node): Call | undefined;
  functions: ReadonlySet<string>;
  classes: ReadonlySet<string>;
  /** Nodes whose children are statements. */
  blocks: ReadonlySet<string>;
  /** Nodes with a `condition` field whose other parts run only when it holds. */
  conditionals: ReadonlySet<string>;
  /** Loops: an acquire inside one may be a retry loop (LOCK010). */
  loops: ReadonlySet<string>;
  /** Nodes whose named children are declarations (class bodies, namespaces): units are found inside them. */
  containers: ReadonlySet<string>;
  /** Go: methods of one receiver type form the "class". */
  classOf?(fn: Node): string | undefined;
}

const named = (node: Node | null): Node[] =>
  node ? node.namedChildren.filter((child): child is Node => !!child && !child.type.includes('comment')) : [];

/** Arguments that are plain expressions (JS, Java, Go). */
const plainArgs = (list: Node | null): Arg[] => named(list).map((value) => ({ node: value, value }));

/** `name: value` / `name = value` arguments: the value is the last named child. */
function namedArg(node: Node, nameField = 'name'): Arg {
  const name = node.childForFieldName(nameField);
  const children = named(node);
  const value = node.childForFieldName('value') ?? children[children.length - 1] ?? node;
  return name && name.id !== value.id ? { node, value, name: name.text.toLowerCase() } : { node, value };
}

/** Arguments where nodes of `namedType` carry a name (`nx=True`, `when: When.NotExists`). */
const argsNamedBy =
  (namedType: string) =>
  (list: Node | null): Arg[] =>
    named(list).map((arg) => (arg.type === namedType ? namedArg(arg) : { node: arg, value: arg }));

/** `receiver.name(args)` where the callee is a member node in the `function` field. */
function memberCall(
  node: Node,
  [callType, memberType, nameField, objectField]: [string, string, string, string],
  readArgs: (list: Node | null) => Arg[] = plainArgs,
): Call | undefined {
  if (node.type !== callType) return undefined;
  const fn = node.childForFieldName('function');
  if (fn?.type !== memberType) return undefined;
  const nameNode = fn.childForFieldName(nameField);
  if (!nameNode) return undefined;
  return {
    node,
    nameNode,
    receiver: fn.childForFieldName(objectField) ?? undefined,
    args: readArgs(node.childForFieldName('arguments')),
  };
}

const set = (...types: string[]): ReadonlySet<string> => new Set(types);

const JS_FUNCTIONS = set(
  'function_declaration',
  'function_expression',
  'function',
  'arrow_function',
  'method_definition',
  'generator_function_declaration',
  'generator_function',
);
const JS_CLASSES = set('class_declaration', 'class', 'abstract_class_declaration');
const JS_BLOCKS = set('program', 'statement_block', 'switch_case', 'switch_default');
const JS_CONDITIONALS = set('if_statement', 'ternary_expression', 'while_statement');

function javascript(grammar: Grammar): Syntax {
  return {
    grammar,
    call: (node) => memberCall(node, ['call_expression', 'member_expression', 'property', 'object']),
    functions: JS_FUNCTIONS,
    classes: JS_CLASSES,
    blocks: JS_BLOCKS,
    conditionals: JS_CONDITIONALS,
    loops: set('while_statement', 'do_statement', 'for_statement', 'for_in_statement'),
    containers: set(
      'program',
      'export_statement',
      'class_body',
      'class_declaration',
      'class',
      'abstract_class_declaration',
    ),
  };
}

const python: Syntax = {
  grammar: 'python',
  call: (node) => memberCall(node, ['call', 'attribute', 'attribute', 'object'], argsNamedBy('keyword_argument')),
  functions: set('function_definition', 'lambda'),
  classes: set('class_definition'),
  blocks: set('module', 'block'),
  conditionals: set('if_statement', 'elif_clause', 'conditional_expression', 'while_statement'),
  loops: set('while_statement', 'for_statement'),
  containers: set('module', 'class_definition', 'decorated_definition', 'block'),
};

const java: Syntax = {
  grammar: 'java',
  call(node) {
    if (node.type !== 'method_invocation') return undefined;
    const nameNode = node.childForFieldName('name');
    if (!nameNode) return undefined;
    return {
      node,
      nameNode,
      receiver: node.childForFieldName('object') ?? undefined,
      args: plainArgs(node.childForFieldName('arguments')),
    };
  },
  functions: set('method_declaration', 'constructor_declaration', 'lambda_expression'),
  classes: set('class_declaration', 'enum_declaration', 'record_declaration'),
  blocks: set('program', 'block', 'switch_block_statement_group'),
  conditionals: set('if_statement', 'ternary_expression', 'while_statement'),
  loops: set('while_statement', 'do_statement', 'for_statement', 'enhanced_for_statement'),
  containers: set(
    'program',
    'class_declaration',
    'enum_declaration',
    'record_declaration',
    'interface_declaration',
    'class_body',
    'enum_body',
    'interface_body',
    'enum_body_declarations',
  ),
};

const go: Syntax = {
  grammar: 'go',
  call: (node) => memberCall(node, ['call_expression', 'selector_expression', 'field', 'operand']),
  functions: set('function_declaration', 'method_declaration', 'func_literal'),
  classes: set(),
  blocks: set('source_file', 'statement_list', 'block', 'expression_case', 'default_case'),
  conditionals: set('if_statement', 'for_statement'),
  loops: set('for_statement'),
  containers: set('source_file'),
  classOf(fn) {
    if (fn.type !== 'method_declaration') return undefined;
    const receiver = fn.childForFieldName('receiver');
    const type = receiver?.descendantsOfType('type_identifier')[0];
    return type ? `go:${type.text}` : undefined;
  },
};

const php: Syntax = {
  grammar: 'php',
  call(node) {
    if (
      node.type !== 'member_call_expression' &&
      node.type !== 'nullsafe_member_call_expression' &&
      node.type !== 'scoped_call_expression'
    ) {
      return undefined;
    }
    const nameNode = node.childForFieldName('name');
    if (!nameNode) return undefined;
    const args = argsNamedBy('argument')(node.childForFieldName('arguments'));
    const receiver = node.childForFieldName('object') ?? node.childForFieldName('scope') ?? undefined;
    return { node, nameNode, receiver, args };
  },
  functions: set(
    'function_definition',
    'method_declaration',
    'anonymous_function',
    'anonymous_function_creation_expression',
    'arrow_function',
  ),
  classes: set('class_declaration', 'trait_declaration'),
  blocks: set('program', 'compound_statement', 'case_statement', 'default_statement', 'colon_block'),
  conditionals: set('if_statement', 'else_if_clause', 'conditional_expression', 'while_statement'),
  loops: set('while_statement', 'do_statement', 'for_statement', 'foreach_statement'),
  containers: set(
    'program',
    'class_declaration',
    'trait_declaration',
    'declaration_list',
    'namespace_definition',
    'compound_statement',
  ),
};

const csharp: Syntax = {
  grammar: 'c-sharp',
  call(node) {
    const readArgs = argsNamedBy('argument');
    const member = memberCall(
      node,
      ['invocation_expression', 'member_access_expression', 'name', 'expression'],
      readArgs,
    );
    if (member || node.type !== 'invocation_expression') return member;
    // A class's own method, called without `this.`: `SetNx(key, value)`.
    const nameNode = node.childForFieldName('function');
    if (nameNode?.type !== 'identifier') return undefined;
    return { node, nameNode, args: readArgs(node.childForFieldName('arguments')) };
  },
  functions: set(
    'method_declaration',
    'constructor_declaration',
    'local_function_statement',
    'lambda_expression',
    'anonymous_method_expression',
  ),
  classes: set('class_declaration', 'struct_declaration', 'record_declaration'),
  blocks: set('compilation_unit', 'block', 'switch_section', 'global_statement'),
  conditionals: set('if_statement', 'conditional_expression', 'while_statement'),
  loops: set('while_statement', 'do_statement', 'for_statement', 'foreach_statement'),
  containers: set(
    'compilation_unit',
    'namespace_declaration',
    'file_scoped_namespace_declaration',
    'declaration_list',
    'class_declaration',
    'struct_declaration',
    'record_declaration',
  ),
};

const ruby: Syntax = {
  grammar: 'ruby',
  call(node) {
    if (node.type !== 'call') return undefined;
    const nameNode = node.childForFieldName('method');
    // A receiver-less call is a method of the class or module itself (`setnx(key, v)` in a mixin).
    const receiver = node.childForFieldName('receiver') ?? undefined;
    if (!nameNode) return undefined;
    const args = named(node.childForFieldName('arguments')).map((arg) => {
      if (arg.type !== 'pair') return { node: arg, value: arg };
      const key = arg.childForFieldName('key');
      const value = arg.childForFieldName('value') ?? arg;
      return { node: arg, value, name: key?.text.replace(/^:|:$/g, '').toLowerCase() };
    });
    return { node, nameNode, receiver, args };
  },
  functions: set('method', 'singleton_method', 'lambda'),
  classes: set('class', 'module', 'singleton_class'),
  blocks: set('program', 'body_statement', 'then', 'else', 'do', 'block_body', 'begin', 'ensure', 'do_block', 'block'),
  conditionals: set('if', 'elsif', 'unless', 'if_modifier', 'unless_modifier', 'conditional', 'while'),
  loops: set('while', 'until', 'while_modifier', 'until_modifier', 'for'),
  containers: set('program', 'class', 'module', 'singleton_class', 'body_statement'),
};

const SYNTAX: Record<Exclude<Grammar, 'lua'>, Syntax> = {
  javascript: javascript('javascript'),
  typescript: javascript('typescript'),
  tsx: javascript('tsx'),
  python,
  java,
  go,
  php,
  'c-sharp': csharp,
  ruby,
};

/** The host-language syntax of a language id; Lua files have their own checks (lua.ts). */
export function syntaxFor(languageId: string): Syntax | undefined {
  const grammar = grammarOf(languageId);
  return grammar && grammar !== 'lua' ? SYNTAX[grammar] : undefined;
}

/** Unwraps `await x`, `(x)` and similar wrappers. */
export function unwrap(node: Node): Node {
  let current = node;
  while (
    ['await_expression', 'parenthesized_expression', 'await', 'argument'].includes(current.type) &&
    current.namedChildCount > 0
  ) {
    current = current.namedChild(current.namedChildCount - 1)!;
  }
  return current;
}

const STRING = /string|char/;
const NUMBER =
  /^(number|integer|float|decimal_integer_literal|int_literal|integer_literal|real_literal|float_literal|decimal_floating_point_literal)$/;
const BOOLEAN = /^(true|false|boolean|boolean_literal|simple_symbol|null_literal|nil|none)$/;
/** Boxed constants: `Boolean.TRUE`, `Boolean.FALSE`. */
const CONSTANT_OBJECT = /^Boolean\.(?:TRUE|FALSE)$/;

/** A constant literal: a string without interpolation, a number or a boolean. */
export function isConstant(node: Node): boolean {
  const value = unwrap(node);
  if (NUMBER.test(value.type) || BOOLEAN.test(value.type) || CONSTANT_OBJECT.test(value.text)) return true;
  if (!STRING.test(value.type)) return false;
  return !value.descendantsOfType(INTERPOLATION_TYPES).length;
}
/** Parts of a string literal that are not text: `${x}`, `#{x}`, `{x}`, `$x`. */
const INTERPOLATION_TYPES = [
  'interpolation',
  'template_substitution',
  'string_interpolation',
  'variable_name',
  'simple_variable',
  'interpolated_string_expression',
];

/**
 * The words of an expression, lower case: string contents without quotes, identifiers, keys.
 * Options are recognised by them (`'NX'`, `nx=True`, `.nx()`, `When.NotExists`).
 */
export function words(node: Node): string[] {
  const out: string[] = [];
  const visit = (current: Node) => {
    if (current.namedChildCount === 0) {
      const text = current.text.replace(/^[:'"`@$]+|['"`:]+$/g, '').toLowerCase();
      if (text) out.push(text);
      return;
    }
    for (const child of current.namedChildren) if (child) visit(child);
  };
  visit(node);
  return out;
}
