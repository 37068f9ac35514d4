// Where the Temporal server is and how to reach it, from the same environment variables and profile file the
// Temporal CLI reads (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE,
// TEMPORAL_CONFIG_FILE), parsed by the SDK's own envconfig. Every command's client and every worker connect
// through this, so the namespace and credentials are the same for all of them. Secrets stay in the connection.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ClientConfigProfile, loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

export const DEFAULT_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_NAMESPACE = 'default';

/** A mistake in the connection settings: printed as one line (cli/user-error.ts lists this name). */
export class TemporalConfigError extends Error {
  override name = 'TemporalConfigError';
}

export interface TemporalTarget {
  address: string;
  namespace: string;
  /** Set by the environment or a profile (not our default): a server is expected there, never started in its place. */
  addressConfigured: boolean;
  /** For `Connection.connect` (client) and `NativeConnection.connect` (worker) alike. */
  connection: NativeConnectionOptions & { address: string };
  /** The variable or profile key that sets each TLS setting, for messages (cli/tls-diagnosis.ts). */
  tlsSource: { clientCert: string; serverCa: string; serverName: string };
}

type Env = Record<string, string | undefined>;

/** The Temporal CLI's default profile file: $XDG_CONFIG_HOME (or ~/.config)/temporalio/temporal.toml; on macOS under
 *  ~/Library/Application Support. Resolved here so that error messages name the file that was read. */
function profileFile(env: Env): { file: string; explicit: boolean } {
  if (env.TEMPORAL_CONFIG_FILE) return { file: env.TEMPORAL_CONFIG_FILE, explicit: true };
  const home = env.HOME ?? os.homedir();
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : undefined;
  const dir = os.platform() === 'darwin' ? path.join(home, 'Library', 'Application Support') : (xdg ?? path.join(home, '.config'));
  return { file: path.join(dir, 'temporalio', 'temporal.toml'), explicit: false };
}

function readProfileFile(env: Env): { file: string; text?: string } {
  const { file, explicit } = profileFile(env);
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return { file }; // no profile file: environment variables and defaults only
    throw new TemporalConfigError(
      `${explicit ? 'TEMPORAL_CONFIG_FILE: ' : ''}cannot read the Temporal profile file ${file} (${code ?? (err as Error).message})`,
    );
  }
}

const TLS_FILES = [
  { field: 'clientCert', env: 'TEMPORAL_TLS_CLIENT_CERT_PATH', key: 'client_cert_path' },
  { field: 'clientKey', env: 'TEMPORAL_TLS_CLIENT_KEY_PATH', key: 'client_key_path' },
  { field: 'serverCACert', env: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH', key: 'server_ca_cert_path' },
] as const;

/** The SDK reads certificate files itself and would fail with a bare ENOENT; name the variable or profile key. */
function checkTlsFiles(profile: ClientConfigProfile, env: Env, where: string): void {
  const tls = profile.tls;
  if (!tls || tls.disabled) return;
  for (const f of TLS_FILES) {
    const source = tls[f.field];
    if (!source || !('path' in source)) continue;
    const from = env[f.env] === source.path ? f.env : `${where} tls.${f.key}`;
    try {
      readFileSync(source.path);
    } catch (err) {
      throw new TemporalConfigError(
        `${from}: cannot read ${source.path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  if (!tls.clientCert !== !tls.clientKey)
    throw new TemporalConfigError(
      `mTLS needs both a client certificate and its key: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or tls.client_cert_path and tls.client_key_path in ${where})`,
    );
}

/** Today's defaults (127.0.0.1:7233, namespace "default") unless the environment or the selected profile says otherwise. */
export function temporalTarget(env: Env = process.env): TemporalTarget {
  const { file, text } = readProfileFile(env);
  const profileName = env.TEMPORAL_PROFILE || undefined;
  const where = `profile "${profileName ?? 'default'}" of ${file}`;
  if (profileName && text === undefined)
    throw new TemporalConfigError(`TEMPORAL_PROFILE: profile "${profileName}" asked for, but there is no profile file ${file}`);
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({
      profile: profileName,
      ...(text === undefined ? { disableFile: true } : { configSource: { data: text } }),
      overrideEnvVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    });
  } catch (err) {
    const msg = (err as Error).message.split('\n')[0];
    if (/^Profile '.*' not found/.test(msg)) throw new TemporalConfigError(`TEMPORAL_PROFILE: no profile "${profileName}" in ${file}`);
    throw new TemporalConfigError(`${file}: not a valid Temporal profile file (${msg})`);
  }
  checkTlsFiles(profile, env, where);
  const { connectionOptions, namespace } = toClientOptions(profile);
  const address = connectionOptions.address || DEFAULT_ADDRESS;
  // The variable when it is set, else the profile key (when there is a profile file).
  const source = (vars: string[], keys: string[]) =>
    vars.some((v) => env[v]) || text === undefined ? vars.join(' and ') : `${keys.map((k) => `tls.${k}`).join(' and ')} in ${where}`;
  return {
    address,
    namespace: namespace || DEFAULT_NAMESPACE,
    addressConfigured: !!connectionOptions.address,
    connection: { ...connectionOptions, address },
    tlsSource: {
      clientCert: source(['TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CLIENT_KEY_PATH'], ['client_cert_path', 'client_key_path']),
      serverCa: source(['TEMPORAL_TLS_SERVER_CA_CERT_PATH'], ['server_ca_cert_path']),
      serverName: source(['TEMPORAL_TLS_SERVER_NAME'], ['server_name']),
    },
  };
}

/** For messages about an unreachable server: the configured address, or the default if the settings are broken. */
export function temporalAddressForMessages(): string {
  try {
    return temporalTarget().address;
  } catch {
    return process.env.TEMPORAL_ADDRESS ?? DEFAULT_ADDRESS;
  }
}
