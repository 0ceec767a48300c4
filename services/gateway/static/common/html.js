// Preact + htm, the one way every page writes markup: components are plain functions returning
// tagged-template markup (no build step).
// htm escapes every interpolated string, so untrusted text is only ever inserted as text.

import { h, render } from "../vendor/preact/preact.mjs";
import htm from "../vendor/htm/htm.mjs";

export const html = htm.bind(h);
export { render };
