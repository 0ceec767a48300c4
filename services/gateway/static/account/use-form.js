// Form state shared by the account pages: values, the submit in flight, and the gateway's answer
// split into one message per field (from a 422's details) and one message for the form.

import { useState } from "../vendor/preact/hooks.mjs";

const FRIENDLY = {
  string_too_short: (d) => (d.field === "password" ? "Use at least 10 characters." : "This field is required."),
  string_pattern_mismatch: () => "Enter an email address like name@company.com.",
  string_too_long: () => "This is too long.",
  missing: () => "This field is required.",
};

function fieldErrors(error) {
  if (error.code !== "validation_error" || !Array.isArray(error.details)) return {};
  return Object.fromEntries(
    error.details.map((d) => [d.field, (FRIENDLY[d.type] || (() => d.message))(d)]),
  );
}

/** The gateway's messages are lower-case fragments; the page shows them as sentences. */
function sentence(message) {
  const text = String(message || "Something went wrong.");
  return text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".");
}

export function useForm(initial, submit) {
  const [values, setValues] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [fields, setFields] = useState({});
  const bind = (name) => ({
    name,
    value: values[name] ?? "",
    onInput: (event) => setValues((v) => ({ ...v, [name]: event.target.value })),
  });
  const onSubmit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await submit(values);
    } catch (failure) {
      const perField = fieldErrors(failure);
      setFields(perField);
      setError(Object.keys(perField).length ? "Please correct the highlighted fields." : sentence(failure.message));
    } finally {
      setBusy(false);
    }
  };
  return { values, setValues, bind, busy, error, fields, onSubmit };
}
