// How the Java snippet proofs build: each program is compiled once against the pinned jars
// (test/proofs/java/pom.xml) and run by every process on its own JVM.
import { indent } from './proof';
import { javac, JVM_FLAGS } from '../../harness/toolchains';

/** Compiles the program at `path` (class Proof) into `<path>.classes`; the command that runs it. */
export async function buildJava(path: string): Promise<string[]> {
  const classpath = await javac(`${path}.build`, [path]);
  return ['java', ...JVM_FLAGS, '-cp', classpath, 'Proof'];
}

/**
 * A program that runs the snippet `rounds` times (argv: url, rounds) in a method taking the
 * client variable the snippet assumes; `after` runs after each round's release.
 */
export function javaProgram(
  imports: string[],
  parameter: string,
  client: string,
): (snippet: string, after: string) => string {
  return (snippet, after) => `${imports.map((name) => `import ${name};`).join('\n')}

final class Proof {
    static void round(${parameter}) throws Exception {
${indent(snippet, '        ')}
${indent(after, '        ')}
    }

    public static void main(String[] argv) throws Exception {
        ${client}
        for (int round = 0; round < Integer.parseInt(argv[1]); round++) round(client);
        // The client's threads (pools, event loops) would keep the JVM alive.
        System.exit(0);
    }
}
`;
}
