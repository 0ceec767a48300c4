// "Continue with <provider>" buttons: plain links, the gateway runs the OpenID Connect dance.

import { html } from "../common/html.js";

export function SsoButtons({ options }) {
  if (!options.length) return null;
  return html`
    <div class="sso">
      <p class="divider"><span>or</span></p>
      ${options.map(
        (option) => html`
          <a class="button sso-button" href=${option.start_url} data-testid="signin-sso">Continue with ${option.name}</a>
        `,
      )}
    </div>
  `;
}
