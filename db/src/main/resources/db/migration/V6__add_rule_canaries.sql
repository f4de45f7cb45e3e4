-- Canary rollouts (docs/rules.md, "Canary rollout"): a rule's proposed next version, enforced only by the pods that
-- run with tollgate.rules.canary=true, until it is promoted (it becomes the rule, for every pod) or rolled back (it
-- goes, and the canary pods enforce the rule again). At most one per rule, and it goes with its rule.
CREATE TABLE rule_canaries (
    rule_id      text        PRIMARY KEY REFERENCES rules (rule_id) ON DELETE CASCADE,
    -- the rule's version the canary was written against: it is promoted over that version only
    base_version bigint      NOT NULL CHECK (base_version >= 1),
    -- the version it has while it is a canary, and keeps once promoted: above every version the rule has had,
    -- canaries rolled back included, so that a version names one rule body (If-Match, the history)
    version      bigint      NOT NULL,
    -- the rule as the API writes it (its wire JSON, version aside), held whole as descriptor mappings are: the
    -- service validates it as it validates a rule, and the pods validate it again in their snapshot
    body         jsonb       NOT NULL CHECK (jsonb_typeof(body) = 'object'),
    written_at   timestamptz NOT NULL DEFAULT now(),
    revision     bigint      NOT NULL,
    CONSTRAINT rule_canaries_above_base CHECK (version > base_version)
);
CREATE INDEX rule_canaries_by_revision ON rule_canaries (revision);

-- The feed sees a canary as it sees any row pods hold (V3): the revision advanced and stamped, a tombstone when it goes.
CREATE TRIGGER rule_canaries_advance_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON rule_canaries
    FOR EACH STATEMENT EXECUTE FUNCTION advance_revision_on_change();
CREATE TRIGGER rule_canaries_stamp_revision BEFORE INSERT OR UPDATE ON rule_canaries
    FOR EACH ROW EXECUTE FUNCTION stamp_change_revision();

ALTER TABLE watch_tombstones DROP CONSTRAINT watch_tombstones_entity_check;
ALTER TABLE watch_tombstones ADD CONSTRAINT watch_tombstones_entity_check
    CHECK (entity IN ('rule', 'override', 'region_budget', 'descriptor_domain', 'rule_canary'));

-- V3's function with a branch for canaries, keyed by their rule like a rule's.
CREATE OR REPLACE FUNCTION record_tombstone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'rules' THEN
        INSERT INTO watch_tombstones (revision, entity, rule_id) VALUES (change_revision(), 'rule', OLD.rule_id);
    ELSIF TG_TABLE_NAME = 'overrides' THEN
        INSERT INTO watch_tombstones (revision, entity, rule_id, account_id)
        VALUES (change_revision(), 'override', OLD.rule_id, OLD.account_id);
    ELSIF TG_TABLE_NAME = 'region_budgets' THEN
        INSERT INTO watch_tombstones (revision, entity, rule_id, account_id, region)
        VALUES (change_revision(), 'region_budget', OLD.rule_id, OLD.limit_key, OLD.region);
    ELSIF TG_TABLE_NAME = 'rule_canaries' THEN
        INSERT INTO watch_tombstones (revision, entity, rule_id) VALUES (change_revision(), 'rule_canary', OLD.rule_id);
    ELSE
        INSERT INTO watch_tombstones (revision, entity, rule_id) VALUES (change_revision(), 'descriptor_domain', OLD.domain);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER rule_canaries_tombstone AFTER DELETE ON rule_canaries
    FOR EACH ROW EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER rule_canaries_rekey_tombstone AFTER UPDATE ON rule_canaries
    FOR EACH ROW WHEN (OLD.rule_id IS DISTINCT FROM NEW.rule_id) EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER rule_canaries_truncate_feed AFTER TRUNCATE ON rule_canaries
    FOR EACH STATEMENT EXECUTE FUNCTION truncate_watch_feed();

-- The history of a rollout, beside the rule's other changes: a canary written (the rule before, the canary after),
-- promoted (the rule before, the promoted rule after) and rolled back (the canary before, the rule it leaves after).
ALTER TABLE rule_history DROP CONSTRAINT rule_history_change_check;
ALTER TABLE rule_history ADD CONSTRAINT rule_history_change_check
    CHECK (change IN ('create', 'replace', 'delete', 'shadow', 'enforce', 'canary', 'promote', 'rollback'));
ALTER TABLE rule_history DROP CONSTRAINT rule_history_values;
ALTER TABLE rule_history ADD CONSTRAINT rule_history_values CHECK (
    (change = 'create' AND old_value IS NULL AND new_value IS NOT NULL)
    OR (change = 'delete' AND old_value IS NOT NULL AND new_value IS NULL)
    OR (change IN ('replace', 'shadow', 'enforce', 'canary', 'promote', 'rollback') AND old_value IS NOT NULL AND new_value IS NOT NULL));
