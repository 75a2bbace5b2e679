// The WinRM client's requests (Create shell, Command, Receive, Signal, Delete) against the published
// schemas: every WS-Addressing and WS-Management header of each request is validated with libxml2
// (xmllint-wasm) against DMTF's wsman.xsd (DSP8015) and WS-Addressing 2004/08, fetched from Maven
// Central (testkit/src/wsman-schemas.ts). The SOAP 1.2 envelope and Microsoft's shell body schemas
// have no reachable copy: those parts are checked by the WS-Man double instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMParser, XMLSerializer, type Element as XElement } from '@xmldom/xmldom';
import { validateXML } from 'xmllint-wasm';
import { startWsmanDouble, wsmanSchemas, type WsmanDouble, type WsmanSchemas } from '@watchpost/testkit/actions';
import { ACTIONS, WinrmClient } from './winrm.ts';

let win: WsmanDouble;
let schemas: WsmanSchemas;
const SOAP = 'http://www.w3.org/2003/05/soap-envelope';
const WSMAN = 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd';
const WSA = 'http://schemas.xmlsoap.org/ws/2004/08/addressing';
const MS_WSMAN = 'http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd';

beforeAll(async () => {
  schemas = wsmanSchemas();
  win = await startWsmanDouble({ username: 'Administrator', password: 'schema-pw-1', tls: true });
}, 300_000);
afterAll(async () => win?.close());

/** Each header element of a request as a document of its own (the serializer declares its namespaces). */
function headerElements(xml: string): { name: string; ns: string; xml: string }[] {
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  const header = doc.getElementsByTagNameNS(SOAP, 'Header')[0];
  if (!header) throw new Error('no SOAP header');
  const out: { name: string; ns: string; xml: string }[] = [];
  for (let n = header.firstChild; n; n = n.nextSibling)
    if (n.nodeType === 1) {
      const el = n as XElement;
      out.push({ name: el.tagName, ns: el.namespaceURI ?? '', xml: new XMLSerializer().serializeToString(n) });
    }
  return out;
}

async function validate(docs: { name: string; xml: string }[]): Promise<string[]> {
  const r = await validateXML({
    xml: docs.map((d, i) => ({ fileName: `h${i}.xml`, contents: d.xml })),
    schema: schemas.main,
    preload: schemas.preload,
  });
  return r.errors
    .filter((e) => !/fails to validate$/.test(e.message))
    .map((e) => `${docs[Number(/h(\d+)\.xml/.exec(e.loc?.fileName ?? '')?.[1] ?? -1)]?.name ?? '?'}: ${e.message}`);
}

describe('WS-Management requests against the published schemas', () => {
  it('Create, Command, Receive, Signal and Delete: every header validates', async () => {
    const client = new WinrmClient(
      {
        address: '127.0.0.1',
        port: win.port,
        transport: 'https',
        username: 'Administrator',
        password: 'schema-pw-1',
        // self-signed: the pin is the check (Basic never goes over plain HTTP)
        verifyTls: false,
        verifyPeer: async (sha256) => {
          if (sha256 !== win.certSha256) throw new Error('not the double');
        },
        auth: 'basic',
      },
      AbortSignal.timeout(5000),
    );
    await client.run('hostname');
    const actions = new Set(win.requests.map((r) => r.action));
    for (const a of [ACTIONS.create, ACTIONS.command, ACTIONS.receive, ACTIONS.signal, ACTIONS.delete])
      expect(actions, a).toContain(a);
    for (const req of win.requests) {
      const all = headerElements(req.xml);
      // Microsoft's extension headers (MS-WSMV: DataLocale, ...) have no published schema here.
      const docs = all.filter((d) => d.ns === WSMAN || d.ns === WSA);
      expect(
        all.filter((d) => !docs.includes(d)).every((d) => d.ns === MS_WSMAN),
        req.action,
      ).toBe(true);
      expect(docs.map((d) => d.name.split(':')[1])).toEqual(
        expect.arrayContaining(['To', 'ReplyTo', 'Action', 'MessageID', 'ResourceURI', 'OperationTimeout']),
      );
      expect(await validate(docs), req.action).toEqual([]);
    }
  });

  it('the check can fail: a malformed timeout or selector is refused by the schema', async () => {
    const bad = [
      {
        name: 'w:OperationTimeout',
        xml: '<w:OperationTimeout xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd">sixty</w:OperationTimeout>',
      },
      {
        name: 'w:SelectorSet',
        xml: '<w:SelectorSet xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd"><w:Selector>x</w:Selector></w:SelectorSet>',
      },
      {
        name: 'a:ReplyTo',
        xml: '<a:ReplyTo xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing"><a:Nowhere/></a:ReplyTo>',
      },
    ];
    const errors = await validate(bad);
    expect(errors.some((e) => e.startsWith('w:OperationTimeout'))).toBe(true);
    expect(errors.some((e) => e.startsWith('w:SelectorSet'))).toBe(true);
    expect(errors.some((e) => e.startsWith('a:ReplyTo'))).toBe(true);
  });
});
