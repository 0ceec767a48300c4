// The actions as the server's records describe them (GET /v1/actions, shared/actions): what the
// mention menu offers and what an answer's badge calls its action. Loaded once per page; a page
// whose request fails still works, offering no action to @-mention and naming actions by id.

async function load() {
  try {
    const response = await fetch("/v1/actions");
    return response.ok ? await response.json() : [];
  } catch {
    return [];
  }
}

export const ACTIONS = await load();

export function actionLabel(id) {
  return ACTIONS.find((a) => a.id === id)?.label || id;
}

export function actionColour(id) {
  return ACTIONS.find((a) => a.id === id)?.colour || "";
}
