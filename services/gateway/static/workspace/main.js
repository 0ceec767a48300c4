// Entry point: adopt a `#token=` sign-in link, then mount the workspace.

import { adoptTokenFromHash } from "../common/auth.js";
import { App } from "./app.js";
import { html, render } from "../common/html.js";

adoptTokenFromHash();
const root = document.getElementById("app");
root.className = "";
root.removeAttribute("aria-busy");
root.textContent = "";
render(html`<${App} />`, root);
