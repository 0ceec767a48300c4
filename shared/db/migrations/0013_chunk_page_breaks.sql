-- Where each later page begins inside a chunk's text (issue #27: page-true citations). A chunk that
-- starts at the foot of page 4 and runs onto page 5 stores {offset of page 5's first character};
-- a citation of a sentence past that offset is cited to page 5, not to the chunk's first page.
-- Chunks written before this column read '{}': every sentence on the chunk's own page, as before.
ALTER TABLE chunks ADD COLUMN page_breaks int[] NOT NULL DEFAULT '{}';
