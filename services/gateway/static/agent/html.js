// htm bound to preact's h: the one way the agent and admin pages write markup (no build step).

import { h } from "../vendor/preact/preact.mjs";
import htm from "../vendor/htm/htm.mjs";

export const html = htm.bind(h);
