-- The delta watch feed: a pod that holds revision R asks for the changes after R and gets only those.
-- Each row of what pods hold (rules, overrides, region budgets, descriptor mappings) carries the store
-- revision of its last change, and each row that goes leaves a tombstone at the revision it went in.
-- Both are set by triggers, so every writer is covered (rules-service, budget-rebalancer, a person with
-- psql), as the revision itself is. Revisions commit in order (V1), so one REPEATABLE READ transaction
-- that reads the revision R' and then "revision > R" holds exactly the changes in (R, R'].

-- advance_revision() now also keeps the transaction's revision in a transaction-local setting, so the
-- row triggers below read it without another UPDATE per row: the rebalancer writes up to 150,000 budget
-- rows in one transaction. The setting names its transaction, and is undone with it (or its savepoint).
CREATE OR REPLACE FUNCTION advance_revision() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    advanced bigint;
BEGIN
    UPDATE store_revision
       SET revision = revision + 1, xact = txid_current(), changed_at = now()
     WHERE xact IS DISTINCT FROM txid_current()
    RETURNING revision INTO advanced;
    IF advanced IS NULL THEN
        SELECT revision INTO advanced FROM store_revision;
    END IF;
    PERFORM set_config('tollgate.change_revision', txid_current() || ':' || advanced, true);
    RETURN advanced;
END
$$;

-- The revision the current transaction's changes become visible in: advanced (and the store's write
-- lock taken) by the first change of a writer that did not call advance_revision() itself.
CREATE FUNCTION change_revision() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    held text := current_setting('tollgate.change_revision', true);
BEGIN
    IF held IS NOT NULL AND split_part(held, ':', 1) = txid_current()::text THEN
        RETURN split_part(held, ':', 2)::bigint;
    END IF;
    RETURN advance_revision();
END
$$;

-- Which revisions the feed can answer with a delta: from oldest_revision on. Tombstones older than the
-- feed keeps are pruned (rules-service, tollgate.watch.keep) and a TRUNCATE leaves none at all; either
-- raises it, and a pod that holds an older revision is sent a whole snapshot instead.
CREATE TABLE watch_feed (
    singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    oldest_revision bigint  NOT NULL CHECK (oldest_revision >= 0)
);
INSERT INTO watch_feed (singleton, oldest_revision) SELECT true, revision FROM store_revision;

-- One row per row that went (a DELETE, a cascade from its rule, or an UPDATE of its key). The key in
-- rule_history's columns: rule_id holds a descriptor_domain's domain, account_id an override's account
-- or a budget's limit key.
CREATE TABLE watch_tombstones (
    revision    bigint      NOT NULL,
    entity      text        NOT NULL CHECK (entity IN ('rule', 'override', 'region_budget', 'descriptor_domain')),
    rule_id     text        NOT NULL,
    account_id  text,
    region      text,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX watch_tombstones_by_revision ON watch_tombstones (revision);

-- Rows already there are held by every pod that holds oldest_revision or later.
ALTER TABLE rules ADD COLUMN revision bigint;
ALTER TABLE overrides ADD COLUMN revision bigint;
ALTER TABLE region_budgets ADD COLUMN revision bigint;
ALTER TABLE descriptor_domains ADD COLUMN revision bigint;
UPDATE rules SET revision = (SELECT oldest_revision FROM watch_feed);
UPDATE overrides SET revision = (SELECT oldest_revision FROM watch_feed);
UPDATE region_budgets SET revision = (SELECT oldest_revision FROM watch_feed);
UPDATE descriptor_domains SET revision = (SELECT oldest_revision FROM watch_feed);
ALTER TABLE rules ALTER COLUMN revision SET NOT NULL;
ALTER TABLE overrides ALTER COLUMN revision SET NOT NULL;
ALTER TABLE region_budgets ALTER COLUMN revision SET NOT NULL;
ALTER TABLE descriptor_domains ALTER COLUMN revision SET NOT NULL;
CREATE INDEX rules_by_revision ON rules (revision);
CREATE INDEX overrides_by_revision ON overrides (revision);
-- a pod reads its own region's budgets only: (region, revision) keeps its delta one index range
CREATE INDEX region_budgets_by_region_revision ON region_budgets (region, revision);
CREATE INDEX descriptor_domains_by_revision ON descriptor_domains (revision);

CREATE FUNCTION stamp_change_revision() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.revision := change_revision();
    RETURN NEW;
END
$$;

CREATE TRIGGER rules_stamp_revision BEFORE INSERT OR UPDATE ON rules
    FOR EACH ROW EXECUTE FUNCTION stamp_change_revision();
CREATE TRIGGER overrides_stamp_revision BEFORE INSERT OR UPDATE ON overrides
    FOR EACH ROW EXECUTE FUNCTION stamp_change_revision();
CREATE TRIGGER region_budgets_stamp_revision BEFORE INSERT OR UPDATE ON region_budgets
    FOR EACH ROW EXECUTE FUNCTION stamp_change_revision();
CREATE TRIGGER descriptor_domains_stamp_revision BEFORE INSERT OR UPDATE ON descriptor_domains
    FOR EACH ROW EXECUTE FUNCTION stamp_change_revision();

-- TG_ARGV[0]: the entity; the key columns come from OLD by table.
CREATE FUNCTION record_tombstone() RETURNS trigger
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
    ELSE
        INSERT INTO watch_tombstones (revision, entity, rule_id) VALUES (change_revision(), 'descriptor_domain', OLD.domain);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER rules_tombstone AFTER DELETE ON rules
    FOR EACH ROW EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER rules_rekey_tombstone AFTER UPDATE ON rules
    FOR EACH ROW WHEN (OLD.rule_id IS DISTINCT FROM NEW.rule_id) EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER overrides_tombstone AFTER DELETE ON overrides
    FOR EACH ROW EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER overrides_rekey_tombstone AFTER UPDATE ON overrides
    FOR EACH ROW WHEN ((OLD.account_id, OLD.rule_id) IS DISTINCT FROM (NEW.account_id, NEW.rule_id))
    EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER region_budgets_tombstone AFTER DELETE ON region_budgets
    FOR EACH ROW EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER region_budgets_rekey_tombstone AFTER UPDATE ON region_budgets
    FOR EACH ROW WHEN ((OLD.rule_id, OLD.limit_key, OLD.region) IS DISTINCT FROM (NEW.rule_id, NEW.limit_key, NEW.region))
    EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER descriptor_domains_tombstone AFTER DELETE ON descriptor_domains
    FOR EACH ROW EXECUTE FUNCTION record_tombstone();
CREATE TRIGGER descriptor_domains_rekey_tombstone AFTER UPDATE ON descriptor_domains
    FOR EACH ROW WHEN (OLD.domain IS DISTINCT FROM NEW.domain) EXECUTE FUNCTION record_tombstone();

-- A TRUNCATE fires no row trigger and so leaves no tombstones: no delta can span it.
CREATE FUNCTION truncate_watch_feed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE watch_feed SET oldest_revision = change_revision();
    RETURN NULL;
END
$$;

CREATE TRIGGER rules_truncate_feed AFTER TRUNCATE ON rules
    FOR EACH STATEMENT EXECUTE FUNCTION truncate_watch_feed();
CREATE TRIGGER overrides_truncate_feed AFTER TRUNCATE ON overrides
    FOR EACH STATEMENT EXECUTE FUNCTION truncate_watch_feed();
CREATE TRIGGER region_budgets_truncate_feed AFTER TRUNCATE ON region_budgets
    FOR EACH STATEMENT EXECUTE FUNCTION truncate_watch_feed();
CREATE TRIGGER descriptor_domains_truncate_feed AFTER TRUNCATE ON descriptor_domains
    FOR EACH STATEMENT EXECUTE FUNCTION truncate_watch_feed();
