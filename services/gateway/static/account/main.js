// Entry point of the account pages (sign-in, sign-up, invite, onboarding, settings): the page's
// name is on <body data-page>, and each page is one component.

import { adoptTokenFromHash } from "../common/auth.js";
import { html, render } from "../common/html.js";
import { InvitePage } from "./invite.js";
import { OnboardingPage } from "./onboarding.js";
import { SettingsPage } from "./settings.js";
import { SignInPage } from "./signin.js";
import { SignUpPage } from "./signup.js";

const PAGES = {
  signin: SignInPage,
  signup: SignUpPage,
  invite: InvitePage,
  onboarding: OnboardingPage,
  settings: SettingsPage,
};

const page = document.body.dataset.page;
if (page !== "invite") adoptTokenFromHash();
const root = document.getElementById("app");
root.className = "";
root.removeAttribute("aria-busy");
root.textContent = "";
render(html`<${PAGES[page]} />`, root);
