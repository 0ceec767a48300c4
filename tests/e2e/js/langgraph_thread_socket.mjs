// LangGraph's v3 thread protocol over the JS SDK's WebSocket transport against PolicyPal's /lg: every
// command and subscription goes over the socket. Its browser transport sends no headers, so the key
// goes in the socket's URL (`?token=`) and the client has no apiKey. Node 20 has a WebSocket with
// --experimental-websocket (NODE_OPTIONS). Prints one JSON object. Env: PP_LG_URL, PP_TOKEN, PP_DOC_ID.
import { Client } from "@langchain/langgraph-sdk";

const { PP_LG_URL, PP_TOKEN, PP_DOC_ID } = process.env;
const client = new Client({ apiUrl: PP_LG_URL });
const webSocketFactory = (url) => new WebSocket(`${url}?token=${encodeURIComponent(PP_TOKEN)}`);

const thread = client.threads.stream({ assistantId: "policypal", transport: "websocket", webSocketFactory });
const seen = [];
const ended = new Promise((resolve) => {
  thread.onEvent((event) => {
    seen.push(event);
    const kind = event.method === "lifecycle" ? event.params.data.event : null;
    if (["completed", "failed"].includes(kind)) resolve();
  });
});
void thread.messages; // opens the messages projection, so the token events stream too
const started = await thread.run.start({
  input: {
    messages: [{ type: "human", content: "How long are job applicant records kept?" }],
    tagged_doc_ids: [PP_DOC_ID],
    action: "inquire",
  },
});
const output = await thread.output;
await ended;
const tree = await thread.agent.getTree();
let refused = null;
try {
  await thread.input.respond({ interrupt_id: "not-pending", namespace: [], response: "summarize" });
} catch (error) {
  refused = { name: error.name, code: error.code };
}
await thread.close();

console.log(
  JSON.stringify({
    runId: started.run_id,
    lifecycle: seen.filter((e) => e.method === "lifecycle").map((e) => e.params.data.event),
    seqs: seen.map((e) => e.seq),
    tokens: seen.filter((e) => e.method === "messages").length,
    answer: output.messages.at(-1).content,
    tree: tree.tree,
    refused,
  }),
);
