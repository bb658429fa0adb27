<#-- The frame of every HTML mail: base's emailLayout macro, with Atrium's brand around Keycloak's own text.
     Mail clients ignore stylesheets and custom properties, so the colours are inline: the shell's light tokens
     (shell/app/src/styles.css), checked by infra/keycloak/login-theme.spec.ts. -->
<#macro emailLayout>
<html lang="${locale.language}" dir="${(ltr)?then('ltr','rtl')}">
<body style="margin:0;padding:24px 12px;background:#f6f7f9;color:#1b1f24;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #d0d7de;border-top:4px solid #0b5fff;border-radius:8px;padding:8px 24px 16px">
<p style="margin:16px 0;font-size:20px;font-weight:700;color:#1b1f24">${realmName}</p>
<#nested>
</div>
</body>
</html>
</#macro>
