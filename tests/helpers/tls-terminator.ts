// A Temporal frontend behind mutual TLS, for tests: the dev server (`temporal server start-dev`, CLI 1.9.1) takes no
// TLS flags, so a Node TLS server that demands a client certificate signed by the test's CA sits in front of its
// plaintext port and pipes each accepted connection through (gRPC's HTTP/2 passes a TCP pipe unchanged; ALPN h2).
// Certificates are made with /usr/bin/openssl: a CA, the server's (SAN = the name clients verify), a client's, and
// an unrelated CA a misconfigured client might trust instead.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

export const TLS_SERVER_NAME = 'temporal.lab.test';

export interface TestPki {
  dir: string;
  ca: string;
  otherCa: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: 'pipe' });

function makeCa(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
  ]);
}

/** A key and a certificate signed by `ca`, with the given extensions (SAN, usage). */
function makeLeaf(dir: string, name: string, ca: string, ext: string): void {
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
  writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(dir, [
    'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial',
    '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`,
  ]); // biome-ignore format: openssl's flags read best in pairs
}

export function makeTestPki(): TestPki {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'collab-loop-pki-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  makeLeaf(dir, 'server', 'ca', `subjectAltName=DNS:${TLS_SERVER_NAME}\nextendedKeyUsage=serverAuth\n`);
  makeLeaf(dir, 'client', 'ca', 'extendedKeyUsage=clientAuth\n');
  const f = (n: string) => path.join(dir, n);
  return {
    dir,
    ca: f('ca.pem'),
    otherCa: f('other-ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
  };
}

export interface TlsTerminator {
  port: number;
  /** Connections that completed the handshake with a client certificate (and were piped through). */
  accepted: () => number;
  close(): Promise<void>;
}

/** Listens on a free loopback port; `upstream` is the dev server's `host:port`. */
export async function startTlsTerminator(pki: TestPki, upstream: string): Promise<TlsTerminator> {
  const [host, port] = [upstream.slice(0, upstream.lastIndexOf(':')), Number(upstream.slice(upstream.lastIndexOf(':') + 1))];
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    {
      key: readFileSync(pki.serverKey),
      cert: readFileSync(pki.serverCert),
      ca: readFileSync(pki.ca),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (client) => {
      accepted++;
      const up = net.connect(port, host);
      for (const s of [client, up]) {
        sockets.add(s);
        s.once('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          up.destroy();
        });
      }
      client.pipe(up).pipe(client);
    },
  );
  server.on('tlsClientError', () => {}); // a client without a certificate is refused; nothing to log
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
