package dev.tollgate.rules.change;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class FieldChangeTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void listsOnlyTheFieldsThatChangedIgnoringTheVersion() {
        JsonNode before = json("{'id':'g','rate_per_s':10,'burst':20,'mode':'enforce','version':1}");
        JsonNode after = json("{'id':'g','rate_per_s':10,'burst':30,'mode':'shadow','version':2}");

        assertThat(FieldChange.between(before, after)).containsExactly(
                new FieldChange("burst", "20", "30"),
                new FieldChange("mode", "enforce", "shadow"));
    }

    @Test
    void comparesNestedObjectsFieldByField() {
        JsonNode before = json("{'match':{'plan':'growth','route':null}}");
        JsonNode after = json("{'match':{'plan':'growth','route':'/v1/labels'}}");

        assertThat(FieldChange.between(before, after)).containsExactly(new FieldChange("match.route", null, "/v1/labels"));
    }

    @Test
    void comparesListsItemByItem() {
        JsonNode before = json("{'descriptors':[{'key':'a','rule':'r1'},{'key':'b','replaces':['x']}]}");
        JsonNode after = json("{'descriptors':[{'key':'a','rule':'r2'},{'key':'b','replaces':['x','y']},{'key':'c'}]}");

        assertThat(FieldChange.between(before, after)).containsExactly(
                new FieldChange("descriptors[0].rule", "r1", "r2"),
                new FieldChange("descriptors[1].replaces[1]", null, "y"),
                new FieldChange("descriptors[2].key", null, "c"));
    }

    @Test
    void aCreationShowsEveryFieldAsNewAndADeletionEveryFieldAsGone() {
        JsonNode override = json("{'account_id':'acct','rate_per_s':500}");

        assertThat(FieldChange.between(null, override)).containsExactly(
                new FieldChange("account_id", null, "acct"), new FieldChange("rate_per_s", null, "500"));
        assertThat(FieldChange.between(override, null)).containsExactly(
                new FieldChange("account_id", "acct", null), new FieldChange("rate_per_s", "500", null));
    }

    private static JsonNode json(String singleQuoted) {
        return JSON.readTree(singleQuoted.replace('\'', '"'));
    }
}
