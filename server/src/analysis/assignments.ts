// The assignments of a function, read once per function: what a name was last given before a
// point, for keys held in variables, values, and the names a GET's result flows into.
import type { Node } from '@vscode/tree-sitter-wasm';
import { declaredValue } from './values';

/** The assignments and declarations of a function, read once: [name, value, offset]. */
export type Assignments = { name: string; value: Node; start: number }[];

const ASSIGNMENT_TYPES = [
  'short_var_declaration',
  'variable_declarator',
  'assignment',
  'assignment_expression',
  'local_variable_declaration',
];

export function assignmentsIn(scope: Node): Assignments {
  const out: Assignments = [];
  for (const declaration of scope.descendantsOfType(ASSIGNMENT_TYPES)) {
    if (!declaration) continue;
    const target = declaration.childForFieldName('name') ?? declaration.childForFieldName('left');
    const value = declaredValue(declaration);
    if (!target || !value) continue;
    const name = target.type === 'expression_list' ? target.namedChild(0)?.text : target.text;
    const valueNode = value.type === 'expression_list' ? value.namedChild(0) : value;
    if (name && valueNode) out.push({ name, value: valueNode, start: declaration.startIndex });
  }
  return out;
}

/** The value last assigned to `name` before `before`, if any. */
export function assignedBefore(assignments: Assignments, name: string, before: number): Node | undefined {
  let found: Node | undefined;
  for (const assignment of assignments)
    if (assignment.start <= before && assignment.name === name) found = assignment.value;
  return found;
}
