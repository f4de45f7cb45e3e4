-- When a rule's requests are counted: 'inline' (checked in the store before admitting, every rule until now) or
-- 'after' (admitted from the pod's flag, counted in the store in batches; docs/rules.md, "Counting after"). A sliding
-- log, the login limit, never counts after: its keys must not run over.
ALTER TABLE rules ADD COLUMN counting text NOT NULL DEFAULT 'inline' CHECK (counting IN ('inline', 'after'));
ALTER TABLE rules ADD CONSTRAINT rules_counting_after_algorithms CHECK (counting = 'inline' OR algorithm <> 'sliding_log');
