// A self-signed certificate for a test listener on 127.0.0.1 (SAN localhost and 127.0.0.1), as PEM.
import selfsigned from 'selfsigned';

export async function localhostCertificate(): Promise<{ cert: string; key: string }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' });
  return { cert: pems.cert, key: pems.private };
}
