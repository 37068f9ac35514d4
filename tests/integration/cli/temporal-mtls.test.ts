// Temporal over mutual TLS, configured as docs/operations.md's "Which Temporal server" shows: a profile file
// (TEMPORAL_CONFIG_FILE + TEMPORAL_PROFILE) with [profile.<name>.tls] keys. The server is the dev server behind a
// TLS terminator that demands a client certificate from the test's CA (tests/helpers/tls-terminator.ts). A run
// goes through it (the CLI's client and its in-process workers); a profile without the client certificate, or
// trusting another CA, fails with one line saying so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { cli } from '../../helpers/cli';
import { tempStateDir, testConfigRaw } from '../../helpers/config';
import { startDevServer } from '../../helpers/temporal';
import { makeTestPki, startTlsTerminator, TLS_SERVER_NAME, type TestPki, type TlsTerminator } from '../../helpers/tls-terminator';

let env: TestWorkflowEnvironment;
let pki: TestPki;
let terminator: TlsTerminator;
let vars: Record<string, string>;
let runConfig: string;
beforeAll(async () => {
  env = await startDevServer({ own: true }); // its CLI profile names the "default" namespace
  pki = makeTestPki();
  terminator = await startTlsTerminator(pki, env.address);
  const stateDir = tempStateDir();
  runConfig = path.join(stateDir, 'run.yaml');
  writeFileSync(runConfig, stringify(testConfigRaw(stateDir, (raw) => Object.assign(raw, { iterations: 1 }))));
  const profiles = path.join(stateDir, 'temporal.toml');
  const profile = (name: string, tls: string[]) =>
    [`[profile.${name}]`, `address = "127.0.0.1:${terminator.port}"`, 'namespace = "default"', `[profile.${name}.tls]`, ...tls].join('\n');
  const serverName = `server_name = "${TLS_SERVER_NAME}"`;
  writeFileSync(
    profiles,
    [
      // As in docs/operations.md (plus server_name: the certificate names the server, not the address dialled).
      profile('lab', [
        `client_cert_path = "${pki.clientCert}"`,
        `client_key_path = "${pki.clientKey}"`,
        `server_ca_cert_path = "${pki.ca}"`,
        serverName,
      ]),
      profile('nocert', [`server_ca_cert_path = "${pki.ca}"`, serverName]),
      profile('noname', [
        `client_cert_path = "${pki.clientCert}"`,
        `client_key_path = "${pki.clientKey}"`,
        `server_ca_cert_path = "${pki.ca}"`,
      ]),
      profile('wrongca', [
        `client_cert_path = "${pki.clientCert}"`,
        `client_key_path = "${pki.clientKey}"`,
        `server_ca_cert_path = "${pki.otherCa}"`,
        serverName,
      ]),
    ].join('\n\n'),
  );
  // HOME without the machine user's profile file.
  vars = { HOME: stateDir, XDG_CONFIG_HOME: stateDir, TEMPORAL_CONFIG_FILE: profiles };
});
afterAll(async () => {
  await terminator?.close();
  await env?.teardown();
});

describe('Temporal over mTLS through a profile file', () => {
  it('eval, status and list work through the profile; every connection presented the client certificate', async () => {
    const lab = { ...vars, TEMPORAL_PROFILE: 'lab' };
    const r = await cli(['eval', runConfig, '--name', 'mtls-eval'], lab);
    expect(r.exitCode, r.all).toBe(0);
    const status = await cli(['status', 'mtls-eval'], lab);
    expect(status.exitCode, status.all).toBe(0);
    const list = await cli(['list'], lab);
    expect(list.stdout).toMatch(/^mtls-eval\t/m);
    expect(terminator.accepted()).toBeGreaterThan(0);
  });

  /** The one line a `list` through the profile prints, and its exit code. */
  async function listThrough(profile: string): Promise<{ exitCode?: number; line: string }> {
    const r = await cli(['list'], { ...vars, TEMPORAL_PROFILE: profile });
    return { exitCode: r.exitCode, line: r.all!.trim() };
  }
  const at = () => `collab-loop: the Temporal server at 127.0.0.1:${terminator.port}`;
  const of = (profile: string) => `in profile "${profile}" of ${vars.TEMPORAL_CONFIG_FILE}`;

  it('without the client certificate: one line naming the profile keys, exit 2 (no retrying an outage); a worker too', async () => {
    const line = `${at()} requires a client certificate (tlsv13 alert certificate required): set tls.client_cert_path and tls.client_key_path ${of('nocert')}`;
    expect(await listThrough('nocert')).toEqual({ exitCode: 2, line });
    const worker = await cli(['worker', '--queues', 'workflows'], { ...vars, TEMPORAL_PROFILE: 'nocert' });
    expect({ exitCode: worker.exitCode, line: worker.all!.trim() }).toEqual({ exitCode: 2, line });
  });

  it('a CA that did not sign the server certificate: one line naming the profile key, exit 2', async () => {
    expect(await listThrough('wrongca')).toEqual({
      exitCode: 2,
      line: `${at()} presented a certificate not signed by the CA this client trusts (SELF_SIGNED_CERT_IN_CHAIN): check tls.server_ca_cert_path ${of('wrongca')}`,
    });
  });

  it('without server_name, the address is not a name the certificate carries: one line, exit 2', async () => {
    const r = await listThrough('noname');
    expect(r.exitCode).toBe(2);
    // grpc-js (the client's connection) makes Node print DEP0123 for an IP address as TLS server name first.
    expect(r.line.split('\n').filter((l) => l.startsWith('collab-loop:'))).toEqual([
      `${at()}: Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: ; set tls.server_name ${of('noname')} to a name the certificate carries`,
    ]);
  });
});
