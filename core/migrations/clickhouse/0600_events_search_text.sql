-- Free-text search (GET /api/v1/events?q=): title and summary lower-cased once, at insert, so a search
-- is a plain (SIMD) `position` on one column instead of a case-insensitive UTF-8 search of two per row
-- (api/src/queries/events.ts, searchTermSql). A newline between them: a phrase (one line) never spans
-- both. Parts written before this migration compute it on read until they are merged (same results).
ALTER TABLE events ADD COLUMN search_text String MATERIALIZED lowerUTF8(concat(title, '\n', summary));
