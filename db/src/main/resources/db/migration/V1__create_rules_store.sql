-- The rules store: rules, per-account overrides and region budgets, the append-only history of every
-- change, and the one store revision that pods watch. Enumerations are text with CHECK constraints
-- (lower-case, as on the wire) so that adding a value is one ALTER of a constraint, not a type rewrite.
-- The service validates everything first (422 with reasons); these constraints are the last line for
-- any other writer (budget-rebalancer, a person with psql) and the same bounds the pods rely on.

-- The store revision: one row, advanced once by every transaction that changes rules, overrides or
-- budgets. A writer holds this row's lock until it commits, so revisions become visible in the order
-- they were taken: a reader that sees revision N sees every change up to N and none after it, which
-- is what lets a watcher say "nothing changed since N" without missing a slow transaction.
CREATE TABLE store_revision (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    revision   bigint      NOT NULL CHECK (revision >= 0),
    -- the transaction that advanced it last: a second change in the same transaction keeps its revision
    xact       bigint,
    changed_at timestamptz NOT NULL
);
INSERT INTO store_revision (singleton, revision, xact, changed_at) VALUES (true, 0, NULL, now());

-- Advances the revision once per transaction and returns it. Taking it first thing in a write
-- transaction also serialises writers, so no two of them can deadlock on rows taken in another order.
CREATE FUNCTION advance_revision() RETURNS bigint
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
    RETURN advanced;
END
$$;

CREATE FUNCTION advance_revision_on_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM advance_revision();
    RETURN NULL;
END
$$;

CREATE TABLE rules (
    rule_id     text    PRIMARY KEY CHECK (rule_id ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
    domain      text    NOT NULL CHECK (btrim(domain) <> ''),
    match_plan  text,
    match_route text,
    identity    text    NOT NULL DEFAULT 'api_key' CHECK (identity IN ('api_key', 'ip', 'user')),
    algorithm   text    NOT NULL CHECK (algorithm IN ('token_bucket', 'sliding_log', 'fixed_window')),
    -- token_bucket: rate_per_s tokens every period_s seconds, up to burst
    rate_per_s  integer CHECK (rate_per_s > 0 AND rate_per_s <= 10000000),
    period_s    integer DEFAULT 1 CHECK (period_s BETWEEN 1 AND 86400),
    burst       integer CHECK (burst > 0 AND burst <= 100000000),
    -- sliding_log and fixed_window: "limit" per window_s seconds
    "limit"     integer CHECK ("limit" > 0 AND "limit" <= 100000000),
    window_s    integer CHECK (window_s BETWEEN 1 AND 2678400),
    mode        text    NOT NULL DEFAULT 'enforce' CHECK (mode IN ('enforce', 'shadow')),
    fail_mode   text    NOT NULL DEFAULT 'open' CHECK (fail_mode IN ('open', 'closed')),
    -- the largest cost one request may spend: a bucket smaller than it could never admit that request
    max_cost    integer NOT NULL DEFAULT 1 CHECK (max_cost >= 1),
    version     bigint  NOT NULL DEFAULT 1 CHECK (version >= 1),
    CONSTRAINT rules_token_bucket_fields CHECK (algorithm <> 'token_bucket'
        OR (rate_per_s IS NOT NULL AND period_s IS NOT NULL AND burst IS NOT NULL AND burst >= max_cost)),
    CONSTRAINT rules_window_fields CHECK (algorithm = 'token_bucket'
        OR ("limit" IS NOT NULL AND window_s IS NOT NULL AND "limit" >= max_cost)),
    -- "rate 0 on every route" denies everyone: a rule must name a plan or a route
    CONSTRAINT rules_match_not_everything CHECK (
        coalesce(btrim(match_plan), '') NOT IN ('', '*') OR coalesce(btrim(match_route), '') NOT IN ('', '*'))
);

CREATE TABLE overrides (
    account_id text    NOT NULL CHECK (account_id <> ''),
    -- an override means nothing without its rule; deleting the rule deletes them (and records each in history)
    rule_id    text    NOT NULL REFERENCES rules (rule_id) ON DELETE CASCADE,
    rate_per_s integer NOT NULL CHECK (rate_per_s > 0 AND rate_per_s <= 10000000),
    burst      integer NOT NULL CHECK (burst > 0 AND burst <= 100000000),
    -- null: never expires; pods stop applying it at this instant by their own clock, no job needed
    expires_at timestamptz,
    reason     text,
    PRIMARY KEY (account_id, rule_id)
);
CREATE INDEX overrides_by_rule ON overrides (rule_id);

CREATE TABLE region_budgets (
    rule_id    text             NOT NULL REFERENCES rules (rule_id) ON DELETE CASCADE,
    limit_key  text             NOT NULL CHECK (limit_key <> ''),
    region     text             NOT NULL CHECK (btrim(region) <> ''),
    -- above 0, not at 0: the limiter refuses a zero share (a region must always admit something; the
    -- rebalancer keeps every region at 10% or more), so the store never holds one a pod would reject
    share      double precision NOT NULL CHECK (share > 0 AND share <= 1),
    updated_at timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (rule_id, limit_key, region)
);
CREATE INDEX region_budgets_by_key ON region_budgets (limit_key);

-- Every writer advances the revision, including ones that do not call advance_revision() themselves
-- (the budget rebalancer, a manual fix): a change no pod hears about would never reach the fleet.
CREATE TRIGGER rules_advance_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON rules
    FOR EACH STATEMENT EXECUTE FUNCTION advance_revision_on_change();
CREATE TRIGGER overrides_advance_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON overrides
    FOR EACH STATEMENT EXECUTE FUNCTION advance_revision_on_change();
CREATE TRIGGER region_budgets_advance_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON region_budgets
    FOR EACH STATEMENT EXECUTE FUNCTION advance_revision_on_change();

-- Who changed what, when and why. Rows are only ever added: no foreign key (the history of a deleted
-- rule stays), and a trigger refuses UPDATE, DELETE and TRUNCATE.
CREATE TABLE rule_history (
    id          bigserial   PRIMARY KEY,
    -- the store revision this change became visible in; one transaction may add several rows
    revision    bigint      NOT NULL,
    changed_at  timestamptz NOT NULL DEFAULT now(),
    -- the subject of the bearer token that made the change
    changed_by  text        NOT NULL CHECK (changed_by <> ''),
    reason      text,
    entity      text        NOT NULL CHECK (entity IN ('rule', 'override', 'region_budget')),
    change      text        NOT NULL CHECK (change IN ('create', 'replace', 'delete', 'shadow', 'enforce')),
    rule_id     text        NOT NULL,
    -- the override's account, or the budget's limit key
    account_id  text,
    old_version bigint,
    new_version bigint,
    old_value   jsonb,
    new_value   jsonb,
    CONSTRAINT rule_history_account CHECK (entity = 'rule' OR account_id IS NOT NULL),
    CONSTRAINT rule_history_values CHECK (
        (change = 'create' AND old_value IS NULL AND new_value IS NOT NULL)
        OR (change = 'delete' AND old_value IS NOT NULL AND new_value IS NULL)
        OR (change IN ('replace', 'shadow', 'enforce') AND old_value IS NOT NULL AND new_value IS NOT NULL))
);
CREATE INDEX rule_history_by_rule ON rule_history (rule_id, id);
CREATE INDEX rule_history_by_revision ON rule_history (revision);

CREATE FUNCTION refuse_history_rewrite() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rule_history is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER rule_history_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON rule_history
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_history_rewrite();
