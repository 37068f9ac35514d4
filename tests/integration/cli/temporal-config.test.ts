// Connection settings the way the Temporal CLI reads them: environment variables over the selected profile of the
// TOML profile file, our defaults otherwise; a mistake in them is one line naming the variable or file.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TemporalConfigError, temporalTarget } from '../../../cli/temporal-config';
import { cli } from '../../helpers/cli';
import { tempStateDir } from '../../helpers/config';

/** A private HOME/XDG_CONFIG_HOME, so that no profile file of the machine's user is read. */
function isolated(extra: Record<string, string> = {}): Record<string, string> {
  const home = tempStateDir('collab-loop-home-');
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), ...extra };
}

function errorOf(fn: () => unknown): TemporalConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TemporalConfigError);
    return err as TemporalConfigError;
  }
  throw new Error('no error thrown');
}

const PROFILES = `
[profile.default]
address = "10.0.0.1:7233"

[profile.cloud]
address = "my-ns.a1b2c.tmprl.cloud:7233"
namespace = "my-ns.a1b2c"
api_key = "secret-key"

[profile.mtls]
address = "temporal.example.org:7233"
namespace = "loops"
[profile.mtls.tls]
client_cert_path = "CERT"
client_key_path = "KEY"
`;

function profileFile(dir: string, cert: string, key: string): string {
  const file = path.join(dir, 'temporal.toml');
  writeFileSync(file, PROFILES.replace('CERT', cert).replace('KEY', key));
  return file;
}

describe('temporal connection settings', () => {
  it('default to 127.0.0.1:7233, namespace "default", no TLS', () => {
    const t = temporalTarget(isolated());
    expect(t).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', addressConfigured: false });
    expect(t.connection.tls).toBeUndefined();
    expect(t.connection.apiKey).toBeUndefined();
  });

  it('take TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and TEMPORAL_API_KEY (an API key turns TLS on)', () => {
    const t = temporalTarget(
      isolated({ TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'my-ns.a1b2c', TEMPORAL_API_KEY: 'k' }),
    );
    expect(t).toMatchObject({ address: 'my-ns.a1b2c.tmprl.cloud:7233', namespace: 'my-ns.a1b2c', addressConfigured: true });
    expect(t.connection).toMatchObject({ address: 'my-ns.a1b2c.tmprl.cloud:7233', apiKey: 'k', tls: true });
  });

  it('read the default profile of the Temporal CLI profile file, and TEMPORAL_PROFILE selects another', () => {
    const env = isolated();
    const dir = path.join(env.XDG_CONFIG_HOME, 'temporalio');
    mkdirSync(dir, { recursive: true });
    profileFile(dir, 'c', 'k');
    expect(temporalTarget(env)).toMatchObject({ address: '10.0.0.1:7233', namespace: 'default', addressConfigured: true });
    const cloud = temporalTarget({ ...env, TEMPORAL_PROFILE: 'cloud' });
    expect(cloud).toMatchObject({ address: 'my-ns.a1b2c.tmprl.cloud:7233', namespace: 'my-ns.a1b2c' });
    expect(cloud.connection).toMatchObject({ apiKey: 'secret-key', tls: true });
    // Environment variables win over the profile, as in the Temporal CLI.
    expect(temporalTarget({ ...env, TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'other' }).namespace).toBe('other');
  });

  it('load the mTLS client certificate pair named by the profile (TEMPORAL_CONFIG_FILE)', () => {
    const dir = tempStateDir();
    writeFileSync(path.join(dir, 'client.pem'), 'CERT BYTES');
    writeFileSync(path.join(dir, 'client.key'), 'KEY BYTES');
    const file = profileFile(dir, path.join(dir, 'client.pem'), path.join(dir, 'client.key'));
    const t = temporalTarget(isolated({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'mtls' }));
    expect(t).toMatchObject({ address: 'temporal.example.org:7233', namespace: 'loops' });
    const tls = t.connection.tls as { clientCertPair: { crt: Uint8Array; key: Uint8Array } };
    expect(Buffer.from(tls.clientCertPair.crt).toString()).toBe('CERT BYTES');
    expect(Buffer.from(tls.clientCertPair.key).toString()).toBe('KEY BYTES');
  });

  it('a missing TLS certificate file names the variable or the profile key, and the file', () => {
    const dir = tempStateDir();
    const missing = path.join(dir, 'nope.pem');
    writeFileSync(path.join(dir, 'client.key'), 'KEY');
    const fromEnv = errorOf(() =>
      temporalTarget(isolated({ TEMPORAL_TLS_CLIENT_CERT_PATH: missing, TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'client.key') })),
    );
    expect(fromEnv.message).toBe(`TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${missing} (ENOENT)`);
    const file = profileFile(dir, missing, path.join(dir, 'client.key'));
    const fromProfile = errorOf(() => temporalTarget(isolated({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'mtls' })));
    expect(fromProfile.message).toBe(`profile "mtls" of ${file} tls.client_cert_path: cannot read ${missing} (ENOENT)`);
  });

  it('a certificate without its key, an unknown profile, a missing or broken profile file: one clear error each', () => {
    const dir = tempStateDir();
    writeFileSync(path.join(dir, 'client.pem'), 'CERT');
    expect(errorOf(() => temporalTarget(isolated({ TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'client.pem') }))).message).toMatch(
      /^mTLS needs both a client certificate and its key: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH/,
    );
    const file = profileFile(dir, 'c', 'k');
    expect(errorOf(() => temporalTarget(isolated({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' }))).message).toBe(
      `TEMPORAL_PROFILE: no profile "staging" in ${file}`,
    );
    const env = isolated({ TEMPORAL_PROFILE: 'staging' });
    expect(errorOf(() => temporalTarget(env)).message).toBe(
      `TEMPORAL_PROFILE: profile "staging" asked for, but there is no profile file ${path.join(env.XDG_CONFIG_HOME, 'temporalio', 'temporal.toml')}`,
    );
    const absent = path.join(dir, 'absent.toml');
    expect(errorOf(() => temporalTarget(isolated({ TEMPORAL_CONFIG_FILE: absent }))).message).toBe(
      `TEMPORAL_CONFIG_FILE: cannot read the Temporal profile file ${absent} (ENOENT)`,
    );
    const broken = path.join(dir, 'broken.toml');
    writeFileSync(broken, '[profile.default\naddress = 1\n');
    expect(errorOf(() => temporalTarget(isolated({ TEMPORAL_CONFIG_FILE: broken }))).message).toMatch(
      new RegExp(`^${broken.replace(/[.]/g, '\\.')}: not a valid Temporal profile file \\(.+\\)$`),
    );
  });

  it('the CLI prints that error as one line, exits 2 and contacts no server', async () => {
    const missing = path.join(tempStateDir(), 'client.pem');
    const r = await cli(['status', 'any-run'], isolated({ TEMPORAL_TLS_CLIENT_CERT_PATH: missing, TEMPORAL_TLS_CLIENT_KEY_PATH: missing }));
    expect(r.exitCode, r.all).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`collab-loop: TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${missing} (ENOENT)`]);
    expect(r.all).not.toMatch(/\n\s+at /);
  });
});
