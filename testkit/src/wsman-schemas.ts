// The published schemas WS-Management requests are checked against, taken from Maven Central (the only
// reachable source that carries them): DMTF DSP8015 `wsman.xsd` as shipped in OpenNMS's WS-Man client
// jar, and WS-Addressing 2004/08 and xml.xsd as shipped in Apache CXF. Fetched once into ~/.m2 with
// `mvn dependency:get`. Only the import locations are pointed at the local copies; no schema is changed.
// Not covered (no reachable copy): the SOAP 1.2 envelope schema and Microsoft's shell schema (MS-WSMV),
// so the envelope wrapper and the rsp:* body elements are not schema-checked.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

const ARTIFACTS = {
  wsman: { gav: 'org.opennms.core.wsman:org.opennms.core.wsman.cxf:1.2.3', entry: 'xsds/wsman.xsd' },
  addressing: { gav: 'org.apache.cxf:cxf-core:3.6.4', entry: 'schemas/wsdl/addressing.xsd' },
  xml: { gav: 'org.apache.cxf:cxf-core:3.6.4', entry: 'schemas/wsdl/xml.xsd' },
} as const;

function jarPath(gav: string): string {
  const [g, a, v] = gav.split(':') as [string, string, string];
  return join(homedir(), '.m2/repository', ...g.split('.'), a, v, `${a}-${v}.jar`);
}

function entry(gav: string, name: string): string {
  const jar = jarPath(gav);
  try {
    return execFileSync('unzip', ['-p', jar, name], { encoding: 'utf8', maxBuffer: 1 << 24 });
  } catch {
    execFileSync('mvn', ['-q', 'dependency:get', `-Dartifact=${gav}`, '-Dtransitive=false'], {
      stdio: 'ignore',
      timeout: 300_000,
    });
    return execFileSync('unzip', ['-p', jar, name], { encoding: 'utf8', maxBuffer: 1 << 24 });
  }
}

export interface WsmanSchemas {
  /** wsman.xsd, its imports pointed at the preloaded files */
  main: { fileName: string; contents: string };
  preload: { fileName: string; contents: string }[];
}

export function wsmanSchemas(): WsmanSchemas {
  const wsman = entry(ARTIFACTS.wsman.gav, ARTIFACTS.wsman.entry)
    .replace(/^\uFEFF/, '')
    .replace('schemaLocation="http://schemas.xmlsoap.org/ws/2004/08/addressing"', 'schemaLocation="addressing.xsd"')
    .replace('schemaLocation="http://www.w3.org/2001/xml.xsd"', 'schemaLocation="xml.xsd"');
  const addressing = entry(ARTIFACTS.addressing.gav, ARTIFACTS.addressing.entry);
  const xml = entry(ARTIFACTS.xml.gav, ARTIFACTS.xml.entry);
  return {
    main: { fileName: 'wsman.xsd', contents: wsman },
    preload: [
      { fileName: 'addressing.xsd', contents: addressing },
      { fileName: 'xml.xsd', contents: xml },
    ],
  };
}
