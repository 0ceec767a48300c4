// Answering PalAssist from the composer (feature spec, langgraph plan phase 3: "text_input uses
// ChatInput — it already has @mentions"). A text question is answered by the next message, its
// @-mentioned documents and sets included; "📄 Tag specific documents" (retrieval_low) opens the
// @-menu on the same question, and the documents picked are the answer, so the resumed turn answers
// from them instead of ending with an instruction. The shapes are those of shared/contracts/answers.py.

export const TAG_DOCS = "tag_docs";

/** What the composer is for while `question` is pending: null (a new message), "text" or "tag". */
export function composerRole(question, tagging) {
  if (!question) return null;
  if (question.interrupt_type === "text_input") return "text";
  if (question.interrupt_type === "retrieval_low" && tagging) return "tag";
  return null;
}

/** The composer's hint for that role. */
export const ROLE_HINT = {
  text: "Your answer goes to PalAssist · type @ to tag a document or set",
  tag: "Pick the documents with @, then Send · the same question is answered from them",
};

/**
 * The PalAssist answer a composer request makes: {resumeValue, label}, or {problem} when it cannot
 * answer the question (tagging without any document or set).
 */
export function answerFromRequest(role, request) {
  const documentIds = request.tagged_doc_ids || [];
  const setIds = request.tagged_set_ids || [];
  const tags = documentIds.length + setIds.length > 0;
  if (role === "tag") {
    if (!tags) return { problem: "Tag at least one document or set with @ to answer from it." };
    const value = { choice: TAG_DOCS, document_ids: documentIds, set_ids: setIds };
    return { resumeValue: { type: "retrieval_choice", value }, label: request.message };
  }
  const value = tags ? { text: request.message, document_ids: documentIds, set_ids: setIds } : request.message;
  return { resumeValue: { type: "text_input", value }, label: request.message };
}
