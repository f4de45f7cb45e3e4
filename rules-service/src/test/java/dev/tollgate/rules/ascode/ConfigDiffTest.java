package dev.tollgate.rules.ascode;

import dev.tollgate.common.ascode.DomainConfig;
import dev.tollgate.common.ascode.DomainFile.Format;
import dev.tollgate.common.descriptor.DescriptorDomain;
import dev.tollgate.common.descriptor.DescriptorNode;
import dev.tollgate.common.rule.AccountOverride;
import dev.tollgate.common.rule.FailMode;
import dev.tollgate.common.rule.Match;
import dev.tollgate.common.rule.Rule;
import dev.tollgate.common.wire.WireFormat;
import dev.tollgate.rules.ascode.ApplyReport.Kind;
import dev.tollgate.rules.ascode.ApplyReport.ObjectChange;
import dev.tollgate.rules.ascode.ApplyReport.Outcome;
import dev.tollgate.rules.change.FieldChange;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigDiffTest {

    private static final JsonMapper JSON = WireFormat.configure(JsonMapper.builder()).build();

    private static final Rule GLOBAL = Rule.tokenBucket("global", "d", 100, 200).withMatch(new Match("growth", null));
    private static final Rule LOGIN = Rule.slidingLog("login", "d", 5, 60).withMatch(new Match(null, "/login"));
    private static final DescriptorDomain MAPPING = new DescriptorDomain("d",
            List.of(new DescriptorNode("account", null, "global", null, List.of())), 3);
    private static final AccountOverride LAUNCH = new AccountOverride("acct", "global", 500, 1000, null, "launch");

    @Test
    void listsEveryObjectOfBothSidesWithWhatBecomesOfIt() {
        DomainConfig stored = new DomainConfig("d", List.of(GLOBAL.withVersion(7), LOGIN), MAPPING, List.of(LAUNCH));
        DomainConfig file = new DomainConfig("d", List.of(GLOBAL.withFailMode(FailMode.CLOSED)), null,
                List.of(LAUNCH, new AccountOverride("acct", "login", 1, 1, null, null)));

        List<ObjectChange> changes = ConfigDiff.between(stored, file, JSON);

        assertThat(changes).containsExactly(
                new ObjectChange(Kind.RULE, "global", null, null, Outcome.UPDATED, List.of(new FieldChange("fail_mode", "open", "closed"))),
                new ObjectChange(Kind.RULE, "login", null, null, Outcome.DELETED, null),
                new ObjectChange(Kind.DESCRIPTORS, "d", null, null, Outcome.DELETED, null),
                new ObjectChange(Kind.OVERRIDE, null, "acct", "global", Outcome.UNCHANGED, null),
                new ObjectChange(Kind.OVERRIDE, null, "acct", "login", Outcome.CREATED, null));
    }

    @Test
    void theSameConfigurationAtOtherVersionsIsUnchangedAndADomainWithoutAMappingListsNone() {
        DomainConfig stored = new DomainConfig("d", List.of(GLOBAL.withVersion(9)), MAPPING, List.of());
        DomainConfig file = new DomainConfig("d", List.of(GLOBAL), MAPPING.withVersion(0), List.of());

        assertThat(ConfigDiff.between(stored, file, JSON)).extracting(ObjectChange::outcome).containsOnly(Outcome.UNCHANGED);
        assertThat(ConfigDiff.between(DomainConfig.empty("d"), DomainConfig.empty("d"), JSON)).isEmpty();
    }

    @Test
    void exportIsYamlUnlessTheClientPrefersJson() {
        assertThat(ConfigController.preferred(null)).isEqualTo(Format.YAML);
        assertThat(ConfigController.preferred("*/*")).isEqualTo(Format.YAML);
        assertThat(ConfigController.preferred("application/json")).isEqualTo(Format.JSON);
        assertThat(ConfigController.preferred("application/yaml, application/json")).isEqualTo(Format.YAML);
        assertThat(ConfigController.preferred("application/yaml;q=0.5, application/json")).isEqualTo(Format.JSON);
        assertThat(ConfigController.preferred("application/*")).isEqualTo(Format.YAML);
    }
}
