package dev.tollgate.rules.descriptor;

import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.rules.change.Versioned;
import dev.tollgate.rules.change.VersionedWrites;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Optional;

/** The {@code descriptor_domains} table. It is written through {@link VersionedWrites}, under the store lock. */
@Repository
public class DescriptorRepository implements Versioned.Table<DescriptorDomain> {

    private static final TypeReference<List<DescriptorNode>> NODES = new TypeReference<>() {
    };

    private final JdbcClient jdbc;
    private final JsonMapper json;
    private final RowMapper<DescriptorDomain> domain;

    DescriptorRepository(JdbcClient jdbc, JsonMapper json) {
        this.jdbc = jdbc;
        this.json = json;
        this.domain = (rs, row) -> new DescriptorDomain(rs.getString("domain"),
                json.readValue(rs.getString("descriptors"), NODES), rs.getLong("version"));
    }

    @Override
    public String key(DescriptorDomain mapping) {
        return mapping.domain();
    }

    @Override
    public long version(DescriptorDomain mapping) {
        return mapping.version();
    }

    @Override
    public DescriptorDomain withVersion(DescriptorDomain mapping, long version) {
        return mapping.withVersion(version);
    }

    @Override
    public Optional<DescriptorDomain> find(String name) {
        return jdbc.sql("SELECT domain, descriptors::text AS descriptors, version FROM descriptor_domains WHERE domain = ?")
                .param(name)
                .query(domain)
                .optional();
    }

    /** Every domain's mappings, ordered by domain. */
    public List<DescriptorDomain> findAll() {
        return jdbc.sql("SELECT domain, descriptors::text AS descriptors, version FROM descriptor_domains ORDER BY domain")
                .query(domain)
                .list();
    }

    /** The domains whose mappings were created or changed after {@code revision}. */
    public List<DescriptorDomain> changedSince(long revision) {
        return jdbc.sql("SELECT domain, descriptors::text AS descriptors, version FROM descriptor_domains WHERE revision > ? ORDER BY domain")
                .param(revision)
                .query(domain)
                .list();
    }

    @Override
    public void insert(DescriptorDomain mapping) {
        jdbc.sql("INSERT INTO descriptor_domains (domain, descriptors, version) VALUES (?, CAST(? AS jsonb), ?)")
                .params(mapping.domain(), json.writeValueAsString(mapping.descriptors()), mapping.version())
                .update();
    }

    @Override
    public void update(DescriptorDomain mapping, long expectedVersion) {
        int updated = jdbc.sql("UPDATE descriptor_domains SET descriptors = CAST(? AS jsonb), version = ? WHERE domain = ? AND version = ?")
                .params(json.writeValueAsString(mapping.descriptors()), mapping.version(), mapping.domain(), expectedVersion)
                .update();
        if (updated != 1) {
            throw new IllegalStateException("the descriptors of domain " + mapping.domain() + " changed under the store lock");
        }
    }

    @Override
    public void delete(String name) {
        jdbc.sql("DELETE FROM descriptor_domains WHERE domain = ?").param(name).update();
    }
}
