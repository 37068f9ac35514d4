// Why a TLS connection to the Temporal server failed. The SDK's connect error says only "Failed to connect before
// the deadline" whatever the cause, so a missing client certificate or a wrong CA looked like a server that is down
// (and commands retried it for 30 s). After a failed connect with TLS on, one handshake of our own with the same
// settings (node:tls) tells a certificate problem apart from an unreachable server.
import tls from 'node:tls';
import { TemporalConfigError, type TemporalTarget } from './temporal-config';

/** The openssl verification codes meaning "the server's certificate is not signed by a CA you trust". */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
]);

/** How long the server may take to refuse a handshake that completed on our side (TLS 1.3 checks the client's
 *  certificate after the client has finished). */
const SETTLE_MS = 3000;

/** ok: still open after SETTLE_MS; closed: closed by the server; otherwise the error's code and first line. */
type Outcome = { kind: 'ok' | 'closed' | 'error'; code?: string; message?: string };

function handshake(target: TemporalTarget, o: tls.ConnectionOptions): Promise<Outcome> {
  const i = target.address.lastIndexOf(':');
  return new Promise((resolve) => {
    const s = tls.connect({ host: target.address.slice(0, i), port: Number(target.address.slice(i + 1)), ALPNProtocols: ['h2'], ...o });
    const done = (r: Outcome) => {
      clearTimeout(timer);
      s.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ kind: 'ok' }), SETTLE_MS);
    // HTTP/2's connection preface (RFC 9113 §3.4): a server that took the handshake waits for more; one that
    // rejects the client's certificate answers it with an alert or by closing.
    s.once('secureConnect', () => s.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    s.once('error', (e: NodeJS.ErrnoException) => done({ kind: 'error', code: e.code, message: e.message.split('\n')[0] }));
    s.once('close', () => done({ kind: 'closed' }));
  });
}

/** A one-line explanation when the TLS settings are why the server cannot be reached; undefined otherwise. */
export async function tlsProblem(target: TemporalTarget): Promise<string | undefined> {
  const t = target.connection.tls;
  if (!t) return undefined;
  const cfg = t === true ? {} : t;
  const r = await handshake(target, {
    servername: cfg.serverNameOverride,
    ca: cfg.serverRootCACertificate ? Buffer.from(cfg.serverRootCACertificate) : undefined,
    cert: cfg.clientCertPair ? Buffer.from(cfg.clientCertPair.crt) : undefined,
    key: cfg.clientCertPair ? Buffer.from(cfg.clientCertPair.key) : undefined,
  });
  const at = `the Temporal server at ${target.address}`;
  if (r.kind === 'ok') return undefined;
  const message = r.message ?? '';
  if (r.kind === 'closed' || /alert/i.test(message)) {
    const detail = r.kind === 'error' ? ` (${message.replace(/^.*:(tlsv1\d? alert [^:]+):.*$/i, '$1')})` : '';
    return cfg.clientCertPair
      ? `${at} refused this client certificate${detail}: it must be signed by a CA the server trusts (${target.tlsSource.clientCert})`
      : `${at} requires a client certificate${detail}: set ${target.tlsSource.clientCert}`;
  }
  if (r.code && UNTRUSTED.has(r.code))
    return `${at} presented a certificate not signed by the CA this client trusts (${r.code}): check ${target.tlsSource.serverCa}`;
  if (r.code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `${at}: ${message}; set ${target.tlsSource.serverName} to a name the certificate carries`;
  if (r.code?.startsWith('CERT_') || r.code?.startsWith('ERR_SSL_')) return `${at}: TLS handshake failed (${r.code}: ${message})`;
  return undefined; // refused, reset, timed out: the server is not there, not a TLS setting
}

/** `connect` (a client's or a worker's connection to `target`); a certificate problem behind its failure is one
 *  TemporalConfigError — a setting to fix, not an outage for the callers to wait out. */
export async function connectDiagnosingTls<T>(target: TemporalTarget, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (err) {
    const problem = await tlsProblem(target);
    throw problem ? new TemporalConfigError(problem) : err;
  }
}
