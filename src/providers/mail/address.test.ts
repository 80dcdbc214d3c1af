import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMailbox, parseDisplayName, parseMailbox, resolveSender } from './address.ts';
import { createMailgunTransport } from './mailgun.ts';
import { composeMessage } from './message.ts';
import { createSesTransport } from './ses.ts';
import { MailSendError } from './transport.ts';

describe('mailbox strings', () => {
  it('accepts addr, <addr> and Name <addr>, the name possibly quoted', () => {
    assert.deepEqual(parseMailbox('a@acme.test'), { name: undefined, address: 'a@acme.test' });
    assert.deepEqual(parseMailbox('<a@acme.test>'), { name: undefined, address: 'a@acme.test' });
    assert.deepEqual(parseMailbox('Acme Tokens <a@acme.test>'), {
      name: 'Acme Tokens',
      address: 'a@acme.test',
    });
    assert.deepEqual(parseMailbox('"Acme, Inc." <a@acme.test>'), {
      name: 'Acme, Inc.',
      address: 'a@acme.test',
    });
  });

  it('refuses control characters (header injection), several mailboxes and malformed addresses', () => {
    for (const bad of [
      'a@acme.test\r\nBcc: x@evil.test',
      'a@acme.test\nBcc: x@evil.test',
      'Acme\r\n <a@acme.test>',
      'Acme\u0000 <a@acme.test>',
      'Acme\u2028 <a@acme.test>',
      'a@acme.test, b@acme.test',
      'Bob <bob@acme.test>, eve@evil.test',
      'Acme <a@acme.test',
      'Acme <not-an-address>',
      'a@b',
      '"Acme "quoted"" <a@acme.test>',
      '',
    ]) {
      assert.equal(parseMailbox(bad), undefined, JSON.stringify(bad));
    }
    assert.equal(parseDisplayName('Acme\r\nBcc: x@evil.test'), undefined);
    assert.equal(parseDisplayName('Acme <a@acme.test>'), undefined);
  });

  it('formats the name quoted, so commas stay in the name', () => {
    assert.equal(formatMailbox({ name: 'Acme, Inc.', address: 'a@acme.test' }), '"Acme, Inc." <a@acme.test>');
    assert.equal(formatMailbox({ name: undefined, address: 'a@acme.test' }), 'a@acme.test');
  });

  it("resolves a mail's sender: its own mailbox, its display name before the transport's address, else the transport's", () => {
    const transport = 'Acme Tokens <tokens@acme.test>';
    assert.equal(resolveSender(null, transport), transport);
    assert.equal(resolveSender('Acme via Tokens', transport), '"Acme via Tokens" <tokens@acme.test>');
    assert.equal(resolveSender('Promo <promo@acme.test>', transport), '"Promo" <promo@acme.test>');
    assert.equal(resolveSender('promo@acme.test', transport), 'promo@acme.test');
    assert.equal(resolveSender('Bad\r\nBcc: x@evil.test', transport), transport);
  });
});

describe('the composed message', () => {
  it('carries From with its name, Reply-To, the Message-ID and both parts, and no injected header', async () => {
    const { raw, envelope } = await composeMessage({
      id: 'x',
      from: '"Acme, Inc." <a@acme.test>',
      replyTo: 'Support <s@acme.test>',
      to: 'r@example.test',
      subject: 'Hello\r\nBcc: x@evil.test',
      html: '<p>Hi</p>',
      text: 'Hi',
      messageId: '<x@token-issuance-service>',
    });
    const text = raw.toString('utf8');
    assert.deepEqual(envelope, { from: 'a@acme.test', to: ['r@example.test'] });
    assert.match(text, /^From: "Acme, Inc." <a@acme.test>\r$/m);
    assert.match(text, /^Reply-To: Support <s@acme.test>\r$/m);
    assert.match(text, /^Message-ID: <x@token-issuance-service>\r$/m);
    assert.match(text, /multipart\/alternative/);
    assert.doesNotMatch(text, /^Bcc:/m);
  });
});

describe('failures of unreachable providers', () => {
  const mail = {
    id: 'x',
    from: 'a@acme.test',
    to: 'r@example.test',
    subject: 's',
    html: '<p>h</p>',
    text: 'h',
    messageId: '<x@token-issuance-service>',
  };

  it('are transient for Mailgun (mailgun.js reports them as status 400)', async () => {
    const transport = createMailgunTransport(
      { domain: 'mg.acme.test', apiKey: 'k', region: 'US' },
      'http://127.0.0.1:9',
    );
    await assert.rejects(transport.send(mail), (error) => {
      assert.ok(error instanceof MailSendError);
      assert.equal(error.permanent, false, error.message);
      assert.match(error.message, /could not be reached/);
      return true;
    });
  });

  it('are transient for SES', async () => {
    const transport = createSesTransport(
      { region: 'us-east-1', accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 's' },
      'http://127.0.0.1:9',
    );
    await assert.rejects(transport.send(mail), (error) => {
      assert.ok(error instanceof MailSendError);
      assert.equal(error.permanent, false, error.message);
      return true;
    });
    await transport.close();
  });
});
