// The core flow of a LangGraph JS client against PolicyPal's /lg surface: stream, interrupt,
// resume (Agent Chat UI's HITL decision), background run joined from the start. Prints one JSON
// object for the Python test to check. Env: PP_LG_URL, PP_TOKEN, PP_DOC_ID.
import { Client } from "@langchain/langgraph-sdk";

const { PP_LG_URL, PP_TOKEN, PP_DOC_ID } = process.env;
// apiKey travels as X-Api-Key, as in Agent Chat UI.
const client = new Client({ apiUrl: PP_LG_URL, apiKey: PP_TOKEN });

async function collect(parts) {
  const seen = [];
  for await (const part of parts) seen.push(part);
  return seen;
}

const lastValues = (parts) => parts.filter((p) => p.event === "values").at(-1)?.data;
const human = (content) => ({ messages: [{ type: "human", content }], tagged_doc_ids: [PP_DOC_ID] });

const thread = await client.threads.create({ metadata: { suite: "js" }, graphId: "policypal" });
const tid = thread.thread_id;
let created;
const streamed = await collect(
  client.runs.stream(tid, "policypal", {
    input: { ...human("How long are job applicant records kept?"), action: "inquire" },
    streamMode: ["values", "messages-tuple", "updates"],
    streamResumable: true,
    onRunCreated: (meta) => {
      created = meta;
    },
  }),
);

const asked = await collect(
  client.runs.stream(tid, "policypal", {
    input: human("Summarize and audit the tagged policy"),
    streamMode: ["updates"],
  }),
);
const interrupted = await client.threads.get(tid);
const resumed = await collect(
  client.runs.stream(tid, "policypal", {
    command: { resume: { decisions: [{ type: "approve" }] } },
    streamMode: ["values", "messages-tuple"],
  }),
);

const background = await client.runs.create(tid, "policypal", {
  input: { ...human("What about CCTV footage?"), action: "inquire" },
  streamMode: ["values", "messages-tuple"],
});
const joined = await collect(
  client.runs.joinStream(tid, background.run_id, { lastEventId: "-1", streamMode: ["values", "messages-tuple"] }),
);
const joinedValues = await client.runs.join(tid, background.run_id);
const run = await client.runs.get(tid, background.run_id);
const found = await client.threads.search({ metadata: { suite: "js", graph_id: "policypal" } });

console.log(
  JSON.stringify({
    threadId: tid,
    created,
    streamEvents: streamed.map((p) => p.event),
    streamFirst: streamed[0],
    streamTokens: streamed.filter((p) => p.event === "messages").map((p) => p.data[0]),
    streamValues: lastValues(streamed),
    interrupt: asked.find((p) => p.event === "updates" && p.data.__interrupt__)?.data.__interrupt__,
    interruptedStatus: interrupted.status,
    resumedValues: lastValues(resumed),
    resumedTokens: resumed.filter((p) => p.event === "messages").length,
    background,
    joinedEvents: joined.map((p) => p.event),
    joinedIds: joined.map((p) => p.id ?? null),
    joinedValues: lastValues(joined),
    joinValues: joinedValues,
    run,
    found: found.map((t) => t.thread_id),
  }),
);
