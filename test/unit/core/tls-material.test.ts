/**
 * The node's TLS files: each read and checked before use, a failed reload keeps the files in use
 * and tells no listener, a good one tells each listener once.
 */
import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { readTlsFiles, TlsMaterial } from '../../../node/core/tls-material';
import { tempDir } from '../../helpers/server';

/** A self-signed P-256 certificate and key named `name` in `dir`. */
function selfSigned(dir: string, name: string): { certFile: string; keyFile: string } {
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile };
}

describe('TLS material', () => {
  const dir = tempDir('trawl-tls-material-');
  const one = selfSigned(dir, 'one');
  const two = selfSigned(dir, 'two');

  it('names the setting whose file cannot be read', () => {
    assert.throws(() => readTlsFiles({ ...one, caFile: path.join(dir, 'absent.pem') }), /tls\.ca_file .*absent\.pem cannot be read/);
    assert.throws(
      () => readTlsFiles({ certFile: one.certFile, keyFile: null, caFile: null }),
      /tls\.enabled needs tls\.cert_file and tls\.key_file/,
    );
  });

  it('refuses a key that does not belong to the certificate', () => {
    assert.throws(() => readTlsFiles({ certFile: one.certFile, keyFile: two.keyFile, caFile: null }), /do not make a usable certificate/);
  });

  it('a reload that fails keeps the files in use and tells no listener; one that works tells each listener once', () => {
    const material = TlsMaterial.open({ ...one, caFile: null });
    const told: Buffer[] = [];
    material.onChange((files) => told.push(files.cert));
    assert.equal(material.mutual, false);

    assert.throws(() => material.reload({ certFile: two.certFile, keyFile: one.keyFile, caFile: null }));
    assert.deepEqual(material.files.cert, fs.readFileSync(one.certFile));
    assert.equal(told.length, 0);

    material.reload({ ...two, caFile: one.certFile });
    assert.deepEqual(told, [fs.readFileSync(two.certFile)]);
    assert.deepEqual(material.files.cert, fs.readFileSync(two.certFile));
    assert.equal(material.mutual, true, 'a CA makes the nodes verify each other');
    assert.ok(Date.parse(material.validTo) > Date.now());
  });
});
