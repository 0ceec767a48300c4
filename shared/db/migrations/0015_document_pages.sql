-- Issue 28: what a document shows as pages, and what its ingest wants the user to know.
-- rendition_key: the object (uploads bucket) holding the PDF made at ingest from a non-PDF upload
--   (Office, HTML, EPUB, XPS, text), so citations carry a real page and the viewer can show it;
--   NULL for PDFs, whose original is their pages. Downloads keep returning `object_key`.
-- warning: a non-fatal ingest finding, such as the pages that had no text and could not be read
--   by OCR; shown beside the document, never a reason to fail it.
ALTER TABLE documents ADD COLUMN rendition_key text;
ALTER TABLE documents ADD COLUMN warning text;
-- Finding earlier versions (same owner and title) and the same bytes under another title.
CREATE INDEX documents_title ON documents (tenant_id, user_id, title);
CREATE INDEX documents_sha256 ON documents (tenant_id, user_id, sha256);
