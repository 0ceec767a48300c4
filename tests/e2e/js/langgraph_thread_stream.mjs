// LangGraph's v3 thread protocol from the JS SDK's `threads.stream()` against PolicyPal's /lg: a run
// streamed to its end, then a PalAssist question and its resume (Agent Chat UI's approve). Prints one
// JSON object for the Python test to check. Env: PP_LG_URL, PP_TOKEN, PP_DOC_ID.
import { Client } from "@langchain/langgraph-sdk";

const { PP_LG_URL, PP_TOKEN, PP_DOC_ID } = process.env;
const client = new Client({ apiUrl: PP_LG_URL, apiKey: PP_TOKEN });
const human = (content, extra = {}) => ({
  messages: [{ type: "human", content }],
  tagged_doc_ids: [PP_DOC_ID],
  ...extra,
});

// Resolves with the root lifecycle event that is one of `kinds` (the SDK fires each event once).
function lifecycleOf(thread, kinds, seen) {
  return new Promise((resolve) => {
    thread.onEvent((event) => {
      seen.push(event);
      if (event.method === "lifecycle" && kinds.includes(event.params.data.event)) resolve(event);
    });
  });
}

const first = client.threads.stream({ assistantId: "policypal" });
const seen = [];
const ended = lifecycleOf(first, ["completed", "failed"], seen);
void first.messages; // opens the messages projection, so the token events stream too
const started = await first.run.start({
  input: human("How long are job applicant records kept?", { action: "inquire" }),
});
const output = await first.output;
await ended;
const messages = seen.filter((e) => e.method === "messages").map((e) => e.params.data);
await first.close();

const second = client.threads.stream({ assistantId: "policypal" });
const asked = [];
const interrupted = lifecycleOf(second, ["interrupted", "failed"], asked);
await second.run.start({ input: human("Summarize and audit the tagged policy") });
await interrupted;
const pending = second.interrupts[0];
const resumed = [];
const done = lifecycleOf(second, ["completed", "failed"], resumed);
await second.input.respond({
  interrupt_id: pending.interruptId,
  namespace: [],
  response: { decisions: [{ type: "approve" }] },
});
await done;
const state = await client.threads.getState(second.threadId);
await second.close();

console.log(
  JSON.stringify({
    runId: started.run_id,
    lifecycle: seen.filter((e) => e.method === "lifecycle").map((e) => e.params.data.event),
    output: { messages: output.messages.map((m) => ({ id: m.id, content: m.content })) },
    messageIds: [...new Set(messages.filter((d) => d.event === "message-start").map((d) => d.id))],
    deltas: messages
      .filter((d) => d.event === "content-block-delta")
      .map((d) => d.delta.text)
      .join(""),
    interrupted: second.interrupted || asked.some((e) => e.method === "input.requested"),
    interrupt: { id: pending.interruptId, payload: pending.payload },
    resumedAction: state.values.messages.at(-1).response_metadata.action,
  }),
);
