// The v3 thread protocol's other commands from the JS SDK's `threads.stream()` against PolicyPal's
// /lg: `input.inject` (a message while a run goes: PolicyPal's next turn), `state.listCheckpoints`
// (paged with `before`) and the protocol's refusals. Prints one JSON object for the Python test to
// check. Env: PP_LG_URL, PP_TOKEN, PP_DOC_ID.
import { Client } from "@langchain/langgraph-sdk";

const { PP_LG_URL, PP_TOKEN, PP_DOC_ID } = process.env;
const client = new Client({ apiUrl: PP_LG_URL, apiKey: PP_TOKEN });
const human = (content) => ({
  messages: [{ type: "human", content }],
  tagged_doc_ids: [PP_DOC_ID],
  action: "inquire",
});
// A refused command as the SDK reports it: its HTTP transport raises "HTTP <status>: <body>" for a
// 4xx (a ProtocolError only for an error envelope sent with 200), the body being the envelope.
const refusal = async (promise) => {
  try {
    await promise;
    return null;
  } catch (error) {
    const http = /^HTTP (\d+): (.*)$/s.exec(error.message);
    return http ? { status: Number(http[1]), ...JSON.parse(http[2]) } : { name: error.name, message: error.message };
  }
};
// The thread's runs once none is pending or running (the injected turn queues behind the second).
async function settled(threadId, count) {
  for (;;) {
    const runs = await client.runs.list(threadId);
    if (runs.length >= count && runs.every((r) => !["pending", "running"].includes(r.status))) return runs;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const thread = client.threads.stream({ assistantId: "policypal" });
await thread.run.start({ input: human("How long are job applicant records kept?") });
await thread.output;
await thread.run.start({ input: human("Who may access personnel files?") });
await thread.input.inject({ namespace: [], message: { role: "user", content: "How long is CCTV footage kept?" } });
const runs = await settled(thread.threadId, 3);
const state = await client.threads.getState(thread.threadId);

const first = await thread.state.listCheckpoints({ namespace: [], limit: 3 });
const next = await thread.state.listCheckpoints({ limit: 3, before: first.checkpoints.at(-1).id });
const head = await thread.state.get({ namespace: [] });

const refused = {
  system: await refusal(thread.input.inject({ namespace: [], message: { role: "system", content: "Be brief." } })),
  empty: await refusal(thread.input.inject({ namespace: [], message: { role: "user", content: "" } })),
  nested: await refusal(thread.state.listCheckpoints({ namespace: ["tools"] })),
  cursor: await refusal(thread.state.listCheckpoints({ before: "not-a-checkpoint" })),
};
await thread.close();

console.log(
  JSON.stringify({
    threadId: thread.threadId,
    runs: runs.map((r) => r.status),
    messages: state.values.messages.map((m) => ({ type: m.type, content: m.content })),
    pages: [first.checkpoints, next.checkpoints],
    head: head.checkpoint,
    refused,
  }),
);
