// Which client library a user most likely has: from the active file's language, the imports
// in its source and the workspace's dependency manifests. Free of `vscode` imports: the
// extension passes manifest texts in, and the language server's quick fixes reuse it.
import { CLIENTS, type ClientInfo } from './clients';

/** A manifest file the workspace has: its base name and its text. */
export interface Manifest {
  name: string;
  text: string;
}

/** What shows a client in use: a dependency in a manifest, an import in a source file. */
interface Evidence {
  /** Manifest base names (exact, or a suffix such as `.csproj`) and what marks the dependency there. */
  manifests: Array<{ name: string; dependency: RegExp }>;
  imports: RegExp;
}

// A JSON or TOML dependency key: `"ioredis":` or `redis =` at the start of a line.
const jsonDependency = (name: string) => new RegExp(`"${name}"\\s*:`);
const tomlDependency = (name: string) => new RegExp(`^\\s*${name}\\s*=`, 'm');
// requirements.txt and pyproject's PEP 508 lists: the name, then a version, extra or the end.
const pep508 = /(^|["'\s])redis\s*(\[[^\]]*\])?\s*([<>=!~;,"'\s]|$)/m;

// Spring Boot's starter (the reactive one too) or the library itself, as a Gradle coordinate.
const SPRING_DATA_REDIS_GRADLE = /org\.springframework\.(boot:spring-boot-starter|data:spring)-data-redis\b/;

const EVIDENCE: Record<string, Evidence> = {
  ioredis: {
    manifests: [{ name: 'package.json', dependency: jsonDependency('ioredis') }],
    imports: /(from\s+|require\()\s*['"]ioredis['"]/,
  },
  'node-redis': {
    manifests: [{ name: 'package.json', dependency: /"(redis|@redis\/client)"\s*:/ }],
    imports: /(from\s+|require\()\s*['"](redis|@redis\/client)['"]/,
  },
  'glide-node': {
    manifests: [{ name: 'package.json', dependency: jsonDependency('@valkey/valkey-glide') }],
    imports: /(from\s+|require\()\s*['"]@valkey\/valkey-glide['"]/,
  },
  'glide-go': {
    manifests: [{ name: 'go.mod', dependency: /github\.com\/valkey-io\/valkey-glide\/go\b/ }],
    imports: /"github\.com\/valkey-io\/valkey-glide\/go(\/v\d+)?"/,
  },
  'glide-java': {
    manifests: [
      { name: 'pom.xml', dependency: /<artifactId>\s*valkey-glide\s*</ },
      { name: 'build.gradle', dependency: /io\.valkey:valkey-glide\b/ },
      { name: 'build.gradle.kts', dependency: /io\.valkey:valkey-glide\b/ },
    ],
    imports: /^\s*import\s+(static\s+)?glide\.api\./m,
  },
  'redis-py': {
    manifests: [
      { name: 'requirements.txt', dependency: pep508 },
      { name: 'pyproject.toml', dependency: pep508 },
      { name: 'Pipfile', dependency: tomlDependency('redis') },
    ],
    imports: /^\s*(import\s+redis\b|from\s+redis(\.asyncio)?\s+import\b)/m,
  },
  // The asyncio package only: valkey-glide-sync (module glide_sync) is another API.
  'glide-python': {
    manifests: ['requirements.txt', 'pyproject.toml'].map((name) => ({
      name,
      dependency: /(^|["'\s])valkey-glide\s*(\[[^\]]*\])?\s*([<>=!~;,"'\s]|$)/m,
    })),
    imports: /^\s*(import\s+glide\b|from\s+glide(\.\w+)*\s+import\b)/m,
  },
  jedis: {
    manifests: [
      { name: 'pom.xml', dependency: /<artifactId>\s*jedis\s*</ },
      { name: 'build.gradle', dependency: /redis\.clients:jedis\b/ },
      { name: 'build.gradle.kts', dependency: /redis\.clients:jedis\b/ },
    ],
    imports: /^\s*import\s+redis\.clients\.jedis\./m,
  },
  lettuce: {
    manifests: [
      { name: 'pom.xml', dependency: /<artifactId>\s*lettuce-core\s*</ },
      { name: 'build.gradle', dependency: /io\.lettuce:lettuce-core\b/ },
      { name: 'build.gradle.kts', dependency: /io\.lettuce:lettuce-core\b/ },
    ],
    imports: /^\s*import\s+io\.lettuce\.core\b/m,
  },
  'spring-data-redis': {
    manifests: [
      { name: 'pom.xml', dependency: /<artifactId>\s*spring-(boot-starter-)?data-redis(-reactive)?\s*</ },
      { name: 'build.gradle', dependency: SPRING_DATA_REDIS_GRADLE },
      { name: 'build.gradle.kts', dependency: SPRING_DATA_REDIS_GRADLE },
    ],
    imports: /^\s*import\s+org\.springframework\.data\.redis\./m,
  },
  'go-redis': {
    manifests: [{ name: 'go.mod', dependency: /github\.com\/(redis\/go-redis|go-redis\/redis)\b/ }],
    imports: /"github\.com\/(redis\/go-redis|go-redis\/redis)(\/v\d+)?"/,
  },
  redigo: {
    manifests: [{ name: 'go.mod', dependency: /github\.com\/gomodule\/redigo\b/ }],
    imports: /"github\.com\/gomodule\/redigo\/redis"/,
  },
  stackexchange: {
    manifests: [{ name: '.csproj', dependency: /Include="StackExchange\.Redis"/i }],
    imports: /^\s*using\s+StackExchange\.Redis\s*;/m,
  },
  phpredis: {
    manifests: [{ name: 'composer.json', dependency: jsonDependency('ext-redis') }],
    // An extension: no import to read, but `new Redis(`, a `Redis $redis` parameter or `Redis::` constants.
    imports: /new\s+\\?Redis\s*\(|(?<![\w\\])\\?Redis\s+\$\w|(?<![\w\\])\\?Redis::/,
  },
  predis: {
    manifests: [{ name: 'composer.json', dependency: jsonDependency('predis/predis') }],
    imports: /\bPredis\\|new\s+\\?Predis\\Client\b/,
  },
  'redis-rb': {
    manifests: [{ name: 'Gemfile', dependency: /^\s*gem\s+['"]redis['"]/m }],
    imports: /^\s*require\s+['"]redis['"]/m,
  },
  'redis-rs': {
    manifests: [{ name: 'Cargo.toml', dependency: tomlDependency('redis') }],
    imports: /^\s*use\s+redis\b/m,
  },
};

/** Manifest base names worth reading (globs for the workspace search: `*.csproj` and so on). */
export const MANIFEST_GLOBS: readonly string[] = [
  ...new Set(
    Object.values(EVIDENCE).flatMap((evidence) =>
      evidence.manifests.map(({ name }) => (name.startsWith('.') ? `*${name}` : name)),
    ),
  ),
];

export interface InferInput {
  /** The active editor's language id, if any. */
  languageId?: string;
  /** The active file's text, searched for imports. */
  source?: string;
  manifests?: readonly Manifest[];
  /** The client the user picked last time in this workspace. */
  remembered?: string;
}

function matchesManifest(evidence: Evidence, manifest: Manifest): boolean {
  return evidence.manifests.some(
    ({ name, dependency }) =>
      (name.startsWith('.') ? manifest.name.endsWith(name) : manifest.name === name) && dependency.test(manifest.text),
  );
}

/**
 * Every client, most likely first: an import in the active file beats the remembered choice,
 * which beats a manifest dependency; clients for the active language come before the rest.
 * Ties keep the table's order, so the result is stable.
 */
export function rankClients({ languageId, source, manifests = [], remembered }: InferInput): ClientInfo[] {
  const score = (client: ClientInfo): number => {
    const evidence = EVIDENCE[client.id];
    const forLanguage = languageId !== undefined && client.languageIds.includes(languageId);
    // Outside the active language, evidence only orders the leftovers.
    const weight = forLanguage || languageId === undefined ? 1 : 0.1;
    let points = forLanguage ? 1 : 0;
    if (forLanguage && source && evidence.imports.test(source)) points += 16;
    if (client.id === remembered) points += 8 * weight;
    if (manifests.some((manifest) => matchesManifest(evidence, manifest))) points += 4 * weight;
    return points;
  };
  return CLIENTS.map((client, order) => ({ client, order, points: score(client) }))
    .sort((a, b) => b.points - a.points || a.order - b.order)
    .map(({ client }) => client);
}

/** Whether the file imports `client` or a manifest depends on it: more than a guess by language. */
export function usesClient(client: ClientInfo, source: string, manifests: Manifest[] = []): boolean {
  const evidence = EVIDENCE[client.id];
  return evidence.imports.test(source) || manifests.some((manifest) => matchesManifest(evidence, manifest));
}
