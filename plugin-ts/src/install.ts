/**
 * Where the sidecar, its ONNX Runtime library and the embedding model are on this machine.
 *
 * somni ships like esbuild: `dsh-somni` has an optional dependency per platform
 * (`dsh-somni-<platform>-<arch>`, holding the binary and ONNX Runtime) and a dependency on the model
 * package. Each package says where its files are in a `somni` field of its package.json. They are
 * found through Node's resolution from this file's own location, so whatever layout the package
 * manager chose (hoisted, pnpm's isolated store, a profile folder) answers the same way, and nothing
 * depends on the checkout that built the plugin.
 */
import { accessSync, chmodSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SomniConfig } from './config.js';

/** Name of the model package. */
export const MODEL_PACKAGE = 'dsh-somni-model-use-lite';
/** Platforms a platform package is published for (`process.platform-process.arch`). */
export const SUPPORTED_PLATFORMS: readonly string[] = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];

/** The platform package expected for a platform. */
export function platformPackage(platform: string, arch: string): string {
  return `dsh-somni-${platform}-${arch}`;
}

/** A degraded state worth telling the user about: logged, and noticed once per session. */
export interface Problem {
  /** Stable key: the same problem is told once per session however often it is seen. */
  key: string;
  /** Full account with the fix, for the log file and the model. */
  message: string;
  /** One line for the transcript row (bounded by the notice code). */
  summary: string;
  /** `off`: memory features are off; `degraded`: they work with less (e.g. keyword-only recall). */
  severity: 'off' | 'degraded';
}

/** What the plugin runs. */
export interface Install {
  /** Sidecar executable, or undefined when none could be found (memory stays off). */
  binary: string | undefined;
  /** Where the binary came from (diagnostics). */
  binarySource: 'config' | 'platform-package' | 'package-local' | 'none';
  /** `--embed-model-dir`, when known. */
  modelDir: string | undefined;
  /** `--ort-lib`, when the platform package has one. */
  ortLib: string | undefined;
  /** `<platform>-<arch>` resolved for. */
  platform: string;
  /** Problems found; `binary` undefined always comes with one of severity `off`. */
  problems: Problem[];
  /** Facts worth a log line but not a notice (e.g. the dev layout's package-local binary). */
  notes: string[];
}

/** Inputs of {@link resolveInstall}, injectable for tests. */
export interface ResolveOptions {
  /** A file inside the plugin package to resolve from (default: this module). */
  from?: string;
  platform?: string;
  arch?: string;
  /** Home directory for `~/` in config paths. */
  home?: string;
}

/** The `somni` field of a platform or model package. */
interface SomniField {
  binary?: unknown;
  ortLib?: unknown;
  modelDir?: unknown;
}

/** A located package: its folder and its `somni` field. */
interface Located {
  dir: string;
  somni: SomniField;
}

/** Expands a leading `~/` and makes a config path absolute (a relative argv[0] would resolve against the child's cwd). */
export function expandPath(p: string, home: string = homedir()): string {
  const expanded = p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p;
  return isAbsolute(expanded) ? expanded : resolve(expanded);
}

/**
 * Finds `<name>/package.json` the way an import from `from` would. A package whose `exports` does
 * not list `./package.json` is still found, by walking Node's own lookup folders.
 * @returns the package folder and its `somni` field, or undefined when not installed.
 */
export function locatePackage(name: string, from: string): Located | undefined {
  const require = createRequire(from);
  let file: string | undefined;
  try {
    file = require.resolve(`${name}/package.json`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') {
      file = (require.resolve.paths(name) ?? []).map((d) => join(d, name, 'package.json')).find((f) => existsSync(f));
    }
  }
  if (!file) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { somni?: unknown };
    const somni = typeof pkg.somni === 'object' && pkg.somni !== null && !Array.isArray(pkg.somni) ? (pkg.somni as SomniField) : {};
    return { dir: dirname(file), somni };
  } catch {
    return { dir: dirname(file), somni: {} };
  }
}

/** A path named by a package's `somni` field, inside that package; undefined when absent or escaping it. */
function packagePath(pkg: Located, value: unknown, fallback: string | undefined): string | undefined {
  const rel = typeof value === 'string' && value !== '' ? value : fallback;
  if (rel === undefined || isAbsolute(rel)) return undefined;
  const p = resolve(pkg.dir, rel);
  return p.startsWith(pkg.dir + sep) ? p : undefined;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The plugin package's root (this file is `<root>/lib/install.js`). */
function pluginRoot(from: string): string {
  return resolve(dirname(from), '..');
}

/**
 * Resolves binary, ONNX Runtime library and model directory, and lists what is missing. Never throws:
 * a plugin that cannot find its sidecar still loads, with memory off and the reason told.
 * @param config - the plugin config.
 * @param options - where to resolve from and for which platform.
 */
export function resolveInstall(config: SomniConfig, options: ResolveOptions = {}): Install {
  const from = options.from ?? fileURLToPath(import.meta.url);
  const platformName = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const platform = `${platformName}-${arch}`;
  const exe = platformName === 'win32' ? 'bin/somni-sidecar.exe' : 'bin/somni-sidecar';
  const home = options.home ?? homedir();
  const problems: Problem[] = [];
  const notes: string[] = [];
  const wantsLocalEmbedder = config.embed.provider === 'local';
  const pkgName = platformPackage(platformName, arch);

  const platformPkg = locatePackage(pkgName, from);
  let binary: string | undefined;
  let binarySource: Install['binarySource'] = 'none';
  if (config.binary) {
    binary = expandPath(config.binary, home);
    binarySource = 'config';
    if (!isFile(binary)) {
      problems.push({
        key: 'binary',
        message: `config.binary ${binary} does not exist or is not a file. Memory features are off. Fix: point config.binary at a somni-sidecar executable, or set it to '' to use the one installed with the plugin (${pkgName}).`,
        summary: 'memory off: config.binary does not exist',
        severity: 'off',
      });
      binary = undefined;
    }
  } else if (platformPkg) {
    const p = packagePath(platformPkg, platformPkg.somni.binary, exe);
    if (p && isFile(p)) {
      binary = p;
      binarySource = 'platform-package';
    } else {
      problems.push({
        key: 'binary',
        message: `the package ${pkgName} (${platformPkg.dir}) has no sidecar binary at ${p ?? String(platformPkg.somni.binary)}. Memory features are off. Fix: reinstall the plugin (dsh plugin add dsh-somni), or set config.binary to a somni-sidecar executable.`,
        summary: `memory off: ${pkgName} has no sidecar binary`,
        severity: 'off',
      });
    }
  } else {
    const local = join(pluginRoot(from), exe);
    if (isFile(local)) {
      binary = local;
      binarySource = 'package-local';
      notes.push(`using the sidecar inside the plugin package (${local}); ${pkgName} is not installed`);
    } else if (SUPPORTED_PLATFORMS.includes(platform)) {
      problems.push({
        key: 'binary',
        message: `no somni sidecar for ${platform}: the package ${pkgName}, an optional dependency of dsh-somni, is not installed. Memory features are off. Fix: reinstall the plugin with optional dependencies enabled (dsh plugin add dsh-somni; npm/pnpm must not run with --no-optional or --omit=optional), or set config.binary to a somni-sidecar executable.`,
        summary: `memory off: no sidecar for ${platform} (${pkgName} not installed)`,
        severity: 'off',
      });
    } else {
      problems.push({
        key: 'binary',
        message: `no somni sidecar is published for ${platform} (published: ${SUPPORTED_PLATFORMS.join(', ')}). Memory features are off. Fix: build the sidecar from source (make build in the somni repository) and set config.binary to it.`,
        summary: `memory off: no somni sidecar for ${platform}`,
        severity: 'off',
      });
    }
  }
  if (binary) {
    // Package managers do not always keep the exec bit of a packed file (pnpm installs a tarball's
    // bin/somni-sidecar as 0644), so the binary is made executable here.
    const why = makeExecutable(binary, platformName);
    if (why && binarySource !== 'config') {
      problems.push({
        key: 'binary',
        message: `${binary} is not executable and could not be made so (${why}). Memory features are off. Fix: chmod +x it (a noexec mount also causes this), or set config.binary to an executable copy.`,
        summary: 'memory off: the sidecar binary is not executable',
        severity: 'off',
      });
      binary = undefined;
    } else if (why) {
      // The user named it: start it anyway, and let the start failure say what the system says.
      notes.push(`config.binary ${binary} is not executable (${why}); starting it anyway`);
    }
  }

  // ONNX Runtime comes with the platform package; without it the sidecar's local embedder falls back.
  let ortLib: string | undefined;
  if (platformPkg) {
    const defaultLib = platformName === 'win32' ? 'lib/onnxruntime.dll' : platformName === 'darwin' ? 'lib/libonnxruntime.dylib' : 'lib/libonnxruntime.so.1';
    const p = packagePath(platformPkg, platformPkg.somni.ortLib, defaultLib);
    if (p && isFile(p)) ortLib = p;
    else if (wantsLocalEmbedder) {
      problems.push({
        key: 'ort-lib',
        message: `the ONNX Runtime library ${p ?? defaultLib} is missing from ${pkgName}; the local embedder falls back (recall works with keywords, without the embedding model). Fix: reinstall the plugin (dsh plugin add dsh-somni).`,
        summary: 'embedder falls back: ONNX Runtime library missing',
        severity: 'degraded',
      });
    }
  }

  let modelDir: string | undefined;
  if (config.embed.modelDir) {
    modelDir = expandPath(config.embed.modelDir, home);
    if (!isDir(modelDir)) {
      problems.push({
        key: 'model',
        message: `config.embed.modelDir ${modelDir} is not a folder; the local embedder falls back (recall works with keywords). Fix: point embed.modelDir at a folder with model.onnx, or set it to '' to use ${MODEL_PACKAGE}.`,
        summary: 'embedder falls back: embed.modelDir not found',
        severity: 'degraded',
      });
    }
  } else if (wantsLocalEmbedder) {
    const model = locatePackage(MODEL_PACKAGE, from);
    const p = model ? packagePath(model, model.somni.modelDir, 'use-lite') : undefined;
    if (p && isDir(p)) {
      modelDir = p;
    } else if (binarySource === 'platform-package') {
      // Installed from npm, the model package is a plain dependency: missing means a broken install.
      problems.push({
        key: 'model',
        message: `the embedding model package ${MODEL_PACKAGE} is ${model ? `installed at ${model.dir} without its model folder` : 'not installed'}; the local embedder falls back (recall works with keywords). Fix: reinstall the plugin (dsh plugin add dsh-somni).`,
        summary: `embedder falls back: ${MODEL_PACKAGE} missing`,
        severity: 'degraded',
      });
    } else {
      // A checkout or a hand-built binary: the sidecar searches its own default places.
      notes.push(`${MODEL_PACKAGE} not found; the sidecar looks for its model itself`);
    }
  }

  return { binary, binarySource, modelDir, ortLib, platform, problems, notes };
}

/** Makes a file executable when it is not; returns why that failed, or '' when it is executable. */
function makeExecutable(file: string, platformName: string): string {
  if (platformName === 'win32' || process.platform === 'win32') return '';
  try {
    accessSync(file, constants.X_OK);
    return '';
  } catch {
    // fall through to chmod
  }
  try {
    chmodSync(file, 0o755);
    accessSync(file, constants.X_OK);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Explains why a spawned sidecar did not come up, in words a user can act on, from the spawn error
 * or exit and the last lines it wrote to stderr.
 * @param why - the sidecar manager's account (`exited (code 127, …)`, `failed to start: spawn … ENOENT`).
 * @param stderrTail - its last stderr lines.
 * @param binary - the executable.
 * @param consequence - what it means for the user, placed before the quoted output.
 */
export function explainStartFailure(why: string, stderrTail: readonly string[], binary: string, consequence = ''): string {
  why = why.replace(/^somni sidecar /, '');
  const tail = stderrTail.length > 0 ? ` Its last output: ${stderrTail.join(' ⏎ ')}` : '';
  let hint = '';
  if (/ENOEXEC|exec format error/i.test(why + tail)) hint = ' The file is not an executable for this machine (built for another OS or CPU?).';
  else if (/EACCES|code 126\b/.test(why)) hint = ' The file is not executable (missing exec bit, or a noexec mount).';
  else if (/ENOENT/.test(why) && existsSync(binary)) hint = ' The file exists but its program loader is missing (e.g. a glibc build on a musl system such as Alpine).';
  else if (/error while loading shared libraries|Library not loaded|GLIBC_/i.test(tail)) hint = ' A shared library it needs is missing or too old on this system.';
  else if (/code 127\b/.test(why)) hint = ' The system could not run it as a program (wrong format, missing loader or library).';
  return `the somni sidecar ${binary} did not start: ${why}.${hint}${consequence ? ` ${consequence}` : ''}${tail}`;
}
