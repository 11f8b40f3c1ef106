// Names a unit declares that the rules look up: module constants, static and class fields, fields
// a constructor sets, and helpers that return a clock reading (LOCK005, LOCK006).
import type { Node } from '@vscode/tree-sitter-wasm';
import { lastName } from './keys';
import { isReleaseLua, RELEASE_NAME } from './scripts';
import { isConstant, unwrap } from './syntax';
import type { UnitContext } from './units';
import { CLOCK_CALL, DEADLINE_NAME, declaredValue, GENERATED, isDeadline, NULLISH } from './values';

/** A name declared outside functions (or on `this` in a constructor), for LOCK005/LOCK006. */
export interface Declaration {
  name: string;
  /** A literal, whatever the name. */
  literal: boolean;
  /** A clock reading, or a function that returns one. */
  clock: boolean;
  /** The clock reading is an expiry time (`now + ttl`), not the moment something happened. */
  deadline?: boolean;
  /** Generated (uuid, random): once per process when `perProcess`. */
  generated: boolean;
  /** Module level, static or class attribute: one value for every acquisition in the process. */
  perProcess: boolean;
  /** A compare-and-delete script (its Lua, or a script registered or loaded from it, named like a release). */
  releaseScript?: boolean;
  /** A script registered or loaded from another name (`client.register_script(LUA)`): that name. */
  scriptFrom?: string;
}

/** Calls that register or load a script: what they make runs the script they are given. */
const REGISTERS =
  /register_script|NewScript|RedisScript|LuaScript|\bPrepare\b|defineScript|Script(?:::|\.)new|script_?load|load_?script|createScript/i;

/** What a declared value says about scripts: a release script, or the name of a script it registers. */
function scriptOf(value: Node, name: string): Pick<Declaration, 'releaseScript' | 'scriptFrom'> {
  if (isReleaseLua(value.text)) return { releaseScript: true };
  if (!/call|invocation|creation|new/.test(value.type) || !REGISTERS.test(value.text.slice(0, 200))) return {};
  if (RELEASE_NAME.test(`${name} ${value.text.slice(0, 200)}`)) return { releaseScript: true };
  const args =
    value.childForFieldName('arguments') ?? value.namedChildren.find((child) => child?.type.includes('argument'));
  for (const arg of args?.namedChildren ?? []) {
    const inner = arg && unwrap(arg.type === 'pair' ? (arg.childForFieldName('value') ?? arg) : arg);
    if (inner && /^(identifier|constant|variable_name|field_access|member_expression|attribute)$/.test(inner.type))
      return { scriptFrom: lastName(inner.text) };
  }
  return {};
}

const CONSTRUCTOR = /^(__init__|initialize|constructor|__construct|init)$/;
const DECLARATION_TYPES: ReadonlySet<string> = new Set([
  'variable_declarator',
  'assignment',
  'assignment_expression',
  'short_var_declaration',
  'var_spec',
  'const_spec',
  'const_element',
  'property_element',
  'public_field_definition',
  'field_definition',
  'property_declaration',
]);

/** `node` and its named descendants down to `depth` levels. */
function shallow(node: Node, depth: number): Node[] {
  const out = [node];
  if (depth > 0) for (const child of node.namedChildren) if (child) out.push(...shallow(child, depth - 1));
  return out;
}

/** Names declared in a unit outside functions, and fields a constructor sets. */
export function readDeclarations(unit: Node, context: UnitContext): Declaration[] {
  const { syntax } = context;
  const out: Declaration[] = [];
  const isFunction =
    syntax.functions.has(unit.type) ||
    /decorated_definition|method_declaration|function_declaration|method$/.test(unit.type);
  const unitName =
    unit.childForFieldName('name')?.text ??
    unit.namedChildren.find((c) => c && syntax.functions.has(c.type))?.childForFieldName('name')?.text;
  if (isFunction) {
    // A helper that returns a clock reading (`getExpireTime()`): its name stands for a timestamp.
    if (unitName && CLOCK_CALL.test(unit.text) && /\breturn\b|=>|^\s*def\b/.test(unit.text) && unit.text.length < 2000)
      out.push({
        name: unitName,
        literal: false,
        clock: true,
        deadline: isDeadline(unit.text) || DEADLINE_NAME.test(unitName),
        generated: false,
        perProcess: false,
      });
    const constructor =
      (unitName && CONSTRUCTOR.test(unitName)) ||
      /constructor_declaration/.test(unit.type) ||
      (unitName === context.className && !!unitName);
    if (!constructor) return out;
  }
  // Outside functions a declaration is the unit or a child of it (C#: a grandchild); a constructor's fields are anywhere in it.
  const nodes = isFunction ? unit.descendantsOfType([...DECLARATION_TYPES]) : shallow(unit, 2);
  for (const node of nodes) {
    if (!node || !DECLARATION_TYPES.has(node.type)) continue;
    const target =
      node.childForFieldName('name') ??
      node.childForFieldName('left') ??
      node.childForFieldName('property') ??
      node.namedChild(0);
    let value = declaredValue(node) ?? node.childForFieldName('default_value');
    if (!value && /const_element|property_element/.test(node.type)) value = node.namedChild(node.namedChildCount - 1);
    if (!target || !value || value.id === target.id) continue;
    if (value.type === 'expression_list') value = value.namedChild(0) ?? value;
    const rawName = target.type === 'expression_list' ? (target.namedChild(0)?.text ?? '') : target.text;
    if (isFunction && !/^(this\.|self\.|@|\$this->)/.test(rawName)) continue;
    const name = lastName(rawName);
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) continue;
    // Members are units of their own: the unit's text is the whole declaration, modifiers included.
    const declaration = unit.text;
    const perProcess =
      !isFunction &&
      (context.moduleLevel ||
        /\bstatic\b|\bconst\b|\bfinal static\b/.test(declaration.slice(0, 200)) ||
        syntax.grammar === 'python' ||
        (syntax.grammar === 'ruby' && /^[A-Z]/.test(name)));
    const unwrapped = unwrap(value);
    const declared: Declaration = {
      name,
      literal: isConstant(unwrapped) && !NULLISH.test(unwrapped.text),
      clock: CLOCK_CALL.test(unwrapped.text),
      deadline: isDeadline(unwrapped.text),
      generated: GENERATED.test(unwrapped.text),
      perProcess,
      ...scriptOf(unwrapped, name),
    };
    // Only names that can make a value constant or a timestamp, or name a release script, matter to the rules.
    if (
      declared.literal ||
      declared.clock ||
      (declared.generated && perProcess) ||
      declared.releaseScript ||
      declared.scriptFrom
    )
      out.push(declared);
  }
  return out;
}
