// The composer's content as the API takes it: TipTap-shaped JSON (doc → paragraph → text | mention
// | hardBreak, mention attrs {id, label, category}), the plain message, and the tagged ids, action
// and web flag derived from the mentions. The resolver reads the same shape (services/resolver/tiptap.py).

const BLOCKS = new Set(["DIV", "P"]);

/** Read the editor's DOM (text, mention chips, line breaks, Chromium's per-line divs). */
export function serializeEditor(root) {
  const paragraphs = [[]];
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        if (child.data) paragraphs.at(-1).push({ type: "text", text: child.data.replace(/\u00a0/g, " ") });
      } else if (child.dataset?.mention) {
        const { id, label, category } = child.dataset;
        paragraphs.at(-1).push({ type: "mention", attrs: { id, label, category } });
      } else if (child.nodeName === "BR") {
        paragraphs.at(-1).push({ type: "hardBreak" });
      } else if (BLOCKS.has(child.nodeName)) {
        if (paragraphs.at(-1).length) paragraphs.push([]);
        walk(child);
        paragraphs.push([]);
      } else {
        walk(child);
      }
    }
  };
  walk(root);
  const content = paragraphs
    .map((nodes) => trimBreaks(nodes))
    .filter((nodes) => nodes.length)
    .map((nodes) => ({ type: "paragraph", content: nodes }));
  return { type: "doc", content };
}

function trimBreaks(nodes) {
  const out = [...nodes];
  while (out.length && out.at(-1).type === "hardBreak") out.pop();
  while (out.length && out[0].type === "hardBreak") out.shift();
  return out;
}

/** The ChatRequest fields (minus thread_id) for a TipTap document. */
export function chatRequest(doc) {
  const lines = [];
  const tagged = { documents: [], sets: [], actions: [], web: false };
  for (const paragraph of doc.content) {
    let line = "";
    for (const node of paragraph.content) {
      if (node.type === "text") line += node.text;
      else if (node.type === "hardBreak") line += "\n";
      else if (node.type === "mention") {
        line += `@${node.attrs.label}`;
        const { id, category } = node.attrs;
        if (category === "document" && !tagged.documents.includes(id)) tagged.documents.push(id);
        else if (category === "set" && !tagged.sets.includes(id)) tagged.sets.push(id);
        else if (category === "action") tagged.actions.push(id);
        else if (category === "web") tagged.web = true;
      }
    }
    lines.push(line);
  }
  const message = lines.join("\n").replace(/[ \t]+/g, " ").trim();
  const request = {
    message,
    tiptap_json: doc,
    tagged_doc_ids: tagged.documents,
    tagged_set_ids: tagged.sets,
    enable_web_search: tagged.web,
  };
  // One action mention is an explicit choice; several are left to the intent resolver to ask about.
  if (tagged.actions.length === 1) request.action = tagged.actions[0];
  return request;
}
