-- Envoy's descriptor mappings (RLS v3), one row per domain: the envoyproxy/ratelimit-shaped tree of
-- descriptor keys and values, each node naming the rule it enforces. Held whole as JSON: it is read and
-- written whole, validated by the service against the rules before it is stored, and shipped to the
-- pods in the same snapshot, at the same revision, as the rules it names.
CREATE TABLE descriptor_domains (
    domain      text   PRIMARY KEY CHECK (btrim(domain) <> ''),
    descriptors jsonb  NOT NULL CHECK (jsonb_typeof(descriptors) = 'array' AND jsonb_array_length(descriptors) > 0),
    version     bigint NOT NULL DEFAULT 1 CHECK (version >= 1)
);

CREATE TRIGGER descriptor_domains_advance_revision AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON descriptor_domains
    FOR EACH STATEMENT EXECUTE FUNCTION advance_revision_on_change();

-- Their changes are audited beside the rules': for a descriptor_domain row, rule_id holds the domain.
ALTER TABLE rule_history DROP CONSTRAINT rule_history_entity_check;
ALTER TABLE rule_history ADD CONSTRAINT rule_history_entity_check
    CHECK (entity IN ('rule', 'override', 'region_budget', 'descriptor_domain'));
ALTER TABLE rule_history DROP CONSTRAINT rule_history_account;
ALTER TABLE rule_history ADD CONSTRAINT rule_history_account
    CHECK (entity IN ('rule', 'descriptor_domain') OR account_id IS NOT NULL);
