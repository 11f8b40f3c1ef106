// package.json, typed as far as the tests read it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SettingSchema {
  type?: string;
  default?: unknown;
  scope?: 'application' | 'machine' | 'machine-overridable' | 'window' | 'resource' | 'language-overridable';
  restricted?: boolean;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  items?: { enum?: string[] };
  properties?: Record<string, { description?: string; enum?: string[] }>;
}

export interface PackageJson {
  name: string;
  displayName: string;
  version: string;
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  devDependencies: Record<string, string>;
  capabilities: {
    untrustedWorkspaces: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] };
    virtualWorkspaces: boolean | { supported: boolean | 'limited'; description?: string };
  };
  contributes: {
    commands: Array<{ command: string; title: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
    viewsWelcome: Array<{ view: string; contents: string }>;
    viewsContainers: { activitybar: Array<{ icon: string }> };
    configuration: { properties: Record<string, SettingSchema> };
    snippets: Array<{ language: string; path: string }>;
    walkthroughs: Array<{ steps: Array<{ id: string; media: { image?: string; markdown?: string; svg?: string } }> }>;
  };
}

export function readPackageJson(root = join(__dirname, '..')): PackageJson {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
}

/** The images the walkthrough's steps show, as package.json names them. */
export function walkthroughImages(manifest: PackageJson): string[] {
  return manifest.contributes.walkthroughs.flatMap((walkthrough) =>
    walkthrough.steps.flatMap((step) => (step.media.image ? [step.media.image] : [])),
  );
}
