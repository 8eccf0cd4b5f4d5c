/**
 * Writes hostsync.json for `init`, `link` and `dev`: creates it from a template, or updates
 * the named fields in place. Keys this module does not touch keep their values and order,
 * so a hand-edited file survives a relink.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE, TARGET_NAME, readConfigFile, type ConfigFile } from './config.js';
import { usageError } from '../errors.js';

/** What a new hostsync.json holds besides the fields the command was given. */
export const CONFIG_TEMPLATE: ConfigFile = {
  ignore: [],
  restart: 'auto',
  // No hotPaths: only init, which reads the project, knows a folder the app serves without
  // reading it at start-up (a template read at start-up is not live until a restart).
};

/** The fields a command may set from its flags. */
export type EditableField = 'deployment' | 'baseUrl';

export interface FieldChange {
  /** The field's path: "deployment", or "targets.staging.deployment", or "defaultTarget". */
  key: EditableField | 'defaultTarget' | `targets.${string}.${EditableField}`;
  /** null when the field was not set before. */
  from: string | null;
  to: string;
}

export interface ConfigEditResult {
  path: string;
  created: boolean;
  /** Fields whose value changed (a field set to its current value is not a change). */
  changes: FieldChange[];
  /** Keys written because the file lacked them (init's `health`); a key the file has is never replaced. */
  added: string[];
}

/**
 * Sets `fields` in root/hostsync.json, creating the file from CONFIG_TEMPLATE when missing.
 * An existing file is validated first (the same errors as every command), so a broken file
 * is never half-rewritten. Writes nothing when nothing changes. `missing` are keys to add
 * only where the file has none: a value the user wrote is never replaced.
 */
export async function setConfigFields(
  root: string,
  fields: Partial<Record<EditableField, string>>,
  missing: Partial<ConfigFile> = {},
): Promise<ConfigEditResult> {
  const file = path.join(root, CONFIG_FILE);
  const present = await readPresent(file);
  const wanted = Object.entries(fields).filter((e): e is [EditableField, string] => typeof e[1] === 'string');
  if (present === null) {
    const config = { ...Object.fromEntries(wanted), ...CONFIG_TEMPLATE, ...missing };
    await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
    return { path: file, created: true, changes: wanted.map(([key, to]) => ({ key, from: null, to })), added: Object.keys(missing) };
  }
  await readConfigFile(root); // throws the one-line usage error naming what is wrong
  const raw = JSON.parse(present.replace(/^\uFEFF/, '')) as Record<string, unknown>;
  const changes: FieldChange[] = [];
  for (const [key, to] of wanted) {
    const from = typeof raw[key] === 'string' ? (raw[key] as string) : null;
    if (from === to) continue;
    raw[key] = to;
    changes.push({ key, from, to });
  }
  const added: string[] = [];
  for (const [key, value] of Object.entries(missing)) {
    if (key in raw) continue;
    raw[key] = value;
    added.push(key);
  }
  if (changes.length > 0 || added.length > 0) await writeFile(file, `${JSON.stringify(raw, null, 2)}\n`);
  return { path: file, created: false, changes, added };
}

/**
 * Records the user's answer to "does .gitignore also keep files off the deployment?" as
 * hostsync.json "gitignore", creating the file from CONFIG_TEMPLATE when missing.
 */
export async function setGitignoreSetting(root: string, value: boolean): Promise<void> {
  const file = path.join(root, CONFIG_FILE);
  const present = await readPresent(file);
  if (present !== null) await readConfigFile(root); // a broken file is never half-rewritten
  const raw = present === null ? { ...CONFIG_TEMPLATE } : (JSON.parse(present.replace(/^\uFEFF/, '')) as Record<string, unknown>);
  await writeFile(file, `${JSON.stringify({ ...raw, gitignore: value }, null, 2)}\n`);
}

async function readPresent(file: string): Promise<string | null> {
  return readFile(file, 'utf8').then(
    (text) => text,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    },
  );
}

/**
 * Adds target `name` to root/hostsync.json or sets `fields` on it, creating the file from
 * CONFIG_TEMPLATE when missing; the target's other keys stay. The first target becomes
 * "defaultTarget" when the file names no deployment of its own (so plain commands still
 * know where to go). Validated before and after, like setConfigFields.
 */
export async function setTargetFields(
  root: string,
  name: string,
  fields: Partial<Record<EditableField, string>>,
  missing: Partial<ConfigFile> = {},
): Promise<ConfigEditResult> {
  if (!TARGET_NAME.test(name)) throw usageError(`target name "${name}" must be letters, digits, ".", "_" or "-" (one word)`);
  const file = path.join(root, CONFIG_FILE);
  const present = await readPresent(file);
  if (present !== null) await readConfigFile(root);
  const raw = present === null ? { ...CONFIG_TEMPLATE } as Record<string, unknown> : (JSON.parse(present.replace(/^\uFEFF/, '')) as Record<string, unknown>);
  const targets = (raw.targets ??= {}) as Record<string, Record<string, unknown>>;
  const newTarget = targets[name] === undefined;
  const target = (targets[name] ??= {});
  const changes: FieldChange[] = [];
  for (const [key, to] of Object.entries(fields) as Array<[EditableField, string | undefined]>) {
    if (typeof to !== 'string') continue;
    const from = typeof target[key] === 'string' ? (target[key] as string) : null;
    if (from === to) continue;
    target[key] = to;
    changes.push({ key: `targets.${name}.${key}`, from, to });
  }
  if (raw.defaultTarget === undefined && typeof raw.deployment !== 'string' && Object.keys(targets).length === 1) {
    raw.defaultTarget = name;
    changes.push({ key: 'defaultTarget', from: null, to: name });
  }
  const added = Object.keys(missing).filter((key) => !(key in raw));
  for (const key of added) raw[key] = missing[key as keyof ConfigFile];
  if (changes.length > 0 || newTarget || added.length > 0) await writeFile(file, `${JSON.stringify(raw, null, 2)}\n`);
  return { path: file, created: present === null, changes, added };
}
