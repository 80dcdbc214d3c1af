import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDefaultTemplate } from './templates.ts';

const INVITE = {
  organization_name: 'Acme',
  verify_url: 'http://tokens.test/verify?token=abc&email=a%40example.test',
  expires_at: '2026-11-29T10:00:00.000Z',
  email: 'a@example.test',
};

describe('default mail templates', () => {
  it('escapes a <script> in a variable in the HTML part', () => {
    const mail = renderDefaultTemplate('USER_INVITE', {
      ...INVITE,
      organization_name: '<script>alert("x")</script>',
    });
    assert.ok(!mail.html.includes('<script>'), mail.html);
    assert.ok(mail.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), mail.html);
  });

  it('keeps a variable inside an attribute from closing it', () => {
    const mail = renderDefaultTemplate('USER_INVITE', {
      ...INVITE,
      verify_url: 'http://x.test/"><img src=x onerror=alert(1)>',
    });
    assert.ok(!mail.html.includes('"><img'), mail.html);
    assert.ok(
      mail.html.includes('href="http://x.test/&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;"'),
      mail.html,
    );
  });

  it('leaves the subject and the text part unescaped (they are not HTML)', () => {
    const mail = renderDefaultTemplate('USER_INVITE', { ...INVITE, organization_name: 'Smith & <Sons>' });
    assert.equal(mail.subject, 'You are invited to Smith & <Sons>');
    assert.ok(mail.text.includes('join Smith & <Sons>.'), mail.text);
    assert.ok(mail.text.includes(`: ${INVITE.verify_url}\n`), mail.text);
    // In HTML the link's & is written as &amp;, which a mail client reads back as &.
    assert.ok(
      mail.html.includes('href="http://tokens.test/verify?token&#x3D;abc&amp;email&#x3D;a%40example.test"'),
      mail.html,
    );
  });

  it('renders the password reset mail with its link', () => {
    const mail = renderDefaultTemplate('FORGOT_PASSWORD_RESET', {
      organization_name: 'Acme',
      reset_url: 'http://tokens.test/reset-password?token=xyz',
      expires_at: '2026-11-29T10:00:00.000Z',
      email: 'a@example.test',
    });
    assert.equal(mail.subject, 'Reset your password');
    assert.ok(
      mail.text.includes('Choose a new password: http://tokens.test/reset-password?token=xyz'),
      mail.text,
    );
  });

  it('refuses a template type without a default rather than sending an empty mail', () => {
    assert.throws(() => renderDefaultTemplate('CLAIMED_NFT', {}), /no default template for CLAIMED_NFT/);
  });
});
