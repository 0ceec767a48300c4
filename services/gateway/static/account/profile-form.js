// The company profile (onboarding and settings): what the agent is told about who is asking,
// e.g. "a bank in Malaysia", so answers fit the user's industry and country.

import { api } from "../common/api.js";
import { html } from "../common/html.js";
import { Field } from "./field.js";
import { useForm } from "./use-form.js";

export const EMPTY_PROFILE = { company: "", country: "", industry: "", description: "" };

export function ProfileForm({ initial, submitLabel, busyLabel, testId, onSaved, status }) {
  const form = useForm(initial, async (values) => {
    onSaved(await api("/v1/me/onboarding", { method: "PUT", json: values }));
  });
  return html`
    <form onSubmit=${form.onSubmit} novalidate>
      <${Field} id="company" label="Company name" autocomplete="organization" error=${form.fields.company}
        ...${form.bind("company")} />
      <div class="row">
        <${Field} id="country" label="Country" autocomplete="country-name" error=${form.fields.country}
          ...${form.bind("country")} />
        <${Field} id="industry" label="Industry" hint="For example: retail banking, insurance, healthcare."
          error=${form.fields.industry} ...${form.bind("industry")} />
      </div>
      <${Field} id="description" label="What does your company do?" multiline
        hint="One or two sentences; optional." error=${form.fields.description} ...${form.bind("description")} />
      ${form.error && html`<p class="form-error" role="alert">${form.error}</p>`}
      ${status && !form.error && html`<p class="form-ok" role="status">${status}</p>`}
      <button type="submit" class="primary wide" disabled=${form.busy} data-testid=${testId}>
        ${form.busy ? busyLabel : submitLabel}
      </button>
    </form>
  `;
}
